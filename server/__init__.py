"""The MCP server: tool surface, episodes, simulated users, episode logs."""
