"""Playing a stream: the loop every stream agent shares, over any way of reaching it.

A `StreamPolicy` decides (which questions to ask, which item to pick, what to learn
from the feedback); `play_stream` runs it through a `StreamPort`: the MCP tools
(`McpStreamPort`, what `taurec run` uses) or, for tests and benches, a `StreamSession`
in process (`LocalStreamPort`). The policy sees exactly what the tools return.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from taurec.clients.agents.base import Episode

#: What a policy does next: ("ask", question) or ("recommend", item id).
Action = tuple[Literal["ask", "recommend"], str]
#: The questions asked in this episode so far, with the customer's answers.
Dialogue = list[tuple[str, str]]


class StreamPolicy(Protocol):
    label: str

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        """Ask a question or recommend an item. With no questions left
        (view["questions_left"] == 0) only a recommendation is accepted."""
        ...

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        """Learn from the feedback on `item_id` (in-context: the policy keeps it)."""
        ...


class StreamPort(Protocol):
    async def ask(self, question: str) -> dict[str, Any]: ...
    async def recommend(self, item_id: str) -> dict[str, Any]: ...
    async def next_episode(self) -> dict[str, Any]: ...


class StreamCallError(RuntimeError):
    """A stream tool refused a call the loop relies on."""


class McpStreamPort:
    """The stream tools of an MCP episode (the stream's id is the episode id)."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode

    async def _call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        outcome = await self.episode.call(tool, **arguments)
        if outcome.is_error:
            raise StreamCallError(f"{tool}: {outcome.text}")
        return outcome.data

    async def ask(self, question: str) -> dict[str, Any]:
        return await self._call("ask_question", question=question)

    async def recommend(self, item_id: str) -> dict[str, Any]:
        return await self._call("recommend_item", item_id=item_id)

    async def next_episode(self) -> dict[str, Any]:
        return await self._call("next_episode")


async def play_stream(port: StreamPort, view: dict[str, Any], policy: StreamPolicy) -> int:
    """Play from `view` (the current episode) to the end of the stream; returns how many
    episodes were played. A question past the budget is not sent: the first item is
    recommended instead (as BIEL does when a forced recommendation fails)."""
    played = 0
    while True:
        dialogue: Dialogue = []
        left = int(view.get("questions_left", 0))
        while True:
            kind, value = await policy.act({**view, "questions_left": left}, dialogue)
            if kind == "recommend":
                item_id = value
                break
            if left <= 0:
                item_id = str(view["items"][0]["id"])
                break
            answer = await port.ask(value)
            dialogue.append((value, str(answer.get("answer", ""))))
            left = int(answer.get("questions_left", left - 1))
        result = await port.recommend(item_id)
        policy.observe(view, item_id, result.get("feedback"))
        played += 1
        if result.get("stream_complete"):
            return played
        view = await port.next_episode()


class LocalStreamPort:
    """A stream session in process (tests, benches): the same results as the tools."""

    def __init__(self, session: Any) -> None:
        self.session = session  # a taurec.tasks.stream.session.StreamSession

    async def ask(self, question: str) -> dict[str, Any]:
        return dict(self.session.ask(question).model_dump(mode="json"))

    async def recommend(self, item_id: str) -> dict[str, Any]:
        return dict(self.session.recommend(item_id).model_dump(mode="json"))

    async def next_episode(self) -> dict[str, Any]:
        return dict(self.session.next_episode().model_dump(mode="json"))
