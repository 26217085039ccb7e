"""What every episode call passes before its step runs, and what a refused one leaves.

In order: a commit held for the rest of its model response (batches.py) answers first:
a call of that response is logged as refused and the last one writes the end record;
any other call writes it at once and is told the episode has ended. Then the episode
must be open; the call enters its batch; past the tool-call limit it is refused and the
episode ends (agent_error); a malformed batch, an over-long text argument or aside is
refused (logged; nothing else changes); else its aside is logged and the step may run.
The caller holds the episode's lock.
"""

from __future__ import annotations

from typing import Any

import anyio

from taurec.server.episode_end import CALL_LIMIT, EpisodeEnd, ended_message
from taurec.server.raw_calls import request_aside, request_batch
from taurec.server.recommendation.batches import Batch, batch_of
from taurec.server.recommendation.episode import Episode
from taurec.server.recommendation.text_limits import Limits, overlong_aside, overlong_text
from taurec.server.settings import ServerSettings
from taurec.tasks.errors import ArgumentError, EpisodeError, agent_error_text
from taurec.tasks.trajectory.format import EndReason


def request_batch_of(episode: Episode) -> tuple[Batch | None, ArgumentError | None]:
    """The batch of the current request's call (None: it has none), or the problem with the
    one it names (batches.py)."""
    try:
        return episode.batches.of_call(batch_of(request_batch())), None
    except ArgumentError as exc:
        return None, exc


async def admit(
    episode: Episode,
    settings: ServerSettings,
    name: str,
    arguments: dict[str, Any],
    limits: Limits | None = None,
) -> None:
    """Let the call run, or raise what it is answered with (see the module docstring)."""
    batch, problem = request_batch_of(episode)
    limit = settings.max_tool_calls_per_episode
    if episode.batches.held is not None:  # past the limit, no more of its calls are logged
        raise await after_commit(episode, name, arguments, batch, limit=limit)
    episode.check_open()
    episode.batches.enter(batch)
    if episode.tool_calls >= limit:
        raise await end_at_call_limit(episode, name, arguments, limit)
    aside = request_aside()
    most = settings.max_message_chars
    problem = problem or overlong_text(arguments, most, limits) or overlong_aside(aside, most)
    if problem is not None:
        await episode.log_rejected(name, arguments, agent_error_text(name, str(problem)))
        raise problem
    await episode.note_aside(aside)


async def log_rejected(
    episode: Episode, name: str, arguments: dict[str, Any], error_text: str
) -> None:
    """Log a call the MCP layer rejected before the tool ran (its arguments did not match
    the tool's schema), in its batch; a call outside a held commit's batch ends the episode
    with that commit first (and is then not logged: the episode has ended)."""
    if episode.end is not None:
        return
    batch, _ = request_batch_of(episode)
    if episode.batches.held is not None:
        await after_commit(episode, name, arguments, batch, error_text)
        return
    episode.batches.enter(batch)
    await episode.log_rejected(name, arguments, error_text)


async def after_commit(
    episode: Episode,
    name: str,
    arguments: dict[str, Any],
    batch: Batch | None,
    error_text: str | None = None,
    *,
    limit: int | None = None,
) -> EpisodeError:
    """A call that came while a commit is held: logged as refused if it belongs to the
    commit's batch (with `error_text`, else the reason it was not run) and the episode has
    made fewer than `limit` tool calls; the end record written once the batch is complete,
    or at once otherwise. The error to raise."""
    held = episode.batches.held
    assert held is not None
    over = limit is not None and episode.tool_calls >= limit
    if over or not episode.batches.continues(batch):
        await episode.end_with(held)
        return EpisodeError(ended_message(episode.id, held))
    message = (
        f"{ended_message(episode.id, held)} This {name} call came after the commit in the "
        "same model response, so it was not run."
    )
    episode.batches.enter(batch)
    with anyio.CancelScope(shield=True):
        await episode.log_rejected(name, arguments, error_text or agent_error_text(name, message))
        if episode.batches.complete:
            await episode.end_with(held)
    return EpisodeError(message)


async def end_at_call_limit(
    episode: Episode, name: str, arguments: dict[str, Any], limit: int
) -> EpisodeError:
    """Refuse a call past `limit` tool calls: log it with its error, end the episode
    (agent_error), and return the error to raise."""
    message = (
        f"episode {episode.id[:8]}... has ended (agent_error): it reached this server's limit "
        f"of {limit} tool calls per episode (max_tool_calls_per_episode), so this "
        f"{name} call was not run. Call start_episode to begin a new episode."
    )
    with anyio.CancelScope(shield=True):
        await episode.log_rejected(name, arguments, agent_error_text(name, message))
        detail = f"{CALL_LIMIT}{limit} tool calls made; call {episode.tool_calls} ({name}) refused"
        await episode.end_with(EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))
    return EpisodeError(message)
