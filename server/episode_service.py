"""What the MCP services of the tool-only kinds (ranking, ppr) share: finding a task,
admitting a sealed run's planned episode, opening its signed log, finding an open
episode (only its plan may act on it when sealed), aborts, retiring an ended episode and
ending every open one at shutdown. A kind's service adds its episode and its tools.

Limits (open_limits.py): the server's cap on open episodes and each client's, shared fairly
once reached (a start calls `make_room` first); an episode
no call addressed for `idle_timeout_seconds` is ended by the sweep (agent_error, "idle
timeout"), a failure. At shutdown an open episode is ended as infra_error
(episode_end.shutdown_end): in a sealed run, one whose contestant has seen tool outputs
(`revealed`) is a played failure, so parking it and waiting for a restart buys nothing;
any other may be played again. A sealed run's plan holds at most one open trial of a
task (open_limits.py): two side by side would pool their tool budgets.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError

from taurec.server.episode_end import ABORTED, EpisodeEnd, shutdown_end
from taurec.server.http_fairness import locked
from taurec.server.model_call_log import PromptStores, attach
from taurec.server.open_limits import (
    PLAN_OWNER,
    OpenLimits,
    expire_idle,
    make_room,
    sweep_forever,
)
from taurec.server.raw_calls import request_owner
from taurec.server.request_meta import reported_agent
from taurec.server.run_facts import default_run_label, derive_seed, server_version
from taurec.server.seal import Admission, Seals, load_seals
from taurec.server.settings import ServerSettings
from taurec.server.trajectory_writer import TrajectoryWriter, log_path, now_utc
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.suite import Suite, portable_suite_spec
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory.signing import load_log_key

E = TypeVar("E")  # the kind's episode (a state machine without I/O)
R = TypeVar("R")


@contextmanager
def agent_errors() -> Iterator[None]:
    """An error the agent can act on, as the tool error MCP returns."""
    try:
        yield
    except AgentFacingError as exc:
        raise ToolError(str(exc)) from None


@dataclass
class OpenEpisode(Generic[E]):
    episode: E
    writer: TrajectoryWriter
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    admission: Admission | None = None  # sealed mode: the planned episode it plays


@dataclass(frozen=True)
class Admitted:
    """A started episode's identity: what its log header and log path are made of."""

    task: Any
    trial: int
    seed: int | None
    agent_label: str | None
    admission: Admission | None
    owner: str  # the client it counts against: its plan, its token, or "open"

    @property
    def one_trial_of(self) -> str | None:
        """The task whose trials its owner may play only one at a time (sealed runs)."""
        return None if self.admission is None else self.task.id


class EpisodeService(Generic[E]):
    kind: str

    def __init__(self, settings: ServerSettings, suite: Suite) -> None:
        self.settings = settings
        self.suite = suite
        self.version = server_version()
        self.run_id = settings.run_label or default_run_label()
        self.suite_ref = SuiteRef(id=suite.id, spec=portable_suite_spec(suite.spec))
        self.catalog_sha256 = suite.catalog.sha256()
        self.key = load_log_key(create=True)
        self.prompts = PromptStores(settings.max_model_call_bytes_per_episode)
        self._open: dict[str, OpenEpisode[E]] = {}
        self._ended: dict[str, str] = {}
        self.limits = OpenLimits(settings.max_open_episodes, settings.max_open_per_client)
        self.seals: Seals | None = None
        if settings.plans:
            self.seals = load_seals(
                settings.plans,
                suite,
                suite.catalog,
                settings.log_dir,
                self.key,
                server_version=self.version,
            )

    @property
    def plan_tokens(self) -> list[str]:
        return [] if self.seals is None else self.seals.tokens

    def admit(
        self,
        task_id: str,
        trial: int,
        seed: int | None,
        agent_label: str | None,
        start: Callable[[Admitted], R],
    ) -> R:
        """`start` the episode of (task, trial): when sealed, only as its plan admits it
        (and the admission is given back when starting fails)."""
        task = self.suite.get(task_id)
        if task is None:
            raise ToolError(
                f"unknown task_id {task_id!r}; expected a task of suite {self.suite.id!r}"
            )
        admission = None
        if self.seals is not None:
            with agent_errors():
                admission = self.seals.admit(task.id, trial, seed, agent_label)
            agent_label, seed = admission.label, admission.seed
        try:
            owner = request_owner() if admission is None else f"{PLAN_OWNER}{admission.plan_id}"
            admitted = Admitted(task, trial, seed, agent_label, admission, owner)
            with agent_errors():
                self.limits.check(owner, admitted.one_trial_of)
            return start(admitted)
        except BaseException:
            if admission is not None and self.seals is not None:
                self.seals.cancel(admission)
            raise

    async def make_room(self) -> None:
        """Before a start: on a full open server, end the longest idle episode of the client
        holding the most, if this one holds at least two fewer (open_limits.make_room)."""
        if self.seals is None:
            await make_room(self.limits, request_owner(), self._expirable)

    def open_log(
        self,
        admitted: Admitted,
        episode: E,
        opening: str,
        settings: dict[str, Any] | None = None,
        **extra: Any,
    ) -> str:
        """Open `episode`: a new episode id, its signed log with the header and the
        opening (the user turn the agent is shown)."""
        a = admitted
        episode_id = secrets.token_hex(16)
        run_id = self.run_id if a.admission is None else a.admission.run_id
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            kind=self.kind,
            mode="open" if a.admission is None else "sealed",
            plan_id=None if a.admission is None else a.admission.plan_id,
            agent=AgentInfo(label=a.agent_label or self.settings.agent_label, **reported_agent()),
            task_id=a.task.id,
            task_sha256=a.task.sha256(),
            suite=self.suite_ref,
            catalog_sha256=self.catalog_sha256,
            trial=a.trial,
            seed=derive_seed(a.task.id, a.trial) if a.seed is None else a.seed,
            simulator=SimulatorInfo(kind="none", settings=settings or {}),
            server_version=self.version,
            started_at=now_utc(),
            **extra,  # extra header fields: headers allow them
        )
        path = log_path(self.settings.log_dir, run_id, a.task.id, a.trial, episode_id)
        writer = TrajectoryWriter(path, header, self.key)
        attach(writer, self.prompts)
        writer.user_message(opening)
        self._open[episode_id] = OpenEpisode(episode, writer, admission=a.admission)
        self.limits.opened(episode_id, a.owner, a.one_trial_of, a.trial)
        if a.admission is not None and self.seals is not None:
            self.seals.started(a.admission, episode_id, path)
        return episode_id

    def get(self, episode_id: str) -> OpenEpisode[E]:
        if self.seals is not None:  # in sealed mode only the plan that started it may act
            with agent_errors():
                self.seals.check_owner(episode_id)
        hit = self._open.get(episode_id)
        if hit is None:
            ended = self._ended.get(episode_id)
            if ended is not None:
                raise ToolError(f"episode {episode_id[:12]} has ended ({ended})")
            raise ToolError(
                f"unknown episode_id {episode_id[:40]!r}; expected the id start_episode returned"
            )
        self.limits.touched(episode_id)
        return hit

    async def end(self, episode_id: str, op: OpenEpisode[E], end: EpisodeEnd) -> None:
        """Write the end record and retire the episode (the caller holds its lock)."""
        await op.writer.end(end.reason, detail=end.detail)
        self._open.pop(episode_id, None)
        self.limits.closed(episode_id)
        self._ended[episode_id] = end.reason.value
        if op.admission is not None and self.seals is not None:
            self.seals.ended(op.admission, episode_id, end, op.writer.chain)

    async def abort(self, episode_id: str, reason: EndReason, detail: str | None) -> None:
        """An agent's (or harness's) abort: its detail is marked as such."""
        op = self.get(episode_id)
        await self._abort(episode_id, op, EpisodeEnd(reason, detail=ABORTED + (detail or "")))

    async def _abort(self, episode_id: str, op: OpenEpisode[E], end: EpisodeEnd) -> None:
        async with locked(op.lock):
            if not op.writer.ended:
                await self.end(episode_id, op, end)

    def revealed(self, episode: E) -> bool:
        """Whether the contestant has seen more of the episode than its opening (a kind
        with tools or feedback says so)."""
        return False

    async def close_all(self) -> int:
        n = 0
        for episode_id in list(self._open):
            op = self._open.get(episode_id)
            if op is not None and not op.writer.ended:
                # the server ends it: no caller's ownership to check
                seen = "tool outputs" if self.revealed(op.episode) else None
                cut = shutdown_end(sealed=op.admission is not None, seen=seen)
                await self._abort(episode_id, op, cut)
                n += 1
        return n

    async def expire_idle(self, timeout: float) -> int:
        """End every open episode no call addressed for `timeout` seconds (agent_error,
        "idle timeout: ..."), skipping any with a call in flight; how many were ended."""
        return await expire_idle(self.limits, timeout, self._expirable)

    def _expirable(self, episode_id: str) -> _Expiring | None:
        op = self._open.get(episode_id)
        return None if op is None else _Expiring(self, episode_id, op)

    async def sweep_idle(self) -> None:
        """Forever, end episodes idle for the settings' `idle_timeout_seconds`."""
        await sweep_forever(self.expire_idle, self.settings.idle_timeout_seconds)


@dataclass(frozen=True)
class _Expiring:
    """An open episode of an EpisodeService as the idle sweep sees it."""

    service: EpisodeService[Any]
    episode_id: str
    op: OpenEpisode[Any]

    @property
    def lock(self) -> anyio.Lock:
        return self.op.lock

    @property
    def ended(self) -> bool:
        return self.op.writer.ended

    async def expire(self, end: EpisodeEnd) -> None:
        await self.service.end(self.episode_id, self.op, end)
