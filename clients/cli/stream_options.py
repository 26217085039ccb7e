"""The stream (BIEL) options `taurec run` and `taurec serve` share, and the LLM stream
agent's own.

Server side, recorded in every stream log's header: `--feedback task|none|shuffled`
(the task's feedback, withheld, or scrambled: the last two make a control run),
`--rules biel|taurec` (an id outside the choice set counts as a question, or is an
error result), `--shuffle-order` (episodes in an order drawn per trial) and
`--customer-knows tastes|items` (what the rule-based or LLM customer knows: its tastes
and the category, as BIEL's, or the choice set too). `taurec run --with-control
shuffled|none` plays a run arm and a control arm in one sealed plan (`trials` each,
each (task, trial) given to an arm at random, episodes in per-trial orders). Agent side
(`taurec run --agent llm` on a stream suite): `--context raw|summary|none` (what the
model carries across episodes), `--planning none|no_strat|greedy|pomdp` with
`--planning-interval N` (BIEL's planning runs: every question, then a hidden interim pick)
and `--confidence` (state a confidence with each pick).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from taurec.tasks.stream.protocol import StreamProtocol


class FeedbackName(StrEnum):
    TASK = "task"
    NONE = "none"
    SHUFFLED = "shuffled"


class RulesName(StrEnum):
    BIEL = "biel"
    TAUREC = "taurec"


class ControlName(StrEnum):
    SHUFFLED = "shuffled"
    NONE = "none"


class CustomerKnowsName(StrEnum):
    TASTES = "tastes"
    ITEMS = "items"


class ContextName(StrEnum):
    RAW = "raw"
    SUMMARY = "summary"
    NONE = "none"


class PlanningName(StrEnum):
    NONE = "none"
    NO_STRAT = "no_strat"
    GREEDY = "greedy"
    POMDP = "pomdp"


FeedbackOpt = Annotated[
    FeedbackName,
    typer.Option(
        "--feedback",
        help="Stream suites: task (each task's own feedback), none (withheld) or shuffled "
        "(about another item of the set): the last two are control runs for 'learns from "
        "feedback'.",
    ),
]
RulesOpt = Annotated[
    RulesName,
    typer.Option(
        "--rules",
        help="Stream suites: biel (an id outside the choice set counts as a question) or "
        "taurec (it is an error result).",
    ),
]
ShuffleOrderOpt = Annotated[
    bool,
    typer.Option(
        "--shuffle-order", help="Stream suites: play each stream's episodes in a per-trial order."
    ),
]
CustomerKnowsOpt = Annotated[
    CustomerKnowsName,
    typer.Option(
        "--customer-knows",
        help="Stream suites: what the customer knows: tastes (its persona and the category, "
        "as BIEL's customer) or items (the choice set too: it describes a named item).",
    ),
]
WithControlOpt = Annotated[
    ControlName | None,
    typer.Option(
        "--with-control",
        help="Stream suites: play a control arm (shuffled: scrambled feedback, the blind one; "
        "none: withheld) beside the run in one sealed plan, --trials each, arms drawn at "
        "random per (task, trial), episodes in per-trial orders: what 'learns from "
        "feedback' needs.",
    ),
]
ContextOpt = Annotated[
    ContextName | None,
    typer.Option(
        "--context",
        help="--agent llm on streams: what it carries across episodes: raw (the record), "
        "summary (its own summaries) or none.",
    ),
]
PlanningOpt = Annotated[
    PlanningName | None,
    typer.Option(
        "--planning",
        help="--agent llm on streams: BIEL's planning runs (ask every question, a hidden "
        "pick with confidence after each): no_strat, greedy or pomdp.",
    ),
]
PlanningIntervalOpt = Annotated[
    int | None,
    typer.Option(
        "--planning-interval",
        min=1,
        help="--planning: plan in episode 1 and every Nth episode (default 5, as BIEL).",
    ),
]
ConfidenceOpt = Annotated[
    bool,
    typer.Option("--confidence", help="--agent llm on streams: state a confidence with each pick."),
]


def stream_protocol(
    feedback: FeedbackName,
    rules: RulesName,
    shuffle: bool,
    knows: CustomerKnowsName = CustomerKnowsName.TASTES,
) -> StreamProtocol:
    from taurec.tasks.stream.protocol import (
        CustomerKnows,
        FeedbackMode,
        StreamProtocol,
        StreamRules,
    )

    return StreamProtocol(
        feedback=FeedbackMode(feedback.value),
        rules=StreamRules(rules.value),
        shuffle_order=shuffle,
        customer_knows=CustomerKnows(knows.value),
    )


@dataclass(frozen=True)
class StreamRun:
    """What a run's stream options ask for: the run arm's protocol, and the control arm's
    feedback mode when `--with-control` plays one beside it."""

    protocol: StreamProtocol
    control: str | None
    flags: dict[str, object]  # the stream flags given (for a resume command)

    def protocols(self) -> list[dict[str, object]]:
        """Every arm's protocol as the headers record it."""
        from taurec.tasks.stream.protocol import FeedbackMode

        arms = [self.protocol]
        if self.control is not None:
            arms.append(self.protocol.model_copy(update={"feedback": FeedbackMode(self.control)}))
        return [a.record() for a in arms]

    def trials(self, per_arm: int) -> int:
        """The trials planned per task: `per_arm` for each arm."""
        return per_arm * (2 if self.control is not None else 1)


def stream_run(
    feedback: FeedbackName,
    rules: RulesName,
    shuffle: bool,
    knows: CustomerKnowsName,
    control: ControlName | None,
) -> StreamRun | str:
    """The run's stream options, or one line on why they cannot go together."""
    if control is not None and feedback is not FeedbackName.TASK:
        return (
            f"--with-control {control.value} plays the run arm with the task's feedback and "
            f"the control arm with {control.value}; leave out --feedback {feedback.value}"
        )
    flags: dict[str, object] = {
        "--feedback": None if feedback is FeedbackName.TASK else feedback.value,
        "--rules": None if rules is RulesName.BIEL else rules.value,
        "--shuffle-order": (shuffle and control is None) or None,
        "--customer-knows": None if knows is CustomerKnowsName.TASTES else knows.value,
        "--with-control": None if control is None else control.value,
    }
    protocol = stream_protocol(feedback, rules, shuffle or control is not None, knows)
    return StreamRun(protocol, None if control is None else control.value, flags)


def agent_stream_options(
    context: ContextName | None,
    planning: PlanningName | None,
    interval: int | None,
    confidence: bool,
) -> dict[str, object]:
    """The LLM stream agent's options that were given (AgentSettings.options)."""
    given: dict[str, object] = {
        "context": context.value if context is not None else None,
        "planning": planning.value if planning is not None else None,
        "planning_interval": interval,
        "confidence": True if confidence else None,
    }
    return {k: v for k, v in given.items() if v is not None}


def stream_options_problem(kind: str, run: StreamRun, agent: str) -> str | None:
    """One line when stream options are given for a suite of another kind, or an order
    shuffle (also --with-control's) for an agent that reads the task's episodes in order
    (ceiling, oracle)."""
    from taurec.clients.agents.registry import AgentUnavailable, agents_of
    from taurec.tasks.stream.protocol import protocol_problem

    if run.control is not None and kind != "stream":
        return f"--with-control applies to stream suites; this is a {kind} suite"
    if (problem := protocol_problem(kind, run.protocol)) is not None:
        return problem
    try:
        entry = agents_of(kind).get(agent)
    except AgentUnavailable:
        entry = None
    if run.protocol.shuffle_order and entry is not None and entry.profile.task_order:
        flag = "--with-control" if run.control is not None else "--shuffle-order"
        return (
            f"{flag}: --agent {agent} reads the task's episodes in their order, so it would "
            f"read another episode's (the arms play episodes in per-trial orders); play it "
            f"without {flag}"
        )
    return None
