"""Reference agents and the agent interface (base.py)."""
