"""The "stream" kind (BIEL) in the evaluator: replay a stream's log, score its episodes,
and report learning curves per label (overall and per setting).

Scoring replays the log: every accepted call (a tool result without an error) is run
again, in order, on a fresh `StreamSession` of the task with the log's seed and the
protocol its header records (feedback as the task's, withheld or scrambled; BIEL's or
taurec's rules; the episode order), and its result must equal the logged one (else a
replay mismatch: the log was not produced by these rules, or was edited). An LLM
customer's words are not replayable and are not compared; nor are the customer's words
in a log whose header records no protocol (written before the customer and the
feedback took their current words). The replayed session then says what was picked in
each episode and how many questions were asked; utilities come from the task (hashed
into the log header), so no LLM and no trust in the logged feedback is needed.

Per-episode numbers travel in `EpisodeScore.metrics` (see `episode_metrics`): the
regret, questions and rank of each played position k, the setting, the feedback mode,
the interim picks of planning runs and any stated confidence. A run under another
protocol than the default is reported under its label plus a note (contrast.py's
`protocol_note`: " (feedback none)", " (rules taurec, shuffled order)", ...), so runs
under different protocols are never pooled.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.kinds import EVALUATOR_KINDS, EvaluatorKind, KindView
from taurec.evaluator.stream.calibration import calibration_summary, planning_summary
from taurec.evaluator.stream.contrast import base_label, compare_stream_groups, protocol_note
from taurec.evaluator.stream.episode_metrics import SETTING_PREFIX, episode_metrics
from taurec.evaluator.stream.metrics import EpisodeOutcome, score_choice, stream_summary
from taurec.evaluator.stream.rows import stream_rows
from taurec.tasks.stream.protocol import LEGACY, protocol_of
from taurec.tasks.stream.session import ACTIONS, StreamRuleError, StreamSession
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.payloads import payload

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver, SuiteContext

READ_ONLY = {"current_episode": lambda s, a: s.view()}
#: Result fields holding the customer's words (not replayable when an LLM wrote them).
_WORDS = {"ask_question": ("answer",), "recommend_item": ("feedback",)}


def replay_stream(
    task: StreamTask, trajectory: Trajectory
) -> tuple[StreamSession, list[str], list[int]]:
    """The session as the log's accepted calls leave it, the mismatches, and the questions
    asked in each played episode."""
    simulator = trajectory.header.simulator
    recorded = protocol_of(simulator.settings)
    session = StreamSession(task, trajectory.header.seed, protocol=recorded or LEGACY)
    rule_words = simulator.kind == "rule" and recorded is not None
    calls: dict[str, dict[str, Any]] = {}
    mismatches: list[str] = []
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
        try:
            result = action(session, arguments)
        except (StreamRuleError, KeyError, ValueError) as exc:
            mismatches.append(
                f"seq {event['seq']}: {name} was accepted but the rules refuse it: {exc}"
            )
            continue
        replayed, logged = result.model_dump(mode="json"), payload(event.get("content"))
        if not rule_words and isinstance(logged, dict):  # an LLM's words cannot be replayed
            for key in _WORDS.get(name, ()):
                replayed.pop(key, None)
                logged = {k: v for k, v in logged.items() if k != key}
        if replayed != logged:
            mismatches.append(f"seq {event['seq']}: {name} result differs from the replayed one")
    # the episode in progress counts its questions only if it has no recommendation yet
    questions = session.asked + ([] if session.recommended else [session.questions])
    return session, mismatches, questions + [0] * (len(task.episodes) - len(questions))


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
            session.played(n).utilities,
            session.chosen[n] if n < len(session.chosen) else None,
            questions[n],
        )
        for n in range(len(task.episodes))
    ]
    metrics = episode_metrics(session, outcomes)
    mean_regret = sum(o.regret for o in outcomes) / len(outcomes)
    reason = str(end.get("reason", "none"))
    score = EpisodeScore(
        path=path,
        label=header.agent.label + protocol_note(session.protocol),
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


def by_task(scores: list[EpisodeScore]) -> dict[str, dict[str, Any]]:
    """Per task: its setting, its regret curve averaged over the task's trials (what
    contrast.py pairs a run's streams with its control's by) and each trial's curve in
    trial order (what verdict.py permutes)."""
    curves: dict[str, list[tuple[int, list[float]]]] = defaultdict(list)
    setting: dict[str, str] = {}
    for s in scores:
        curves[s.task_id].append((s.trial, [o.regret for o in outcomes_of(s)]))
        setting[s.task_id] = setting_of(s)
    out = {}
    for t, found in sorted(curves.items()):
        c = [curve for _, curve in sorted(found, key=lambda f: f[0])]
        if c and all(len(x) == len(c[0]) for x in c) and c[0]:
            mean = [float(x) for x in np.mean(c, axis=0)]
            out[t] = {"setting": setting[t], "regret": mean, "trials": c}
    return out


def aggregate_streams(label: str, scores: list[EpisodeScore], seed: int) -> dict[str, Any]:
    """The label's learning curve and summary, overall and per setting; planning and
    calibration figures when the run made interim picks or stated confidences."""
    by_setting: dict[str, list[list[EpisodeOutcome]]] = defaultdict(list)
    tasks: dict[str, list[str]] = defaultdict(list)
    for s in sorted(scores, key=lambda s: (s.task_id, s.trial)):
        by_setting[setting_of(s)].append(outcomes_of(s))
        tasks[setting_of(s)].append(s.task_id)
    everything = [o for streams in by_setting.values() for o in streams]
    every_task = [t for ids in tasks.values() for t in ids]
    return {
        "label": label,
        "feedback": base_label(label)[1],
        "n_episodes": len(scores),
        "n_tasks": len({s.task_id for s in scores}),
        "agents": sorted({s.agent_identity for s in scores if s.agent_identity is not None}),
        "passed": sum(s.passed for s in scores),
        "infra_errors": sum(s.infra_error for s in scores),
        "incomplete": sum(not s.metrics or s.end_reason != "recommended" for s in scores),
        **stream_summary(everything, clusters=every_task, seed=seed),
        "by_setting": {
            k: stream_summary(v, clusters=tasks[k], seed=seed)
            for k, v in sorted(by_setting.items())
        },
        "planning": planning_summary(scores),
        "calibration": calibration_summary(scores),
        "by_task": by_task(scores),
    }


def stream_view(score: EpisodeScore, events: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The stream's episodes in order: what was recommended, the feedback heard, regret,
    rank and questions; None for another kind."""
    if score.kind != "stream":
        return None
    heard: dict[int, dict[str, Any]] = {}
    for ev in events:
        content = payload(ev.get("content"))
        if (
            ev.get("type") == "tool_result"
            and isinstance(content, dict)
            and "feedback" in content
            and not content.get("counted_as_question")
        ):
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
        compare=compare_stream_groups,
        graded=False,
    )
)
