"""Agents for stream tasks (BIEL): the loop every stream agent shares, the random and
popularity baselines, the ceiling, BIEL's LLM oracle, the learning reference agent, the
LLM agent, and the public API for one's own stream agent (api.py)."""
