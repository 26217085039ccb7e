"""The "ranking" kind on the MCP server: the seven recommendation tools, one ranking
episode as a state machine, its MCP surface, and a small in-process environment for RL."""
