"""Play one `Script` (taurec_scripts.py) twice: through τ-Rec v1.0's own `Orchestrator` and
`ToolKit` (a scripted `BaseAgent` and a scripted user), and through our server in memory
with our LLM contestant, whose model replies are the script's responses (τ-Rec's tool
names and shapes become ours: `get_metadata` is `get_item`, `get_user_history` takes no
user id; the committing text goes as an aside, or in recommend's `message`).

τ-Rec's classes are imported when first used: its source lies outside the project
(support/third_party.py finds it).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import anyio.to_thread
from mcp import Client

from support.taurec_scripts import Call, Script
from taurec.catalog.store import Catalog
from taurec.clients.agents.base import Episode, outcome_of
from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings
from taurec.server.recommendation.simulator import UserReply
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.reader import read_log

FALLBACK_REPLY = "Okay."


class ScriptedUser:
    """Our server's simulated user, saying the script's replies in turn (test only)."""

    kind = "scripted"

    def __init__(self, replies: tuple[str, ...], commit_gate: CommitGate | None = None) -> None:
        self._replies = list(replies)
        self._gate = commit_gate

    def _next(self) -> str:
        return self._replies.pop(0) if self._replies else FALLBACK_REPLY

    def opening(self) -> str:
        return self._next()

    def respond(self, agent_text: str) -> UserReply:
        return UserReply(self._next())

    def react_to_commit(self, item_id: str | None) -> UserReply:
        if self._gate is not None:  # runs in a worker thread: the commit waits here
            self._gate.committing.set()
            self._gate.release.wait(timeout=60)
        return UserReply("Thanks.", accepted=item_id)


class CommitGate:
    """Holds a commit on the server until the calls sent beside it have come."""

    def __init__(self) -> None:
        self.committing = threading.Event()
        self.release = threading.Event()


class UserScripts:
    """The factory our server makes users with: each new episode's user says the replies
    of the script set last (episodes are played one at a time); `gate`, when set, holds
    that user's commit (see CommitGate)."""

    def __init__(self) -> None:
        self.replies: tuple[str, ...] = ()
        self.gate: CommitGate | None = None

    def __call__(self, task: RecommendationTask, catalog: Catalog, seed: int) -> ScriptedUser:
        return ScriptedUser(self.replies, self.gate)


# --- τ-Rec's side ----------------------------------------------------------------------------


async def their_trace(script: Script, task: Any, toolkit: Any, trial: int) -> Any:
    """τ-Rec's own ConversationTrace of `script` on its `task`."""
    from tau_rec.agents.base import AgentResponse, BaseAgent
    from tau_rec.data_model.conversation import Message, Role
    from tau_rec.orchestrator.orchestrator import Orchestrator

    class Agent(BaseAgent):
        def __init__(self) -> None:
            self.steps = list(script.steps)

        async def respond(self, tool_results: list[dict] | None = None) -> AgentResponse:
            if not self.steps:
                return AgentResponse(None)
            step = self.steps.pop(0)
            calls = [
                {"id": f"c{i}", "name": name, "arguments": dict(args)}
                for i, (name, args) in enumerate(step.calls)
            ]
            return AgentResponse(step.message, calls)

        def reset(self) -> None:
            self.steps = list(script.steps)

    class User:
        def __init__(self) -> None:
            self.replies = list(script.replies)

        async def respond(self, conversation: list[Any]) -> Any:
            text = self.replies.pop(0) if self.replies else FALLBACK_REPLY
            return Message(role=Role.USER, content=text)

    return await Orchestrator(Agent(), User(), toolkit, max_turns=20).run(task.id, "s", trial)


# --- our side --------------------------------------------------------------------------------


def _ours(name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if name == "get_metadata":
        return "get_item", dict(args)
    if name == "get_user_history":
        return name, {k: v for k, v in args.items() if k != "user_id"}
    return name, dict(args)


def _with_text(step: Any, on_last: bool) -> tuple[list[Call], str | None]:
    """A response's calls in our terms, its text moved into the message of its first (or
    last) `recommend` call when it has one; the text left over."""
    calls: list[Call] = [_ours(n, a) for n, a in step.calls]
    at = [i for i, (n, _) in enumerate(calls) if n == "recommend"]
    if not step.message or not at:
        return calls, step.message
    k = at[-1] if on_last else at[0]
    calls[k] = ("recommend", {**calls[k][1], "message": step.message})
    return calls, None


def _reply(step: Any, text_as_argument: bool, on_last: bool = False) -> Any:
    """A litellm-shaped model reply for one scripted response."""
    calls: list[Call] = [_ours(n, a) for n, a in step.calls]
    text = step.message
    if text_as_argument:
        calls, text = _with_text(step, on_last)
    tool_calls = [
        SimpleNamespace(id=f"call_{i}", function=SimpleNamespace(name=n, arguments=json.dumps(a)))
        for i, (n, a) in enumerate(calls)
    ]
    message = SimpleNamespace(content=text, tool_calls=tool_calls or None)
    return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None)


class ScriptedModel:
    """A completion function answering with the script's responses, then with nothing."""

    def __init__(self, script: Script) -> None:
        self.steps = list(script.steps)
        self.text_as_argument = script.text_as_argument
        self.on_last = script.text_on_last

    async def __call__(self, **kwargs: Any) -> Any:
        if not self.steps:
            empty = SimpleNamespace(content=None, tool_calls=None)
            return SimpleNamespace(choices=[SimpleNamespace(message=empty)], usage=None)
        return _reply(self.steps.pop(0), self.text_as_argument, self.on_last)


async def _side_by_side(client: Client, episode_id: str, script: Any, gate: CommitGate) -> None:
    """Play `script` as a client that sends a response's calls concurrently, naming no
    batch: its first call a commit, held by `gate` until the others wait behind it."""
    (step,) = script.steps
    (first, *rest), _ = _with_text(step, script.text_on_last)
    assert first[0] == "recommend", "a side-by-side response starts with its commit"
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.call_tool, first[0], {"episode_id": episode_id, **first[1]})
        await anyio.to_thread.run_sync(gate.committing.wait, 60)
        for name, args in rest:
            tg.start_soon(client.call_tool, name, {"episode_id": episode_id, **args})
        await anyio.sleep(0.2)  # the others reach the episode and wait for it
        gate.release.set()


async def our_log(
    client: Client,
    tools: list[Any],
    users: UserScripts,
    log_dir: Path,
    script: Script,
    task_id: str,
    trial: int,
) -> Trajectory:
    """Play `script` on our server as our LLM contestant; the episode's log. An episode
    the agent leaves open is aborted as agent_error, as the runner does."""
    users.replies = script.replies
    users.gate = CommitGate() if script.side_by_side else None
    arguments = {"task_id": task_id, "trial": trial, "agent_label": "scripted"}
    started = outcome_of(await client.call_tool("start_episode", arguments))
    assert not started.is_error, started.text
    data = started.data
    episode = Episode(
        client=client,
        episode_id=str(data["episode_id"]),
        task_id=task_id,
        opening=str(data["opening"]),
        trial=trial,
        max_turns=int(data["max_turns"]),
        tools=tools,
    )
    if users.gate is not None:
        await _side_by_side(client, episode.episode_id, script, users.gate)
        users.gate = None
        return _read(log_dir, episode.episode_id)
    else:
        settings = LLMAgentSettings(model="scripted/model", completion=ScriptedModel(script))
        await LLMAgent(settings).run(episode)
    if not episode.ended:
        await episode.call("abort_episode", reason="agent_error", detail="the script ended")
    return _read(log_dir, episode.episode_id)


def _read(log_dir: Path, episode_id: str) -> Trajectory:
    (path,) = log_dir.rglob(f"*-{episode_id[:12]}.jsonl")
    log = read_log(path)
    assert log.ok and log.trajectory is not None, log.problems
    return log.trajectory
