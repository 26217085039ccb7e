"""The "recommendation" kind on the MCP server: the service, episodes and their store, the
tools and resources an agent reaches, and the simulated users (simulator/)."""
