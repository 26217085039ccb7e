"""Playing a stream: the loop every stream agent shares, over any way of reaching it.

A `StreamPolicy` decides (which questions to ask, which item to pick, what to learn
from the feedback); `play_stream` runs it through a `StreamPort`: the MCP tools
(`McpStreamPort`, what `taurec run` uses) or, for tests and benches, a `StreamSession`
in process (`LocalStreamPort`). The policy sees exactly what the tools return.

A policy's action is a tuple: `("ask", question)`, `("recommend", item_id)` or
`("interim", item_id)` (planning runs: a hidden pick, scored, never answered); a
recommendation or an interim pick may add a third element, the stated confidence (a
dict of `Confidence`'s fields). Under BIEL's rules a recommended id outside the choice
set counts as a question: the loop adds the rules' note to the episode's dialogue and
asks the policy again; under taurec's rules it is refused, and the loop adds the refusal
to the dialogue and asks again (after three refusals it recommends the set's first
item). An interim pick outside the set is refused under either rules, likewise.
"""

from __future__ import annotations

from typing import Any, Final, Literal, Protocol

from taurec.clients.agents.base import Episode
from taurec.tasks.stream.protocol import StreamProtocol
from taurec.tasks.stream.session import StreamSession
from taurec.tasks.stream.task import StreamTask

#: What a policy does next: ("ask", question), ("recommend", item id[, confidence]) or
#: ("interim", item id[, confidence]).
Action = (
    tuple[Literal["ask", "recommend", "interim"], str]
    | tuple[Literal["recommend", "interim"], str, dict[str, float] | None]
)
#: Interim picks one episode may make without asking or recommending in between.
MAX_INTERIMS_IN_A_ROW: Final = 3
#: Under taurec's rules, ids outside the set refused in one episode before the loop
#: recommends the set's first item instead.
MAX_REFUSED: Final = 3
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
    async def recommend(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]: ...
    async def interim(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]: ...
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

    async def recommend(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]:
        extra = {} if confidence is None else {"confidence": confidence}
        return await self._call("recommend_item", item_id=item_id, **extra)

    async def interim(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]:
        extra = {} if confidence is None else {"confidence": confidence}
        return await self._call("interim_recommendation", item_id=item_id, **extra)

    async def next_episode(self) -> dict[str, Any]:
        return await self._call("next_episode")


async def play_stream(port: StreamPort, view: dict[str, Any], policy: StreamPolicy) -> int:
    """Play from `view` (the current episode) to the end of the stream; returns how many
    episodes were played. A question past the budget is not sent: the first item is
    recommended instead (as BIEL does when a forced recommendation fails)."""
    played = 0
    while True:
        result = await _play_episode(port, view, policy)
        policy.observe(view, str(result["item_id"]), result.get("feedback"))
        played += 1
        if result.get("stream_complete"):
            return played
        view = await port.next_episode()


async def _play_episode(
    port: StreamPort, view: dict[str, Any], policy: StreamPolicy
) -> dict[str, Any]:
    """Ask and pick until a recommendation is taken; returns its result. Every pick goes
    to the server, which applies the rules: under BIEL's an id outside the set is a
    question (or, with none left, the set's first item); under taurec's it is refused."""
    dialogue: Dialogue = []
    left = int(view.get("questions_left", 0))
    interims = refused = 0
    while True:
        action = await policy.act({**view, "questions_left": left}, dialogue)
        kind, value = action[0], action[1]
        confidence = action[2] if len(action) > 2 else None
        if kind == "ask":
            interims = 0
            if left <= 0:
                return await port.recommend(str(view["items"][0]["id"]))
            answer = await port.ask(value)
            dialogue.append((value, str(answer.get("answer", ""))))
            left = int(answer.get("questions_left", left - 1))
            continue
        if kind == "interim":
            interims += 1
            if interims > MAX_INTERIMS_IN_A_ROW:
                raise StreamCallError(
                    f"{policy.label}: {interims} interim picks in a row; expected a question "
                    "or a recommendation between them"
                )
        try:
            if kind == "interim":
                await port.interim(value, confidence)
                continue
            result = await port.recommend(value, confidence)
        except (StreamCallError, ValueError) as exc:  # refused: an id outside the set
            refused += 1
            if refused > MAX_REFUSED:
                return await port.recommend(str(view["items"][0]["id"]))
            dialogue.append((f"{kind.upper()}: {value}", f"refused: {exc}"))
            continue
        if not result.get("counted_as_question"):
            return result
        interims = 0  # BIEL's rules: it counted as a question
        dialogue.append((f"RECOMMEND: {value}", str(result.get("note", ""))))
        left = int(result.get("questions_left", left - 1))


class LocalStreamPort:
    """A stream session in process (tests, benches): the same results as the tools."""

    def __init__(self, session: StreamSession) -> None:
        self.session = session

    async def ask(self, question: str) -> dict[str, Any]:
        return dict(self.session.ask(question).model_dump(mode="json"))

    async def recommend(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]:
        return dict(self.session.recommend(item_id, confidence).model_dump(mode="json"))

    async def interim(
        self, item_id: str, confidence: dict[str, float] | None = None
    ) -> dict[str, Any]:
        return dict(self.session.interim(item_id, confidence).model_dump(mode="json"))

    async def next_episode(self) -> dict[str, Any]:
        return dict(self.session.next_episode().model_dump(mode="json"))


async def play_local(
    task: StreamTask,
    policy: StreamPolicy,
    *,
    seed: int = 0,
    protocol: StreamProtocol | None = None,
) -> StreamSession:
    """Play a whole stream in process with the rule-based customer; the session then
    holds what was picked (`chosen`, `picks`) and asked (`asked`) in each episode."""
    session = StreamSession(task, seed, protocol=protocol or StreamProtocol())
    await play_stream(LocalStreamPort(session), session.view().model_dump(mode="json"), policy)
    return session
