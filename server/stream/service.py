"""The streams one server runs: each stream is one episode, with one log.

A stream starts with `start` (start_stream / start_episode); its id is an unguessable
episode id and its log is an ordinary episode log (header with kind "stream", chained,
its end record signed), so the evaluator, `--verify`, the runner and resume treat it
like any episode. Each call (question, recommendation, next episode, current episode)
is logged as a tool call with its result, under the stream's lock and shielded from
cancellation. The stream ends `recommended` with its last episode's recommendation
(the end record names that item), or as the harness aborts it, or `infra_error` when
the server stops first (episode_end.shutdown_end: in a sealed run, a stream whose
contestant saw feedback then counts as played). The run's `StreamProtocol` (feedback
as the task's, withheld or scrambled; BIEL's or taurec's rules; episode order) applies to
every stream and is recorded in each header under `simulator.settings["protocol"]`. A
sealed run's plan plays one trial of a stream at a time (open_limits.py): two side by
side would pool their questions and feedback. A plan with a control arm (`taurec run
--with-control`, `taurec plan new --with-control`) plays its control trials with the
control's feedback, and every trial of it in an order drawn from its seed.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
from pydantic import BaseModel, Field

from taurec.catalog.errors import DataError
from taurec.server.episode_end import SHUTDOWN_DETAIL, EpisodeEnd, ended_message, shutdown_end
from taurec.server.http_fairness import locked
from taurec.server.model_call_log import PromptStores, attach, simulator_model
from taurec.server.open_limits import (
    PLAN_OWNER,
    OpenLimits,
    expire_idle,
    make_room,
    sweep_forever,
)
from taurec.server.raw_calls import request_owner
from taurec.server.request_meta import reported_agent
from taurec.server.run_facts import RunFacts, default_run_label, derive_seed, server_version
from taurec.server.seal import Admission, Seals, load_seals
from taurec.server.settings import ServerSettings
from taurec.server.stream.episode import StreamEpisode
from taurec.server.stream.llm_customer import LLMCustomer, LLMCustomerSettings
from taurec.server.trajectory_writer import TrajectoryWriter, log_path, now_utc
from taurec.tasks.errors import (
    AgentFacingError,
    ArgumentError,
    EpisodeError,
    short_repr,
)
from taurec.tasks.runs.plan import label_problem
from taurec.tasks.stream.customer import Customer, RuleCustomer
from taurec.tasks.stream.protocol import PROTOCOL_KEY, FeedbackMode, StreamProtocol
from taurec.tasks.stream.session import EpisodeView, StreamSession
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import Suite, portable_suite_spec
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory.signing import load_log_key

log = logging.getLogger(__name__)

#: Streams remembered after they end (to say how they ended).
ENDED_KEPT: Final = 100_000


class StreamStarted(BaseModel):
    """What start_stream answers: the stream's id and its first episode."""

    episode_id: str = Field(description="The stream's id: pass it to every stream tool.")
    task_id: str
    trial: int
    opening: str = Field(description="How the stream works, in one paragraph.")
    max_turns: int = Field(description="Questions per episode (the question budget).")
    current: EpisodeView


class StreamAborted(BaseModel):
    ended: bool = True
    end_reason: EndReason


def _check_controls(seals: Seals, protocol: StreamProtocol) -> None:
    """DataError unless every plan's control arm is a control this server can play: a
    feedback mode other than the task's, beside a run arm with the task's feedback."""
    for run in seals.runs:
        control = run.plan.control
        if control is None:
            continue
        if control not in {m.value for m in FeedbackMode} - {FeedbackMode.TASK.value}:
            raise DataError(
                f"plan {run.plan.plan_id[:12]}: its control arm's feedback is {control!r}; "
                "expected shuffled or none",
                field="control",
            )
        if protocol.feedback is not FeedbackMode.TASK:
            raise DataError(
                f"plan {run.plan.plan_id[:12]} has a control arm ({control}), so its run arm "
                f"plays the task's feedback; serve it without --feedback "
                f"{protocol.feedback.value}",
                field="feedback",
            )


def opening_text(session: StreamSession) -> str:
    """How the stream works. It names the feedback kind the view names (the task's, also
    in a control run), so the opening never says which run this is."""
    task = session.task
    heard = (
        "(no feedback in this run)"
        if session.feedback_kind == "none"
        else f"and hear their feedback ({session.feedback_kind})"
    )
    return (
        f"A stream of {len(task.episodes)} shopping episodes ({task.setting.value}). In each, "
        f"a customer shops among the items shown; ask them up to {task.budget} questions "
        f"(ask_question), then recommend exactly one item (recommend_item) {heard}; then "
        "call next_episode. Do better as you go: what you learn in one episode is yours to "
        "use in the next."
    )


@dataclass
class StreamService:
    """Every stream one server serves."""

    settings: ServerSettings
    suite: Suite
    facts: RunFacts
    seals: Seals | None = None  # sealed mode: the plans served (see seal.py)
    make_customer: Callable[[], Customer] = RuleCustomer
    protocol: StreamProtocol = field(default_factory=StreamProtocol)

    def __post_init__(self) -> None:
        self.version = self.facts.server_version
        self._open: dict[str, StreamEpisode] = {}
        self._ended: dict[str, EpisodeEnd] = {}
        self.limits = OpenLimits(self.settings.max_open_episodes, self.settings.max_open_per_client)

    @property
    def plan_tokens(self) -> list[str]:
        return [] if self.seals is None else self.seals.tokens

    @classmethod
    def create(
        cls,
        settings: ServerSettings,
        suite: Suite,
        customer: LLMCustomerSettings | None = None,
        protocol: StreamProtocol | None = None,
    ) -> StreamService:
        """`customer`: an LLM customer's settings (None: the rule-based customer);
        `protocol`: the run's stream protocol (None: the defaults)."""
        protocol = protocol or StreamProtocol()
        if settings.task is not None and suite.get(settings.task) is None:
            raise DataError(f"task {settings.task!r} is not in suite {suite.id!r}", field="task")
        facts = RunFacts(
            run_id=settings.run_label or default_run_label(),
            suite=SuiteRef(id=suite.id, spec=portable_suite_spec(suite.spec)),
            catalog_sha256=suite.catalog.sha256(),
            server_version=server_version(),
            log_dir=settings.log_dir,
            simulator_settings={
                **(customer.record() if customer else {"customer": "rule"}),
                PROTOCOL_KEY: protocol.record(),
            },
            log_key=load_log_key(create=True),
            prompts=PromptStores(settings.max_model_call_bytes_per_episode),
        )
        seals = None
        if settings.plans:
            assert facts.log_key is not None
            seals = load_seals(
                settings.plans,
                suite,
                suite.catalog,
                settings.log_dir,
                facts.log_key,
                server_version=facts.server_version,
            )
            _check_controls(seals, protocol)
        if customer is None:
            return cls(settings, suite, facts, seals, protocol=protocol)
        llm = customer
        return cls(settings, suite, facts, seals, lambda: LLMCustomer(llm), protocol)

    def _task(self, task_id: str | None) -> StreamTask:
        task_id = task_id or self.settings.task
        task = self.suite.get(task_id) if task_id is not None else None
        if not isinstance(task, StreamTask):
            some = ", ".join(t.id for t in self.suite.tasks[:3])
            raise ArgumentError(
                "task_id",
                f"expected a stream id from list_tasks (e.g. {some}), got {short_repr(task_id)}",
            )
        return task

    async def start(
        self, task_id: str | None, trial: int | None, seed: int | None, agent_label: str | None
    ) -> StreamStarted:
        if agent_label is not None and (problem := label_problem(agent_label)) is not None:
            raise ArgumentError("agent_label", problem.removeprefix("agent label "))
        task = self._task(task_id)
        trial = trial or 0
        admission: Admission | None = None
        if self.seals is not None:  # label and seed come from the plan
            admission = self.seals.admit(task.id, trial, seed, agent_label)
            agent_label, seed = admission.label, admission.seed
        seed = derive_seed(task.id, trial) if seed is None else seed
        try:
            owner = request_owner() if admission is None else f"{PLAN_OWNER}{admission.plan_id}"
            one_trial_of = None if admission is None else task.id  # see open_limits.py
            await make_room(self.limits, owner, self._open.get)  # a full open server
            self.limits.check(owner, one_trial_of)
            stream = self._open_stream(task, trial, seed, agent_label, admission)
            self.limits.opened(stream.id, owner, one_trial_of, trial)
        except BaseException:
            if admission is not None and self.seals is not None:
                self.seals.cancel(admission)
            raise
        if admission is not None and self.seals is not None:
            self.seals.started(admission, stream.id, stream.log_path)
        opening = opening_text(stream.session)
        async with stream.lock:
            with anyio.CancelScope(shield=True):
                stream._log.user_message(opening)
        return StreamStarted(
            episode_id=stream.id,
            task_id=task.id,
            trial=trial,
            opening=opening,
            max_turns=task.budget,
            current=stream.session.view(),
        )

    def _open_stream(
        self, task: StreamTask, trial: int, seed: int, label: str | None, run: Admission | None
    ) -> StreamEpisode:
        episode_id = secrets.token_hex(16)
        facts = self.facts
        customer = self.make_customer()
        run_id = facts.run_id if run is None else run.run_id
        protocol = self.protocol
        if run is not None and run.run.plan.control is not None:  # a plan with two arms
            protocol = protocol.model_copy(update={"shuffle_order": True})  # orders per trial
        if run is not None and run.control is not None:  # the plan's control arm
            protocol = protocol.model_copy(update={"feedback": FeedbackMode(run.control)})
        simulator_settings = {**facts.simulator_settings, PROTOCOL_KEY: protocol.record()}
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            agent=AgentInfo(label=label or self.settings.agent_label, **reported_agent()),
            task_id=task.id,
            task_sha256=task.sha256(),
            kind=task.kind,
            suite=facts.suite,
            catalog_sha256=facts.catalog_sha256,
            trial=trial,
            seed=seed,
            simulator=SimulatorInfo(
                kind=customer.kind,
                model=simulator_model(simulator_settings),
                settings=simulator_settings,
            ),
            server_version=facts.server_version,
            started_at=now_utc(),
            mode="open" if run is None else "sealed",
            plan_id=None if run is None else run.plan_id,
        )
        retire = self._retire
        seals = self.seals
        if run is not None and seals is not None:
            admission = run

            def retire(stream: StreamEpisode) -> None:
                try:
                    assert stream.end is not None
                    seals.ended(admission, stream.id, stream.end, stream.log_chain)
                finally:
                    self._retire(stream)

        path = log_path(facts.log_dir, run_id, task.id, trial, episode_id)
        stream = StreamEpisode(
            episode_id,
            StreamSession(task, seed, customer, protocol),
            attach(TrajectoryWriter(path, header, facts.log_key), facts.prompts),
            trial,
            retire,
            max_calls=self.settings.max_tool_calls_per_episode,
            sealed=run is not None,
            max_log_bytes=self.settings.max_stream_log_bytes,
        )
        self._open[episode_id] = stream
        return stream

    def get(self, episode_id: str | None) -> StreamEpisode:
        if not episode_id:
            raise ArgumentError(
                "episode_id", "is required: pass the episode_id start_stream returned"
            )
        if self.seals is not None:  # only the plan that started it may act on it, or hear of it
            self.seals.check_owner(episode_id)
        stream = self._open.get(episode_id)
        if stream is not None:
            self.limits.touched(episode_id)
            return stream
        end = self._ended.get(episode_id)
        if end is not None:
            raise EpisodeError(ended_message(episode_id, end))
        raise EpisodeError(
            f"unknown episode_id {short_repr(episode_id)}; expected the id start_stream returned"
        )

    async def run(
        self,
        episode_id: str | None,
        name: str,
        arguments: dict[str, Any],
        compute: Callable[[StreamSession], BaseModel],
    ) -> BaseModel:
        stream = self.get(episode_id)
        async with locked(stream.lock):  # waiting, the request's HTTP turn goes on
            return await stream.call(name, arguments, lambda: compute(stream.session))

    async def abort(self, episode_id: str | None, reason: EndReason, detail: str | None) -> None:
        stream = self.get(episode_id)
        async with locked(stream.lock):
            await stream.abort(reason, detail)

    async def close_all(self, detail: str = SHUTDOWN_DETAIL) -> int:
        ended = 0
        for stream in list(self._open.values()):
            async with stream.lock:
                if stream.end is None:
                    try:
                        seen = "feedback" if stream.revealed else None
                        await stream.close(
                            shutdown_end(sealed=stream.sealed, seen=seen, detail=detail)
                        )
                        ended += 1
                    except Exception:
                        log.exception("stream %s: could not write its end record", stream.id[:8])
        return ended

    async def expire_idle(self, timeout: float) -> int:
        """End every open stream no call addressed for `timeout` seconds (agent_error,
        "idle timeout: ..."), skipping any with a call in flight; how many were ended."""
        return await expire_idle(self.limits, timeout, self._open.get)

    async def sweep_idle(self) -> None:
        """Forever, end streams idle for the settings' `idle_timeout_seconds`."""
        await sweep_forever(self.expire_idle, self.settings.idle_timeout_seconds)

    def _retire(self, stream: StreamEpisode) -> None:
        assert stream.end is not None
        self.limits.closed(stream.id)
        self._open.pop(stream.id, None)
        self._ended[stream.id] = stream.end
        while len(self._ended) > ENDED_KEPT:
            del self._ended[next(iter(self._ended))]


__all__ = ["AgentFacingError", "StreamAborted", "StreamService", "StreamStarted"]
