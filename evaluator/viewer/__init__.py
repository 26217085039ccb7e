"""The episode viewer: `evaluator view` serves it on loopback, `--bundle` writes it as
static files. Both show the same pages over the same JSON documents (data.py)."""
