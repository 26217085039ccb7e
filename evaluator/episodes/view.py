"""One episode as a reader sees it: the conversation, and every verdict with the log seq
of the message it concerns (its evidence), plus the ranked list of a ranking episode and
the episodes of a stream with their feedback. Plain JSON values: the viewer renders them,
`evaluator explain` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from taurec.evaluator.episodes.conversation import conversation
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.rows import episode_row

#: item id -> its title, or None when unknown
TitleOf = Callable[[str], str | None]


def display_value(value: object) -> str:
    """A catalog value as a reader writes it: dates in ISO form, lists joined."""
    if value is None:
        return "(none)"
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(display_value(v) for v in value) or "(empty)"
    return str(value)


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
            for k, v in sorted(score.metrics.items())
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


def ranking_view(
    task: Any, events: list[dict[str, Any]], title_of: TitleOf
) -> dict[str, Any] | None:
    """The submitted ranking with the positive marked, or None for another kind."""
    if getattr(task, "kind", None) != "ranking":
        return None
    from taurec.evaluator.ranking.scoring import SUBMIT

    submitted = next(
        (ev for ev in events if ev.get("type") == "tool_call" and ev.get("name") == SUBMIT), None
    )
    ranking = (submitted or {}).get("arguments", {}).get("ranking")
    ranking = [str(x) for x in ranking] if isinstance(ranking, list) else []
    return {
        "seq": submitted["seq"] if submitted else None,
        "positive": task.positive,
        "positive_title": title_of(task.positive),
        "rank": ranking.index(task.positive) + 1 if task.positive in ranking else None,
        "pass_k": task.pass_k,
        "items": [
            {"rank": n, "id": i, "title": title_of(i), "positive": i == task.positive}
            for n, i in enumerate(ranking, start=1)
        ],
    }


def stream_view(score: EpisodeScore, events: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The stream's episodes in order: what was recommended, the feedback heard, regret,
    rank and questions; None for another kind."""
    if score.kind != "stream":
        return None
    from taurec.evaluator.stream.scoring import outcomes_of

    heard: dict[int, dict[str, Any]] = {}
    for ev in events:
        content = ev.get("content")
        if ev.get("type") == "tool_result" and isinstance(content, dict) and "feedback" in content:
            episode = content.get("episode")
            if isinstance(episode, int) and episode not in heard:
                heard[episode] = {
                    "item_id": content.get("item_id"),
                    "feedback": content.get("feedback"),
                    "seq": ev["seq"],
                }
    return [
        {
            "index": o.index,
            "regret": o.regret,
            "rank": o.rank,
            "questions": o.questions,
            **heard.get(o.index, {"item_id": None, "feedback": None, "seq": None}),
        }
        for o in outcomes_of(score)
    ]


def judge_view(judged: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """Judge scores of one episode ({aspect: JudgeScore}), NaN as no score."""
    if not judged:
        return None
    return [
        {
            "aspect": aspect,
            "mean": _number(getattr(j, "mean", None)),
            "spread": _number(getattr(j, "spread", None)),
            "failures": getattr(j, "failures", 0),
            "model": getattr(j, "model", None),
        }
        for aspect, j in sorted(judged.items())
    ]


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
        "ranking": ranking_view(task, events, title_of) if task is not None else None,
        "stream": stream_view(score, events),
        "judge": judge_view(judged),
    }
