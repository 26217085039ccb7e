"""The stream (BIEL) options `taurec run` and `taurec serve` share, and the LLM stream
agent's own.

Server side, recorded in every stream log's header: `--feedback task|none|shuffled`
(the task's feedback, withheld, or scrambled: the last two make a control run),
`--rules biel|taurec` (an id outside the choice set counts as a question, or is an
error result) and `--shuffle-order` (episodes in an order drawn per trial). Agent side
(`taurec run --agent llm` on a stream suite): `--context raw|summary|none` (what the
model carries across episodes), `--planning none|no_strat|greedy|pomdp` with
`--planning-interval N` (BIEL's planning runs: every question, then a hidden interim pick)
and `--confidence` (state a confidence with each pick).
"""

from __future__ import annotations

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


def stream_protocol(feedback: FeedbackName, rules: RulesName, shuffle: bool) -> StreamProtocol:
    from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol, StreamRules

    return StreamProtocol(
        feedback=FeedbackMode(feedback.value),
        rules=StreamRules(rules.value),
        shuffle_order=shuffle,
    )


def protocol_flags(feedback: FeedbackName, rules: RulesName, shuffle: bool) -> dict[str, object]:
    """The stream flags given (for a resume command), None for the defaults."""
    return {
        "--feedback": None if feedback is FeedbackName.TASK else feedback.value,
        "--rules": None if rules is RulesName.BIEL else rules.value,
        "--shuffle-order": shuffle or None,
    }


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


def stream_options_problem(kind: str, protocol: StreamProtocol, agent: str) -> str | None:
    """One line when stream options are given for a suite of another kind, or an order
    shuffle for an agent that reads the task's episodes in order (ceiling, oracle)."""
    from taurec.clients.agents.registry import AgentUnavailable, agents_of
    from taurec.tasks.stream.protocol import protocol_problem

    if (problem := protocol_problem(kind, protocol)) is not None:
        return problem
    try:
        entry = agents_of(kind).get(agent)
    except AgentUnavailable:
        entry = None
    if protocol.shuffle_order and entry is not None and entry.profile.task_order:
        return (
            f"--shuffle-order: --agent {agent} reads the task's episodes in their order, so "
            "it would read another episode's; play it without --shuffle-order"
        )
    return None
