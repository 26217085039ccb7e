"""The benchmark behind the MCP tools: a suite, its catalog, the episodes, and bound mode.

Transport-agnostic: the MCP layer (tools.py) parses arguments and shapes results; this
resolves episodes (the bound one started on first use), applies the settings' per-call
limits (text length, asides, tool calls per episode), runs steps (catalog searches in
`workers`), ends abandoned episodes (`sweep_idle`) and, when the server stops, every
open one (`close_all`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import anyio
from pydantic import BaseModel

from taurec.catalog.errors import DataError
from taurec.catalog.store import Catalog
from taurec.server.episode_end import CALL_LIMIT, SHUTDOWN_DETAIL, EpisodeEnd
from taurec.server.model_call_log import PromptStores
from taurec.server.raw_calls import mark_reached, request_aside, request_owner, request_usage
from taurec.server.recommendation import admission
from taurec.server.recommendation.agent_input import recommend_arguments
from taurec.server.recommendation.catalog_workers import CatalogWorkers
from taurec.server.recommendation.episode import Episode
from taurec.server.recommendation.episodes import EpisodeStore, SimulatorFactory, start_sealed
from taurec.server.recommendation.results import (
    EpisodeStarted,
    RecommendResult,
    ServerInfo,
    TaskList,
    TaskSummary,
    UserReplyResult,
)
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.server.recommendation.simulators import SIMULATORS, agent_nlu, worded
from taurec.server.recommendation.text_limits import Limits, overlong_aside
from taurec.server.run_facts import (
    SERVER_NAME,
    RunFacts,
    default_run_label,
    derive_seed,
    server_version,
)
from taurec.server.seal import Seals, load_seals
from taurec.server.settings import ServerSettings
from taurec.tasks.errors import ArgumentError, EpisodeError, short_repr
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.runs.plan import label_problem
from taurec.tasks.suite import Suite, load_suite, portable_suite_spec
from taurec.tasks.trajectory.format import EndReason, SuiteRef
from taurec.tasks.trajectory.signing import load_log_key

log = logging.getLogger(__name__)


class Service:
    """Everything one server serves. Build it with `Service.create`."""

    def __init__(
        self,
        settings: ServerSettings,
        suite: Suite,
        catalog: Catalog,
        store: EpisodeStore,
        seals: Seals | None = None,
    ) -> None:
        self.settings = settings
        self.suite = suite
        self.catalog = catalog
        self.store = store
        self.seals = seals
        self.version = store.facts.server_version
        self._bound_lock = anyio.Lock()
        self._bound_id: str | None = None
        self.workers = CatalogWorkers.of(settings)

    @property
    def plan_tokens(self) -> list[str]:
        return [] if self.seals is None else self.seals.tokens

    @classmethod
    def create(
        cls,
        settings: ServerSettings,
        make_user: SimulatorFactory | None = None,
        suite: Suite | None = None,
    ) -> Service:
        """Load the suite unless given (DataError if it cannot be) and prepare an empty
        episode store."""
        suite = suite or load_suite(settings.suite)
        catalog = Catalog.load(settings.catalog) if settings.catalog else suite.catalog
        if settings.task is not None and suite.get(settings.task) is None:
            raise DataError(
                f"task {settings.task!r} is not in suite {suite.id!r}; expected one of "
                f"{', '.join(t.id for t in suite.tasks[:5])}, ...",
                field="task",
            )
        catalog.search_index  # noqa: B018 - build the indexes now, not in the first tool call
        simulator_settings: dict[str, Any] = {}
        reader = None  # one title index for the users and the NLU, when both are ours
        if make_user is None:
            reader = MessageReader(catalog.items)
            make_user, simulator_settings = SIMULATORS[settings.simulator](
                catalog, settings, reader
            )
            if settings.nlg_model is not None:
                make_user, simulator_settings = worded(make_user, simulator_settings, settings)
        facts = RunFacts(
            run_id=settings.run_label or default_run_label(),
            suite=SuiteRef(id=suite.id, spec=portable_suite_spec(suite.spec)),
            catalog_sha256=catalog.sha256(),
            server_version=server_version(),
            log_dir=settings.log_dir,
            simulator_settings=simulator_settings,
            log_key=load_log_key(create=True),
            prompts=PromptStores(settings.max_model_call_bytes_per_episode),
        )
        store = EpisodeStore(
            catalog,
            make_user,
            facts,
            max_open=settings.max_open_episodes,
            max_open_per_owner=settings.max_open_per_client,
            nlu=agent_nlu(catalog, settings, reader),
        )
        seals = None
        if settings.plans:
            assert facts.log_key is not None
            seals = load_seals(
                settings.plans,
                suite,
                catalog,
                settings.log_dir,
                facts.log_key,
                server_version=facts.server_version,
                catalog_spec=settings.catalog,
            )
        return cls(settings, suite, catalog, store, seals)

    # --- server-level tools ---------------------------------------------------------------

    def task_list(self) -> TaskList:
        """Every task; in sealed mode, the caller's planned episodes not yet played (each
        task once, with its trials left)."""
        chosen = self.suite.tasks
        trials: dict[str, list[int]] | None = None
        if self.seals is not None:
            trials = {}
            for task_id, trial in self.seals.caller().remaining():
                trials.setdefault(task_id, []).append(trial)
            chosen = [t for t in self.suite.tasks if t.id in trials]
        tasks = [
            TaskSummary(
                id=t.id,
                complexity=t.stratum[0],
                reveal_difficulty=t.stratum[1],
                trials_left=None if trials is None else trials[t.id],
            )
            for t in chosen
        ]
        return TaskList(suite=self.suite.id, tasks=tasks)

    def info(self) -> ServerInfo:
        return ServerInfo(
            name=SERVER_NAME,
            version=self.version,
            suite=self.suite.id,
            tasks=len(self.suite.tasks),
            catalog_items=len(self.catalog),
            reports_acceptance=self.settings.report_acceptance,
            bound_task=self.settings.task,
            bound_trial=self.settings.trial if self.settings.bound else None,
            sealed_label=self._caller_label(),
        )

    def _caller_label(self) -> str | None:
        if self.seals is None:
            return None
        try:
            return self.seals.caller().plan.label
        except EpisodeError:  # several plans, and no token on this request
            return None

    async def start_episode(
        self,
        task_id: str | None,
        trial: int | None = None,
        seed: int | None = None,
        agent_label: str | None = None,
    ) -> EpisodeStarted:
        if agent_label is not None:
            problem = label_problem(agent_label)
            if problem is not None:
                raise ArgumentError("agent_label", problem.removeprefix("agent label "))
        if self.seals is not None:
            task = self._task(task_id)
            episode = await start_sealed(self.seals, self.store, task, trial, seed, agent_label)
        elif self.settings.bound:
            episode = await self._start_bound(task_id, trial, seed, agent_label)
        else:
            episode = await self._start(task_id, trial, seed, agent_label)
        episode.opening_delivered = True
        return EpisodeStarted(
            episode_id=episode.id,
            task_id=episode.task.id,
            trial=episode.trial,
            opening=episode.opening,
            max_turns=episode.max_turns,
            max_recommendations=episode.max_recommendations,
        )

    # --- episode tools ----------------------------------------------------------------------

    async def episode(self, episode_id: str | None) -> Episode:
        """The episode a tool call addresses: by id, or the bound episode when it is omitted."""
        mark_reached()
        if episode_id is not None:
            if self.seals is not None:  # first: another caller must not touch it at all
                self.seals.check_owner(episode_id)
            episode = self.store.get(episode_id)
        elif not self.settings.bound:
            raise ArgumentError(
                "episode_id",
                "is required: call start_episode and pass the episode_id it returns",
            )
        else:
            episode = await self._bound_episode(agent_label=None)
        episode.note_usage(request_usage())
        return episode

    async def call(
        self,
        episode_id: str | None,
        name: str,
        arguments: dict[str, Any],
        compute: Callable[[Episode], BaseModel],
        *,
        offload: bool = False,
        limits: Limits | None = None,
    ) -> BaseModel:
        """Run a read-only tool on an episode; the log records `arguments` with the id.
        `offload`: work that grows with the catalog, run in `workers` within its budget.
        `limits`: tighter text limits of some arguments (see text_limits.py)."""
        episode = await self.episode(episode_id)
        owner = request_owner()

        async def run() -> BaseModel:
            work = partial(compute, episode)
            return await self.workers.run(owner, name, work) if offload else work()

        logged = {"episode_id": episode.id, **arguments}
        async with episode.batches.turn():
            await self._admit(episode, name, logged, limits)
            return await episode.call(name, logged, run)

    async def send_message(self, episode_id: str | None, text: str) -> UserReplyResult:
        episode = await self.episode(episode_id)
        async with episode.batches.turn():
            await self._admit(episode, "send_message", {"episode_id": episode.id, "text": text})
            result = await episode.send_message(text)
        if not self.settings.report_acceptance:  # an agent learns it from the user's words
            result = result.model_copy(update={"accepted": None})
        return result

    async def recommend(
        self,
        episode_id: str | None,
        item_id: str | None,
        message: str | None,
        disclose: Sequence[str] | None = None,
    ) -> RecommendResult:
        episode = await self.episode(episode_id)
        arguments = recommend_arguments(episode.id, item_id, message, disclose)
        async with episode.batches.turn():
            await self._admit(episode, "recommend", arguments)
            return await episode.recommend(item_id, message, self.catalog, disclose)

    async def abort(self, episode_id: str | None, reason: EndReason, detail: str | None) -> None:
        """Not limited (it ends the episode; its detail has the tool schema's own cap)."""
        episode = await self.episode(episode_id)
        async with episode.batches.turn():
            batch, _ = admission.request_batch_of(episode)
            if episode.batches.held is not None:
                arguments = {"episode_id": episode.id, "reason": reason.value, "detail": detail}
                raise await admission.after_commit(episode, "abort_episode", arguments, batch)
            episode.batches.enter(batch)
            aside = request_aside()
            if overlong_aside(aside, self.settings.max_message_chars) is None:
                await episode.note_aside(aside)  # else dropped: an abort is never refused
            await episode.abort(reason, detail)

    async def close_all(self, detail: str = SHUTDOWN_DETAIL) -> int:
        """End every open episode as infra_error with `detail`, each once its step in flight
        (if any) has finished, so no log is left without its end record (in a sealed run,
        one whose user has replied counts as played: EpisodeStore.shutdown_cut). Returns how
        many were ended. The server calls it when it stops; run it shielded from cancellation."""
        ended = 0
        for episode in self.store.open_episodes():
            async with episode.lock:
                if episode.end is not None:  # its step in flight ended it
                    continue
                try:
                    await episode.close(self.store.shutdown_cut(episode, detail))
                    ended += 1
                except Exception:  # one unwritable log must not leave the others open
                    log.exception("episode %s: could not write its end record", episode.id[:8])
        return ended

    async def sweep_idle(self) -> None:
        """Forever, end episodes idle for `idle_timeout_seconds` (see EpisodeStore)."""
        await self.store.sweep_idle(self.settings.idle_timeout_seconds)

    async def log_rejected(self, name: str, arguments: dict[str, Any], error_text: str) -> None:
        """Log a call the MCP layer rejected before it reached the episode, if the episode
        it names (or the bound one, already started) is open."""
        episode_id = arguments.get("episode_id", self._bound_id)
        if not isinstance(episode_id, str):
            return
        try:
            episode = self.store.get(episode_id)
            if self.seals is not None:
                self.seals.check_owner(episode_id)
        except EpisodeError:
            return
        async with episode.batches.turn():
            if episode.end is not None:
                return
            await admission.log_rejected(episode, name, arguments, error_text)
            limit = self.settings.max_tool_calls_per_episode
            if episode.tool_calls > limit and name != "abort_episode" and episode.end is None:
                detail = f"{CALL_LIMIT}{limit} tool calls made; call {episode.tool_calls} ({name})"
                with anyio.CancelScope(shield=True):
                    await episode.close(EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))

    # --- internals ----------------------------------------------------------------------------

    async def _admit(
        self, episode: Episode, name: str, arguments: dict[str, Any], limits: Limits | None = None
    ) -> None:
        """See admission.py: a held commit, the tool-call limit, the batch, text limits."""
        await admission.admit(episode, self.settings, name, arguments, limits)

    def _task(self, task_id: str | None) -> RecommendationTask:
        task = self.suite.get(task_id) if task_id is not None else None
        if task is None:
            some = ", ".join(t.id for t in self.suite.tasks[:3])
            got = "nothing" if task_id is None else short_repr(task_id)
            raise ArgumentError(
                "task_id", f"expected a task id from list_tasks (e.g. {some}), got {got}"
            )
        return task

    async def _start(
        self, task_id: str | None, trial: int | None, seed: int | None, agent_label: str | None
    ) -> Episode:
        task = self._task(task_id)
        trial = trial or 0
        return await self.store.start(
            task,
            trial=trial,
            seed=derive_seed(task.id, trial) if seed is None else seed,
            agent_label=agent_label or self.settings.agent_label,
            owner=request_owner(),
        )

    async def _start_bound(
        self, task_id: str | None, trial: int | None, seed: int | None, agent_label: str | None
    ) -> Episode:
        bound = self.settings
        assert bound.task is not None
        bound_seed = derive_seed(bound.task, bound.trial) if bound.seed is None else bound.seed
        conflicts = [
            f"{name} {short_repr(given)} (it serves {wanted!r})"
            for name, given, wanted in (
                ("task_id", task_id, bound.task),
                ("trial", trial, bound.trial),
                ("seed", seed, bound_seed),
            )
            if given is not None and given != wanted
        ]
        if conflicts:
            raise EpisodeError(
                f"this server is bound to task {bound.task!r}, trial {bound.trial}: it cannot "
                f"start {', '.join(conflicts)}. Call start_episode with no arguments."
            )
        return await self._bound_episode(agent_label=agent_label)

    async def _bound_episode(self, agent_label: str | None) -> Episode:
        async with self._bound_lock:  # two first calls at once start one episode
            if self._bound_id is None:
                episode = await self._start(
                    self.settings.task, self.settings.trial, self.settings.seed, agent_label
                )
                self._bound_id = episode.id
        return self.store.get(self._bound_id)
