"""The "stream" kind (BIEL) in the evaluator: replay a stream's log, score its episodes,
and report learning curves per label (overall and per setting).

Scoring replays the log: every accepted call (a tool result without an error) is run
again, in order, on a fresh `StreamSession` of the task with the log's seed, and its
result must equal the logged one (but for an LLM customer's words, which are not
replayable; with the rule-based customer they are) (else a replay mismatch: the log was not produced by
these rules, or was edited). The replayed session then says what was recommended in
each episode and how many questions were asked; utilities come from the task (hashed
into the log header), so no LLM and no trust in the logged feedback is needed.

Per-episode numbers travel in `EpisodeScore.metrics` as `regret@k`, `questions@k`,
`rank@k` (0: nothing chosen), and the setting as `setting:<name>` = 1.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import TYPE_CHECKING, Any

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind, KindView
from taurec.evaluator.render import run_rows
from taurec.evaluator.stream.metrics import EpisodeOutcome, score_choice, stream_summary
from taurec.tasks.stream.session import ACTIONS, StreamRuleError, StreamSession
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.format import Trajectory

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext

SETTING_PREFIX = "setting:"
READ_ONLY = {"current_episode": lambda s, a: s.view()}
#: Result fields holding the customer's words (not replayable when an LLM wrote them).
_WORDS = {"ask_question": ("answer",), "recommend_item": ("feedback",)}


def replay_stream(
    task: StreamTask, trajectory: Trajectory
) -> tuple[StreamSession, list[str], list[int]]:
    """The session as the log's accepted calls leave it, the mismatches, and the questions
    asked in each episode."""
    session = StreamSession(task, trajectory.header.seed)
    rule_words = trajectory.header.simulator.kind == "rule"
    calls: dict[str, dict[str, Any]] = {}
    mismatches: list[str] = []
    questions = [0] * len(task.episodes)
    for event in trajectory.events:
        if event["type"] == "tool_call":
            calls[event["call_id"]] = event
            continue
        if event["type"] != "tool_result" or event.get("is_error"):
            continue
        call = calls.get(event["call_id"])
        if call is None:
            continue
        name, arguments = call["name"], call.get("arguments", {})
        action = ACTIONS.get(name) or READ_ONLY.get(name)
        if action is None:
            continue
        index = session.index
        try:
            result = action(session, arguments)
        except (StreamRuleError, KeyError) as exc:
            mismatches.append(
                f"seq {event['seq']}: {name} was accepted but the rules refuse it: {exc}"
            )
            continue
        replayed, logged = result.model_dump(mode="json"), event.get("content")
        if not rule_words and isinstance(logged, dict):  # an LLM's words cannot be replayed
            for key in _WORDS.get(name, ()):
                replayed.pop(key, None)
                logged = {k: v for k, v in logged.items() if k != key}
        if replayed != logged:
            mismatches.append(f"seq {event['seq']}: {name} result differs from the replayed one")
        if name == "ask_question":
            questions[index] += 1
    return session, mismatches, questions


def score_stream(
    task: Any, trajectory: Trajectory, ctx: SuiteContext, resolver: Resolver, path: str
) -> EpisodeScore:
    assert isinstance(task, StreamTask)
    header = trajectory.header
    end = trajectory.end or {}
    session, mismatches, questions = replay_stream(task, trajectory)
    outcomes = [
        score_choice(
            n + 1,
            ep.utilities,
            session.chosen[n] if n < len(session.chosen) else None,
            questions[n],
        )
        for n, ep in enumerate(task.episodes)
    ]
    metrics: dict[str, float] = {f"{SETTING_PREFIX}{task.setting.value}": 1.0}
    for o in outcomes:
        metrics[f"regret@{o.index}"] = o.regret
        metrics[f"questions@{o.index}"] = float(o.questions)
        metrics[f"rank@{o.index}"] = float(o.rank or 0)
    mean_regret = sum(o.regret for o in outcomes) / len(outcomes)
    reason = str(end.get("reason", "none"))
    score = EpisodeScore(
        path=path,
        label=header.agent.label,
        task_id=task.id,
        trial=header.trial,
        end_reason=reason,
        outcome="item" if session.chosen else "none",
        item_id=session.chosen[-1] if session.chosen else None,
        reward=1.0 - mean_regret / 100,
        infra_error=reason == "infra_error",
        tool_calls=sum(1 for e in trajectory.events if e["type"] == "tool_call"),
        metrics=metrics,
        success=session.complete and all(o.regret == 0 for o in outcomes),
    )
    if resolver.replay and mismatches:
        score.replay_mismatches = len(mismatches)
        score.problems.extend(f"{path}: replay: {m}" for m in mismatches)
    if not trajectory.end:
        score.problems.append(f"{path}: the log has no end record (incomplete stream)")
    return score


@cache
def _stream_task(spec: str | None, task_id: str) -> StreamTask | None:
    try:
        task = load_suite(spec).get(task_id) if spec else None
    except DataError:
        return None
    return task if isinstance(task, StreamTask) else None


def outcomes_of(score: EpisodeScore) -> list[EpisodeOutcome]:
    """The per-episode outcomes a stream score carries. A stream without them (a planned
    stream that failed before it could be scored: missing, damaged) counts every episode
    as choosing nothing (regret = best), read from its task."""
    if not score.metrics:
        task = _stream_task(score.suite_spec, score.task_id)
        if task is None:
            return []
        return [score_choice(n + 1, e.utilities, None, 0) for n, e in enumerate(task.episodes)]
    out = []
    k = 1
    while f"regret@{k}" in score.metrics:
        m = score.metrics
        rank = int(m[f"rank@{k}"]) or None
        out.append(EpisodeOutcome(k, m[f"regret@{k}"], None, 0.0, rank, int(m[f"questions@{k}"])))
        k += 1
    return out


def setting_of(score: EpisodeScore) -> str:
    if not score.metrics:
        task = _stream_task(score.suite_spec, score.task_id)
        return task.setting.value if task is not None else "?"
    return next(
        (k.removeprefix(SETTING_PREFIX) for k in score.metrics if k.startswith(SETTING_PREFIX)), "?"
    )


def aggregate_streams(label: str, scores: list[EpisodeScore], seed: int) -> dict[str, Any]:
    """The label's learning curve and summary, overall and per setting."""
    by_setting: dict[str, list[list[EpisodeOutcome]]] = defaultdict(list)
    tasks: dict[str, list[str]] = defaultdict(list)
    for s in sorted(scores, key=lambda s: (s.task_id, s.trial)):
        by_setting[setting_of(s)].append(outcomes_of(s))
        tasks[setting_of(s)].append(s.task_id)
    everything = [o for streams in by_setting.values() for o in streams]
    every_task = [t for ids in tasks.values() for t in ids]
    return {
        "label": label,
        "n_episodes": len(scores),
        "n_tasks": len({s.task_id for s in scores}),
        "passed": sum(s.passed for s in scores),
        "infra_errors": sum(s.infra_error for s in scores),
        "incomplete": sum(not s.metrics or s.end_reason != "recommended" for s in scores),
        **stream_summary(everything, clusters=every_task, seed=seed),
        "by_setting": {
            k: stream_summary(v, clusters=tasks[k], seed=seed)
            for k, v in sorted(by_setting.items())
        },
    }


def _n(v: Any, digits: int = 1) -> str:
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def _slope(g: dict[str, Any]) -> str:
    lo, hi = g["slope_ci"]
    verdict = "learns" if g.get("learns") else "no learning shown"
    return f"{_n(g['slope'], 2)}  [{_n(lo, 2)}, {_n(hi, 2)}]  {verdict}"


def stream_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    g = group
    ilo, ihi = g["improvement_ci"]
    rows = [
        *run_rows(g),
        ("streams / tasks", f"{g['n_episodes']} / {g['n_tasks']}"),
        ("incomplete streams", f"{g['incomplete']} (missing episodes: regret = best)"),
        ("infrastructure errors", str(g["infra_errors"])),
        (
            "average regret",
            f"{_n(g['avg_regret'])}  (ep1 {_n(g['regret_at_1'])}, "
            f"ep5 {_n(g['regret_at_5'])}, ep10 {_n(g['regret_at_10'])})",
        ),
        ("improvement ep10 − ep1", f"{_n(g['improvement'])}  [{_n(ilo)}, {_n(ihi)}]"),
        ("slope per episode", _slope(g)),
        ("questions per episode", _n(g["avg_questions"], 2)),
        (
            "top-1 / top-3 / top-5",
            " / ".join(f"{_n(100 * g[k])}%" for k in ("top1", "top3", "top5")),
        ),
    ]
    for setting, sg in g["by_setting"].items():
        rows.append((setting, f"regret {_n(sg['avg_regret'])}, slope {_slope(sg)}"))
    curve = " ".join(f"{p['regret']:.0f}±{p['regret_se']:.0f}" for p in g["curve"])
    rows.append(("regret by episode (±SE)", curve))
    return rows


def stream_view(score: EpisodeScore, events: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The stream's episodes in order: what was recommended, the feedback heard, regret,
    rank and questions; None for another kind."""
    if score.kind != "stream":
        return None
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


EVALUATOR_KINDS.register("stream")(
    EvaluatorKind(
        score=score_stream,
        aggregate_group=aggregate_streams,
        summary_rows=stream_rows,
        view=KindView("stream", lambda score, task, events, title_of: stream_view(score, events)),
    )
)
