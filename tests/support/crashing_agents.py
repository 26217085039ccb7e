"""Agents that raise or stop without committing, as the source of a file `taurec run
--agent FILE:Class` loads: Crasher raises ValueError("boom in the agent") after its first
message, Quitter says hello and returns, CrashesOnT002 raises on task t002 only."""

AGENTS = """
class Crasher:
    label = "crasher"

    async def run(self, episode):
        await episode.say("Hello!")
        raise ValueError("boom in the agent")


class Quitter:
    label = "quitter"

    async def run(self, episode):
        await episode.say("Hello!")


class CrashesOnT002:
    label = "t002-crasher"

    async def run(self, episode):
        if episode.task_id == "t002":
            raise KeyError("t002")
        await episode.recommend(None)
"""
