"""The "stream" kind in the evaluator: a stream's log replayed against its rules, regret per
episode, and learning curves per label."""
