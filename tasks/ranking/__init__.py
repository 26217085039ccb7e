"""The "ranking" kind (AgenticRec): ranking tasks over interaction histories, their
generator and checks, and Hit/NDCG@K with the list-wise reward."""
