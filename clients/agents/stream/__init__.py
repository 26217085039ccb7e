"""Agents for stream tasks (BIEL): the loop every stream agent shares, the random,
popularity and oracle baselines, the learning reference agent and the LLM agent."""
