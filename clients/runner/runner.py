"""Running an agent over episodes through the MCP server, N at a time, never two trials
of one task at once (trial_queue.py: a sealed server refuses that).

Each episode: `start_episode` (with the agent's label), the agent plays it through an
`Episode`, and the runner makes sure it ends. An agent that raises AgentInfraError (its
LLM provider failed after retries) has its episode ended as `infra_error`; one that
crashes, times out or returns without committing, as `agent_error` (both through the
server's `abort_episode`, so the log says so; a crash's traceback goes with it, request
`_meta` "taurec/traceback", into the end record). Each finished episode's log is scored as
it completes (for the live pass count). Cancelling the run (SIGINT), or the first agent
error under `fail_fast`, cancels in-flight episodes, whose logs stay without an end record
for `--resume` to replay; every finished episode is already on disk. Losing the server
mid-run (a crash, `kill -9`, a graceful stop) stops the run with a failure that says how
to finish it: the server's in-flight logs are left without an end record, or ended
"server shut down", and resume replays both.

Over HTTP the server writes each log where its own `--log-dir` says; the runner reads,
scores and resumes from `out`, so the two must be one folder. The first episode checks
that: when its log is not under `out`, the run stops before the agent plays (LogsElsewhere)
instead of playing blind (no scores, and a resume that replays, and so double-counts, every
finished episode).
"""

from __future__ import annotations

import logging
import math
import signal
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from taurec.clients.agents.base import (
    AGENT_META_KEY,
    TRACEBACK_META_KEY,
    Agent,
    AgentInfraError,
    Episode,
    ProviderRefused,
    ToolOutcome,
    outcome_of,
)
from taurec.clients.runner.connection import Connection, open_client
from taurec.clients.runner.plan import INCOMPLETE_DIR, EpisodeSpec
from taurec.clients.runner.trial_queue import TrialQueue
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver, score_file
from taurec.server.run_facts import derive_seed
from taurec.server.trajectory_writer import log_path
from taurec.tasks.suite import portable_suite_spec
from taurec.tasks.trajectory.format import EndReason, traceback_tail
from taurec.tasks.trajectory.secrets import scrub, scrub_optional

log = logging.getLogger(__name__)


class LogsElsewhere(RuntimeError):
    """An HTTP server's episode logs are not under the runner's `out`."""


class RunStopped(RuntimeError):
    """An episode met an error every other episode would meet too (ProviderRefused)."""


def _first_leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _traceback_of(exc: BaseException) -> str:
    """The traceback of an agent's exception from its own frames on (not the runner's),
    cut to what an end record keeps."""
    frames = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    text = "".join(traceback.format_exception(type(exc), exc, frames))
    return traceback_tail(scrub(text))  # never a key, though the agent's text held one


@dataclass(frozen=True)
class EpisodeResult:
    """One finished episode as the runner saw it; `score` when its log could be read."""

    spec: EpisodeSpec
    episode_id: str | None
    end_reason: str | None
    log: Path | None = None
    score: EpisodeScore | None = None
    error: str | None = None  # why the runner ended it, or why it could not start
    stops_run: bool = False  # the provider refused the agent's key or model

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score.passed

    @property
    def infra_error(self) -> bool:
        if self.score is not None:
            return self.score.infra_error
        return self.end_reason == "infra_error" or self.episode_id is None


@dataclass
class RunReport:
    results: list[EpisodeResult] = field(default_factory=list)
    interrupted: bool = False
    failure: str | None = None  # the run itself failed (e.g. the server could not be reached)
    failed_fast: bool = False  # stopped at the first agent error (Runner.fail_fast)


@dataclass
class Runner:
    """Plays `agent` on episodes over `connection`; logs go to `out` (the server's log dir)."""

    agent: Agent
    connection: Connection
    out: Path
    run_label: str
    concurrency: int = 4
    seed: int | None = None  # None: the server derives each episode's seed
    episode_timeout: float | None = 900.0
    on_result: Callable[[EpisodeResult], None] | None = None
    resolver: Resolver = field(default_factory=Resolver)
    handle_signals: bool = True
    fail_fast: bool = False  # the first agent error stops the run (in-flight episodes cancelled)
    # http: the server's run folder (<its log dir>/<its run label>), once the first log is found
    _server_run_dir: Path | None = field(default=None, init=False, repr=False)
    _locating: anyio.Lock | None = field(default=None, init=False, repr=False)
    _sealed_label: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.connection.writes_logs_to_out:  # the suite this run's own server serves
            served = portable_suite_spec(self.connection.settings.suite)
            self.resolver = replace(
                self.resolver, allowed_specs=self.resolver.allowed_specs | {served}
            )

    async def run(self, specs: Sequence[EpisodeSpec]) -> RunReport:
        report = RunReport()
        todo = TrialQueue(specs)  # one trial of a task at a time (see trial_queue.py)
        self._locating = anyio.Lock()
        try:
            async with open_client(self.connection) as client:
                tools = (await client.list_tools()).tools
                info = outcome_of(await client.call_tool("server_info", {}))
                if not info.is_error and isinstance(info.data, dict):
                    self._sealed_label = info.data.get("sealed_label")
                async with anyio.create_task_group() as tg:
                    if self.handle_signals:
                        tg.start_soon(self._watch_signals, tg.cancel_scope, report)

                    async def worker() -> None:
                        while (spec := await todo.next()) is not None:
                            try:
                                result = await self._play(client, tools, spec)
                            finally:
                                todo.done(spec)
                            report.results.append(result)
                            if self.on_result is not None:
                                self.on_result(result)
                            if result.stops_run:
                                raise RunStopped(result.error)
                            if self.fail_fast and result.end_reason == EndReason.AGENT_ERROR:
                                report.failed_fast = True
                                tg.cancel_scope.cancel()
                                return

                    async with anyio.create_task_group() as workers:
                        for _ in range(max(1, min(self.concurrency, todo.tasks))):
                            workers.start_soon(worker)
                    tg.cancel_scope.cancel()  # done: stop watching signals
        except Exception as exc:  # the server could not be started or reached, or was lost
            if not report.interrupted:
                report.failure = self._failure(_first_leaf(exc), report)
                log.debug("run failed", exc_info=exc)
        return report

    def _failure(self, first: BaseException, report: RunReport) -> str:
        if isinstance(first, LogsElsewhere):
            return str(first)
        if isinstance(first, RunStopped):
            return (
                f"{first} (not retried; the other episodes would fail alike, so the run "
                "stopped: check the key and the model name)"
            )
        text = f"{type(first).__name__}: {first}" if str(first) else type(first).__name__
        if not report.results:
            return text
        return (
            f"{text} (after {len(report.results)} finished episodes, which are saved in "
            f"{self.out}: once the server is back, run again with --resume to play the rest)"
        )

    async def _watch_signals(self, scope: anyio.CancelScope, report: RunReport) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                report.interrupted = True
                scope.cancel()
                return

    # --- one episode --------------------------------------------------------------------

    def _seed(self, spec: EpisodeSpec) -> int | None:
        if self.seed is None:
            return None
        return derive_seed(f"{spec.task_id}#seed{self.seed}", spec.trial)

    async def _play(self, client: Client, tools: list[Any], spec: EpisodeSpec) -> EpisodeResult:
        arguments: dict[str, Any] = {"task_id": spec.task_id, "trial": spec.trial}
        if self._sealed_label is None:  # a sealed server takes the label from the token
            arguments["agent_label"] = self.agent.label
        seed = self._seed(spec)
        if seed is not None:
            arguments["seed"] = seed
        started = await self._start(client, spec, arguments)
        if started.is_error:
            return self._finish(spec, None, "infra_error", f"start_episode failed: {started.text}")
        data = started.data
        episode = Episode(
            client=client,
            episode_id=str(data["episode_id"]),
            task_id=spec.task_id,
            opening=str(data.get("opening", "")),
            trial=spec.trial,
            max_turns=int(data.get("max_turns", 0)),
            tools=tools,
        )
        error: str | None = None
        reason: str | None = None
        trace: str | None = None
        refused = False
        timeout = self.episode_timeout if self.episode_timeout else math.inf
        try:
            with anyio.fail_after(timeout):
                await self.agent.run(episode)
        except AgentInfraError as exc:
            reason, error = "infra_error", scrub(f"{type(exc).__name__}: {exc}")
            refused = isinstance(exc, ProviderRefused)
        except TimeoutError:
            reason, error = "agent_error", f"the agent took longer than {timeout:g} s"
        except Exception as exc:
            log.debug("agent failed on %s", spec, exc_info=exc)
            reason, error = "agent_error", scrub(f"the agent raised {type(exc).__name__}: {exc}")
            trace = _traceback_of(exc)
        if not episode.ended:
            detail = error or "the agent returned without committing"
            aborted = await self._abort(episode, reason or "agent_error", detail, trace)
            # "has ended (...)": it had ended after all, by a commit whose answer is text
            # (a ranking's), so the end is the log's, not an agent error
            if not aborted.is_error or "has ended (" not in aborted.text:
                reason, error = reason or "agent_error", detail
                if aborted.is_error:
                    error = f"{error}; abort_episode failed: {aborted.text}"
        result = self._finish(spec, episode.episode_id, episode.end_reason or reason, error)
        return replace(result, stops_run=refused)

    async def _start(
        self, client: Client, spec: EpisodeSpec, arguments: dict[str, Any]
    ) -> ToolOutcome:
        """start_episode. Over HTTP, until one episode's log has been found under `out`,
        episodes start one at a time and each one's log is looked for: LogsElsewhere when
        it is not there (that episode stays unplayed, its log without an end record, so a
        resume into the right folder sets it aside and plays it)."""
        info = getattr(self.agent, "agent_info", None)  # kind, model, settings: the header's
        meta: Any = {AGENT_META_KEY: info} if isinstance(info, dict) else None
        if self.connection.writes_logs_to_out or self._server_run_dir is not None:
            return outcome_of(await client.call_tool("start_episode", arguments, meta=meta))
        assert self._locating is not None
        async with self._locating:
            started = outcome_of(await client.call_tool("start_episode", arguments, meta=meta))
            if self._server_run_dir is None and not started.is_error:
                episode_id = str(started.data.get("episode_id", ""))
                if self._log_of(spec, episode_id) is None:
                    raise LogsElsewhere(
                        f"the server at {self.connection.url} does not write its episode logs "
                        f"under --log-dir {self.out}: the log of episode {episode_id[:12]} "
                        f"({spec.task_id}, trial {spec.trial}) is not there. Give the "
                        "server's --log-dir (that folder as this machine sees it) as the run's --log-dir, "
                        "so that the run can score, resume and refuse to mix runs; the "
                        "episode was left unplayed, and --resume sets its log aside and "
                        "plays it again"
                    )
        return started

    async def _abort(
        self, episode: Episode, reason: str, detail: str, trace: str | None = None
    ) -> ToolOutcome:
        meta = {TRACEBACK_META_KEY: trace} if trace else None
        arguments = {"reason": reason, "detail": detail[:2000]}
        try:
            with anyio.CancelScope(shield=True), anyio.move_on_after(30):
                outcome = outcome_of(await episode.call_raw("abort_episode", arguments, meta))
                if not outcome.is_error:  # else call_raw took an earlier end from the error
                    episode.ended = True
                    episode.end_reason = reason
                return outcome
        except Exception as exc:  # the connection itself is gone
            return ToolOutcome(content=str(exc), is_error=True, text=str(exc))
        return ToolOutcome(content="timed out", is_error=True, text="abort_episode timed out")

    def _finish(
        self, spec: EpisodeSpec, episode_id: str | None, reason: str | None, error: str | None
    ) -> EpisodeResult:
        path = self._log_of(spec, episode_id) if episode_id else None
        score = None
        if path is not None:
            score = score_file(path, self.resolver)
        return EpisodeResult(spec, episode_id, reason, path, score, scrub_optional(error))

    def _log_of(self, spec: EpisodeSpec, episode_id: str) -> Path | None:
        if self.connection.writes_logs_to_out:
            path = log_path(self.out, self.run_label, spec.task_id, spec.trial, episode_id)
            return path if path.is_file() else None
        # an HTTP server writes to <its log dir>/<its run label>/<task>/<name>; found when
        # that is somewhere under `out`, then looked up directly in the same run folder
        name = f"trial{spec.trial}-{episode_id[:12]}.jsonl"
        if self._server_run_dir is not None:
            path = self._server_run_dir / spec.task_id / name
            if path.is_file():
                return path
        aside = self.out / INCOMPLETE_DIR
        for path in self.out.rglob(name) if self.out.is_dir() else ():
            if path.parent.name == spec.task_id and aside not in path.parents and path.is_file():
                self._server_run_dir = path.parents[1]
                return path
        return None
