"""The "stream" kind on the MCP server: the streams one server runs, their MCP surface and
the optional LLM-simulated customer (the rules themselves are in taurec.tasks.stream)."""
