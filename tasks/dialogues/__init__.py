"""Annotated dialogues from anywhere: taurec's own format (one dialogue per JSONL line),
DialogueKit's annotated-dialogue JSON (UserSimCRS's IARD file as it is), the IARD labels
mapped to taurec's acts and back, and reading them from disk for the simulators and the
evaluator."""
