"""The harness: runs agents over tasks x trials through the MCP server.

`run_agent(agent, ...)` is the scripting entry point; `taurec run` is the command. Both
keep the same rules (session.py).
"""

from taurec.clients.runner.programmatic import run_agent
from taurec.clients.runner.runner import EpisodeResult, Runner, RunReport
from taurec.clients.runner.session import RunRefused

__all__ = ["EpisodeResult", "RunRefused", "RunReport", "Runner", "run_agent"]
