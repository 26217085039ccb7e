"""The agents `taurec run` plays: the agent interface (base.py), the registry of agents per
task kind, one folder per kind, the LLM tool-calling loop, and contestants from outside."""
