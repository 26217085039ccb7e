"""The "ranking" kind in the evaluator: Hit@K, NDCG@K and the list-wise reward per episode
and per label, and the RL exports (GRPO groups, preference pairs)."""
