"""Agents for ranking tasks: the reference baselines, the collaborative-filtering agent and
the LLM agent with AgenticRec's prompt."""
