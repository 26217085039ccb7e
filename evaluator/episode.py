"""One episode's score, whatever its kind: who played which task, how it ended, the
reward and whether it passed, the kind's own metrics, and the checks the log went
through. The recommendation kind also fills its constraint and policy verdicts
(evaluator/recommendation/scoring.py); other kinds leave them empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from taurec.evaluator.defaults import DEFAULT_RULES
from taurec.evaluator.recommendation.judgement import ConstraintVerdict
from taurec.evaluator.recommendation.simulator_audit import SimulatorFault
from taurec.policies.checks import PolicyResult


@dataclass
class EpisodeScore:
    path: str
    label: str
    task_id: str
    trial: int
    end_reason: str
    outcome: str  # "item", "abstain" or "none"
    item_id: str | None
    constraint_verdicts: list[ConstraintVerdict] = field(default_factory=list)
    constraint_score: float = 0.0
    constraint_partial: float = 0.0
    policy_results: list[PolicyResult] = field(default_factory=list)
    policy_score: float = 0.0
    reward: float = 0.0
    complexity: str | None = None
    reveal: str | None = None
    no_valid: bool | None = None
    infra_error: bool = False
    replay_mismatches: int = 0  # logged read-only results the catalog does not reproduce
    #: "replayed": the logged read-only results were recomputed and compared; "signed":
    #: not recomputed, as the end record's HMAC, verified with the server's key, proves
    #: the server wrote them (a sealed log; see logs.py); None: neither (--no-replay,
    #: a kind that replays nothing, a log not scored)
    replay: str | None = None
    problems: list[str] = field(default_factory=list)
    turns: int = 0  # agent messages sent to the user
    turns_to_commit: int | None = None
    tool_calls: int = 0
    median_latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    #: caller -> calls, tokens and cost of its model calls (see model_usage.py)
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    episode_id: str | None = None
    verification: str | None = None  # why the log failed verification (None: it passed)
    unchained: bool = False  # the log carries no hash chain (another harness wrote it)
    not_a_log: bool = False  # some other program's .jsonl (reader.NOT_A_LOG): never counted
    log_chain: str | None = None  # the chain hash of the log's last line
    mode: str = "open"  # "sealed": played under a run plan; "open": anyone could start it
    plan_id: str | None = None
    suite_id: str | None = None
    suite_spec: str | None = None
    suite_sha256: str | None = None  # of the suite it was scored against
    sealed_failure: str | None = None  # a planned episode counted as failed: why
    kind: str = "recommendation"  # the task kind (see taurec.evaluator.kinds)
    metrics: dict[str, float] = field(default_factory=dict)  # a kind's per-episode metrics
    success: bool | None = None  # a kind's own pass rule; None: the reward is 1
    rules: str = DEFAULT_RULES  # the rules profile that judged it
    simulator: str | None = None  # the simulated user's kind, from the header
    agent_model: str | None = None  # the model the agent reported, from the header
    agent_identity: str | None = None  # AgentInfo.identity() of the header's agent
    started_at: str | None = None  # when the episode started (ISO 8601), from the header
    duration_s: float | None = None  # seconds from the start to the end record (or last event)
    end_detail: str | None = None  # the end record's detail (scrubbed), e.g. an agent's error
    error: str | None = None  # the last line of the agent's traceback, when it logged one
    graded: bool = True  # the kind grades an episode pass or fail (a stream is a curve)
    simulator_faults: list[SimulatorFault] = field(
        default_factory=list
    )  # see recommendation/simulator_audit.py
    #: open mode: every task id of the suite it was scored against (set by evaluate.py),
    #: so a task no log played can be counted as the rules profile says
    suite_tasks: tuple[str, ...] | None = None

    @property
    def passed(self) -> bool:
        return self.reward == 1.0 if self.success is None else self.success

    @property
    def report_group(self) -> tuple[str, str, str, str, str]:
        """The report it counts in: one per agent label, run and task kind (a sealed run,
        by its plan, is a group of its own, and so are a label's open-mode logs against
        one suite). `aggregate` groups by it; trials repeat only within one."""
        return (self.label, self.mode, self.plan_id or "", self.suite_id or "", self.kind)
