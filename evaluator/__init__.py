"""The evaluator: replays and scores episode logs with no LLM call, per task kind (one folder
each), aggregates per agent label, and reports them (tables, the HTML report, the
viewer); the LLM judge is separate and optional. It imports nothing from the server or
the clients."""
