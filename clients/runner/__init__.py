"""The harness: runs agents over tasks x trials through the MCP server.

`run_agent(agent, ...)` is the scripting entry point; `taurec run` is the command.
"""

from .runner import EpisodeResult, Runner, RunReport, run_agent

__all__ = ["EpisodeResult", "RunReport", "Runner", "run_agent"]
