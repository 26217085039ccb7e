"""Systems from outside as contestants: an Agent2Agent agent, a text-only CRS over HTTP, an
agent class of one's own, and small reference servers to try the first two."""
