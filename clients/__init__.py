"""Contestants and the harness: the `taurec` command line (cli/), the runner that plays
agents over tasks x trials through the MCP server (runner/), and the agents (agents/)."""
