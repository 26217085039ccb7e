"""One episode: an agent, a simulated user, and the log of what passed between them.

Every step runs under the episode's `lock` (the caller takes it) and is shielded from
cancellation, so a client that disconnects mid-call never leaves a call without its
result in the log. Turn budget: the task's `protocol.max_turns` agent messages; the
message that uses the last one ends the episode (max_turns). Commits: the task's
`max_recommendations` committing `recommend` calls; the last one, an abstention, or a
user who accepts or leaves ends it (recommended / abstained); a commit made before the
last call of its model response holds its end until the rest of that response's calls
have come (see batches.py). Limits (text, tool calls, time), held commits: admission.py.

A log that cannot be written (a full disk) ends the episode as infra_error: the agent
gets a one-line error saying so (never the system's error text), and the log keeps only
whole lines (see trajectory_writer.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from pydantic import BaseModel

from taurec.catalog.store import Catalog
from taurec.server.episode_end import (
    ABORT_REASONS,
    ABORTED,
    LOG_FAILED,
    EpisodeEnd,
    commits_end,
    ended_message,
)
from taurec.server.model_call_log import capturing
from taurec.server.recommendation.agent_input import (
    committable,
    disclosed_message,
    recommend_arguments,
    reported_usage,
    text_problem,
)
from taurec.server.recommendation.batches import BatchState
from taurec.server.recommendation.dialogue_log import DialogueLog
from taurec.server.recommendation.results import RecommendResult, UserReplyResult
from taurec.server.recommendation.simulator import UserReply, UserSimulator
from taurec.server.recommendation.simulator.agent_nlu import AgentActReader
from taurec.server.recommendation.simulator.base import opening_acts_of
from taurec.server.trajectory_writer import LogWriteError, TrajectoryWriter
from taurec.tasks.errors import (
    AgentFacingError,
    ArgumentError,
    EpisodeError,
    agent_error_text,
    short_repr,
)
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import EndReason, Usage

log = logging.getLogger(__name__)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


class Episode:
    """One conversation. Callers hold `lock` around every method that logs."""

    def __init__(
        self,
        *,
        episode_id: str,
        task: RecommendationTask,
        trial: int,
        seed: int,
        user: UserSimulator,
        writer: TrajectoryWriter,
        max_turns: int,
        on_end: Callable[[Episode], None],
        owner: str = "open",
        nlu: AgentActReader | None = None,
    ) -> None:
        """`nlu` reads the acts of the agent's messages into the log (None: not logged)."""
        self.id = episode_id
        self.owner = owner  # the client that started it (see EpisodeStore)
        self.task = task
        self.trial = trial
        self.seed = seed
        self.max_turns = max_turns
        self.lock = anyio.Lock()
        self.turns = 0
        self.commits: list[str | None] = []
        self.end: EpisodeEnd | None = None
        self.opening = ""
        self.opening_delivered = False
        self._user: UserSimulator | None = user
        self._log = writer
        self._on_end = on_end
        self._calls = 0
        self._pending_end: EpisodeEnd | None = None
        self.usage: Usage | None = None  # the agent's last reported LLM usage
        self._dialogue = DialogueLog(writer, nlu)
        self.batches = BatchState(self.lock)  # the model responses its calls come in

    @property
    def log_chain(self) -> str:
        """The chain hash of the log's last line on disk (see taurec.tasks.trajectory.signing)."""
        return self._log.chain

    def note_usage(self, reported: Any) -> None:
        """Keep the agent's cumulative usage report (a request's `_meta`); the end record
        carries the last one. A malformed report is ignored (and logged on stderr)."""
        if reported is not None and self.end is None:
            self.usage = reported_usage(reported, self.id) or self.usage

    async def note_aside(self, text: Any) -> None:
        """Log text the agent produced alongside this call without sending it to the user
        (a request's `_meta`), as an undelivered agent message. The user never sees it, so
        the policy checks do not count it (it discloses nothing and pitches nothing). The
        service refuses a call whose aside is over its length limit before this."""
        if not isinstance(text, str) or not text.strip() or self.end is not None:
            return
        async with self._writing():
            self._log.agent_message(text, delivered=False)

    @property
    def log_path(self) -> Path:
        return self._log.path

    @property
    def tool_calls(self) -> int:
        """Tool calls made on this episode so far, rejected ones included: the logged
        tool calls plus the delivered messages (send_message)."""
        return self._calls + self.turns

    @property
    def max_recommendations(self) -> int:
        return self.task.protocol.max_recommendations

    def check_open(self) -> None:
        end = self.end or self.batches.held
        if end is not None:
            raise EpisodeError(ended_message(self.id, end))

    # --- steps -----------------------------------------------------------------------

    async def greet(self) -> str:
        """Ask the user for their opening message and log it (the episode's first event)."""
        with anyio.CancelScope(shield=True):
            async with self._writing():
                t0 = time.perf_counter()
                try:
                    self.opening = await anyio.to_thread.run_sync(self._simulator().opening)
                except Exception as exc:
                    raise await self._infra_failure("start_episode", exc) from exc
                acts, acts_by = opening_acts_of(self._simulator())
                self._log.user_message(self.opening, latency_ms=_ms(t0), acts=acts, acts_by=acts_by)
        return self.opening

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        compute: Callable[[], Awaitable[BaseModel]],
    ) -> BaseModel:
        """One tool call: logged as tool_call, then tool_result with exactly the payload the
        agent receives (the result's JSON form, or the error text; `refused` when the error
        says the result was dropped), then the end record if the call ended the episode."""
        self.check_open()
        with anyio.CancelScope(shield=True):
            async with self._writing():
                self._calls += 1
                call_id = f"call_{self._calls}"
                self._log.tool_call(call_id, name, arguments, self.batches.id)
                t0 = time.perf_counter()
                try:
                    result = await compute()
                except LogWriteError:
                    raise
                except AgentFacingError as exc:
                    text, dropped = agent_error_text(name, str(exc)), getattr(exc, "refused", 0)
                    self._log.tool_result(
                        call_id, text, is_error=True, latency_ms=_ms(t0), refused=bool(dropped)
                    )
                    raise
                except Exception as exc:
                    raise await self._infra_failure(name, exc, call_id=call_id, t0=t0) from exc
                content = result.model_dump(mode="json")
                self._log.tool_result(call_id, content, is_error=False, latency_ms=_ms(t0))
                if self._pending_end is not None and not self.batches.hold(
                    self._pending_end, call_id
                ):
                    await self.close(self._pending_end)
        return result

    async def log_rejected(self, name: str, arguments: dict[str, Any], error_text: str) -> None:
        """A call refused before the tool ran (its arguments did not match the tool's
        schema, or broke a server limit): logged, marked `refused`, so the log shows every
        call the agent made and replay knows the tool never ran."""
        if self.end is not None:
            return
        async with self._writing():
            self._calls += 1
            call_id = f"call_{self._calls}"
            self._log.tool_call(call_id, name, arguments, self.batches.id)
            self._log.tool_result(call_id, error_text, is_error=True, latency_ms=0.0, refused=True)

    async def end_with(self, end: EpisodeEnd) -> None:
        """`close`, a log that cannot be written ending the episode as infra_error (the
        EpisodeError raised says so). Shielded from cancellation."""
        with anyio.CancelScope(shield=True):
            async with self._writing():
                await self.close(end)

    async def send_message(self, text: str) -> UserReplyResult:
        """The agent says `text`; the user answers. Uses one turn of the budget."""
        self.check_open()
        problem = text_problem(text, "text")
        if problem is not None:
            await self.log_rejected(
                "send_message",
                {"episode_id": self.id, "text": text},
                agent_error_text("send_message", str(problem)),
            )
            raise problem
        with anyio.CancelScope(shield=True):
            async with self._writing():
                self._dialogue.agent_message(text)
                self.turns += 1
                t0 = time.perf_counter()
                try:
                    respond = self._simulator().respond
                    reply: UserReply = await anyio.to_thread.run_sync(respond, text)
                except Exception as exc:
                    raise await self._infra_failure("send_message", exc) from exc
                self._dialogue.user_reply(reply, _ms(t0))
                if reply.left:
                    await self.close(EpisodeEnd(EndReason.USER_LEFT))
                elif self.turns >= self.max_turns:
                    detail = f"the agent sent {self.turns} messages, the budget"
                    await self.close(EpisodeEnd(EndReason.MAX_TURNS, detail=detail))
        opening = None if self.opening_delivered else self.opening
        self.opening_delivered = True
        return UserReplyResult(
            reply=reply.text,
            user_left=reply.left,
            turns_used=self.turns,
            turns_left=max(self.max_turns - self.turns, 0),
            episode_ended=self.end is not None,
            end_reason=self.end.reason if self.end else None,
            opening=opening,
            accepted=reply.accepted,  # the service keeps it only for harnesses
        )

    async def recommend(
        self,
        item_id: str | None,
        message: str | None,
        catalog: Catalog,
        disclose: Sequence[str] | None = None,
    ) -> RecommendResult:
        """A committing call: `item_id` a catalog id, or None to abstain; `disclose` what the
        user is told about it first (policies/sponsorship.py)."""

        async def commit() -> RecommendResult:
            title = committable(item_id, catalog)
            shown = disclosed_message(item_id, title, message, disclose, catalog)
            self.commits.append(item_id)
            t0 = time.perf_counter()
            reaction: UserReply = await anyio.to_thread.run_sync(
                self._simulator().react_to_commit, item_id
            )
            self._dialogue.user_reply(reaction, _ms(t0))
            left = self.max_recommendations - len(self.commits)
            accepted = item_id is not None and reaction.accepted == item_id
            if item_id is None or left <= 0 or reaction.left or accepted:
                self._pending_end = commits_end(self.commits)
            end = self._pending_end
            return RecommendResult(
                committed=item_id,
                abstained=item_id is None,
                title=title,
                message_shown=shown,
                user_reaction=reaction.text,
                episode_ended=end is not None,
                end_reason=end.reason if end else None,
                recommendations_left=0 if end else left,
            )

        arguments = recommend_arguments(self.id, item_id, message, disclose)
        result = await self.call("recommend", arguments, commit)
        assert isinstance(result, RecommendResult)
        return result

    async def abort(self, reason: EndReason, detail: str | None) -> None:
        """End the episode without a commit, as the harness reports: `agent_error` (the
        agent crashed or stopped) or `infra_error` (e.g. its LLM provider failed). Logged
        as a tool call with its result, then the end record."""
        self.check_open()
        if reason not in ABORT_REASONS:
            raise ArgumentError(
                "reason", f"expected agent_error or infra_error, got {short_repr(reason)}"
            )
        with anyio.CancelScope(shield=True):
            async with self._writing():
                self._calls += 1
                call_id = f"call_{self._calls}"
                arguments = {"episode_id": self.id, "reason": reason.value, "detail": detail}
                self._log.tool_call(call_id, "abort_episode", arguments, self.batches.id)
                self._log.tool_result(
                    call_id,
                    {"ended": True, "end_reason": reason.value},
                    is_error=False,
                    latency_ms=0.0,
                )
                ended = EpisodeEnd(reason, detail=ABORTED + (detail or "no detail given"))
                await self.close(ended)

    async def close(self, end: EpisodeEnd) -> None:
        """Write the end record; from now on every tool of this episode answers with an error.
        A held commit (batches.py) is the end, unless the log could not be written.
        LogWriteError when the record cannot be written: the episode has ended all the same
        (as infra_error), its log without an end record."""
        if self.end is not None:
            return
        held = self.batches.release()
        if held is not None and not (end.detail or "").startswith(LOG_FAILED):
            end = held
        self.end = end
        self._pending_end = None
        stats = getattr(self._user, "stats", None)  # an LLM user counts calls, cost, leaks
        simulator = stats() if callable(stats) else None
        self._user = None  # the simulator's state is no longer needed
        try:
            await self._log.end(
                end.reason,
                item_id=end.item_id,
                detail=end.detail,
                usage=self.usage,
                simulator=simulator,
            )
        except LogWriteError as exc:
            self.end = EpisodeEnd(EndReason.INFRA_ERROR, detail=f"{LOG_FAILED}{exc.cause}")
            raise
        finally:
            self._on_end(self)

    # --- internals ---------------------------------------------------------------------

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """Around steps that write the log: a write that fails ends the episode as
        infra_error and raises EpisodeError telling the agent so in one line."""
        try:
            with capturing(self._log):  # the LLM user's and NLU's model calls go to this log
                yield
        except LogWriteError as exc:
            raise await self._log_failure(exc) from None

    async def _log_failure(self, exc: LogWriteError) -> EpisodeError:
        log.error("episode %s: %s", self.id[:8], exc)
        if self.end is None:
            ended = EpisodeEnd(EndReason.INFRA_ERROR, detail=f"{LOG_FAILED}{exc.cause}")
            with suppress(LogWriteError):  # the end record could not be written either
                await self.close(ended)
        return EpisodeError(
            f"episode {self.id[:8]}... has ended (infra_error): {exc.agent_text} (an "
            "infrastructure failure, not yours); tell whoever runs the server."
        )

    def _simulator(self) -> UserSimulator:
        if self._user is None:  # pragma: no cover - check_open runs first
            raise EpisodeError("the episode has ended")
        return self._user

    async def _infra_failure(
        self, name: str, exc: Exception, *, call_id: str | None = None, t0: float = 0.0
    ) -> EpisodeError:
        """A bug or a failing dependency: end the episode as infra_error, tell the agent."""
        log.error("episode %s: %s failed", self.id[:8], name, exc_info=exc)
        failure = EpisodeError(
            f"internal server error in {name}; the episode has ended (infra_error) and is "
            "reported as an infrastructure failure, not yours. Call start_episode to begin again."
        )
        end = EpisodeEnd(EndReason.INFRA_ERROR, detail=f"{name}: {type(exc).__name__}: {exc}")
        try:
            if call_id is not None:  # `refused`: no result came, so replay has none to compare
                text, gone = agent_error_text(name, str(failure)), bool(getattr(exc, "refused", 0))
                self._log.tool_result(
                    call_id, text, is_error=True, latency_ms=_ms(t0), refused=gone
                )
            await self.close(end)
        except Exception:  # the log itself failed; the evaluator will see it incomplete
            log.exception("episode %s: could not log the failure", self.id[:8])
        return failure
