"""The policy agents read (policy.md) and, per policy, one pure check over a trajectory."""
