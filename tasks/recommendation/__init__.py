"""The "recommendation" kind (τ-Rec): the task schema with typed, reveal-tagged constraints,
its answer keys, the generator and solvability validator, the read-only catalog tools as
pure functions, and the τ-Rec public release read as a suite."""
