"""One episode as a reader sees it: the conversation, and every verdict with the log seq
of the message it concerns (its evidence), plus the ranked list of a ranking episode and
the episodes of a stream with their feedback. Plain JSON values: the viewer renders them,
`evaluator explain` prints them.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.conversation import conversation
from taurec.evaluator.episodes.rows import episode_row
from taurec.evaluator.kinds import EVALUATOR_KINDS, TitleOf


def display_value(value: object) -> str:
    """A catalog value as a reader writes it: dates in ISO form, lists joined."""
    if value is None:
        return "(none)"
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(display_value(v) for v in value) or "(empty)"
    return str(value)


_AT_K = re.compile(r"^([^@]+)@(\d+)$")


def metric_order(name: str) -> tuple[int, int, str]:
    """Metrics without a cutoff first, by name; then those at a cutoff K (`hit@5`) by K,
    then name: hit@1, hit@5, ndcg@5, hit@10, ndcg@10, as `evaluator score` lists them."""
    m = _AT_K.match(name)
    return (0, 0, name) if m is None else (1, int(m.group(2)), m.group(1))


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def commit_seq(events: list[dict[str, Any]], item_id: str | None) -> int | None:
    """The seq of the call that committed `item_id` (the last recommend-like call naming
    it), else of the end record."""
    found = None
    for ev in events:
        if ev.get("type") == "tool_call":
            args = ev.get("arguments") or {}
            if item_id is not None and item_id in (
                args.get("item_id"),
                *(args.get("ranking") or [])[:1],
            ):
                found = ev["seq"]
        elif ev.get("type") == "end" and found is None:
            found = ev["seq"]
    return found


def _end_seq(events: list[dict[str, Any]]) -> int | None:
    return next((ev["seq"] for ev in reversed(events) if ev.get("type") == "end"), None)


def verdicts(score: EpisodeScore, events: list[dict[str, Any]]) -> dict[str, Any]:
    """Constraint, policy and metric verdicts, simulator faults and problems, each with the
    seq of its evidence (None when the log holds none)."""
    item_seq = commit_seq(events, score.item_id)
    end_seq = _end_seq(events)
    faults = list(getattr(score, "simulator_faults", None) or [])
    return {
        "constraints": [
            {
                "text": v.text,
                "reveal": v.reveal,
                "holds": v.holds,
                "actual": display_value(v.actual),
                "seq": item_seq,
            }
            for v in score.constraint_verdicts
        ],
        "policies": [
            {"policy": r.policy.value, "verdict": r.verdict.value, "seq": r.seq, "reason": r.reason}
            for r in score.policy_results
        ],
        "metrics": [
            {"name": k, "value": _number(v), "seq": end_seq}
            for k, v in sorted(score.metrics.items(), key=lambda kv: metric_order(kv[0]))
        ],
        "faults": [
            {
                "kind": str(getattr(f, "kind", "")),
                "seq": getattr(f, "seq", None),
                "detail": str(getattr(f, "detail", f)),
            }
            for f in faults
        ],
        "problems": list(score.problems),
    }


def judge_view(judged: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """Judge scores of one episode ({aspect: JudgeScore}), NaN as no score; the mock
    judge's named as such."""
    from taurec.evaluator.judge.mock import judge_name

    if not judged:
        return None
    return [
        {
            "aspect": aspect,
            "mean": _number(getattr(j, "mean", None)),
            "spread": _number(getattr(j, "spread", None)),
            "failures": getattr(j, "failures", 0),
            "model": judge_name(j.model) if getattr(j, "model", None) else None,
        }
        for aspect, j in sorted(judged.items())
    ]


def kind_views(
    score: EpisodeScore, task: Any, events: list[dict[str, Any]], title_of: TitleOf
) -> dict[str, Any]:
    """Each kind's own view of an episode (`EvaluatorKind.view`), under the kind's key: None
    for an episode of another kind, so a page finds every key whatever the episode."""
    views: dict[str, Any] = {}
    for name in EVALUATOR_KINDS.names():
        kind = EVALUATOR_KINDS.get(name)
        if kind.view is not None:
            views[kind.view.key] = kind.view.make(score, task, events, title_of)
    return views


def episode_view(
    score: EpisodeScore,
    header: dict[str, Any] | None,
    events: list[dict[str, Any]],
    *,
    task: Any = None,
    title_of: TitleOf = lambda _: None,
    judged: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the viewer shows of one episode."""
    return {
        "row": episode_row(score),
        "header": header,
        "conversation": conversation(events),
        "verdicts": verdicts(score, events),
        **kind_views(score, task, events, title_of),
        "judge": judge_view(judged),
    }
