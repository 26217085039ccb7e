"""The "recommendation" kind in the evaluator: one episode scored under a rules profile
(constraints × policies), replay of the read-only calls, dialogue metrics, the
simulator-fault audit, and τ-Rec v1.0's own rules as the `tau-rec` profile."""
