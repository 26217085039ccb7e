"""The MCP server: one folder per task kind (its service, episodes and tools), and what
every kind shares: assembling the server, the HTTP guard, settings, sealed runs, how
episodes end, and the trajectory writer."""
