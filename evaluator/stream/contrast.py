"""Did the agent learn from feedback? The paired contrast of a run with its control.

A falling regret curve (a negative slope) shows improvement over episodes, and an agent
can show one without reading any feedback: a fixed schedule of better-ranked picks is
enough. Learning from feedback is measured against a control run: the same agent on
the same suite with the feedback scrambled (`--feedback shuffled`) or withheld
(`--feedback none`). Per stream (task), the contrast is the run's slope of regret over
episodes minus the control's, and likewise the mean regret; their means over the
streams both runs played come with studentized (bootstrap-t) intervals that resample
streams (each stream's run and control together, so the pairing is kept), to show the
size of the effect. The verdict "learns from feedback" is verdict.py's: a permutation
test on arms, given only when the pair is one agent, its arms were assigned at random
within one plan (`taurec run --with-control`) and a blind control is among them.
Overall and per setting.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Final

import numpy as np

from taurec.evaluator.stream.metrics import DEFAULT_BOOTSTRAP, slopes, studentized_interval
from taurec.evaluator.stream.verdict import judge, overall
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol, StreamRules

#: A group label's note on its run's protocol: "learner (shuffled order, feedback none)".
_NOTED = re.compile(r"(?P<label>.*) \((?P<notes>[^()]*)\)")
FEEDBACK_NOTE: Final = "feedback "


def protocol_note(protocol: StreamProtocol) -> str:
    """What a group label adds for a protocol other than the default: the rules, the
    episode order and the feedback mode (last), e.g. " (rules taurec, feedback none)".
    Runs under different protocols are never pooled, and a run pairs only with controls
    played under the same rules and order."""
    notes = []
    if protocol.rules is not StreamRules.BIEL:
        notes.append(f"rules {protocol.rules.value}")
    if protocol.shuffle_order:
        notes.append("shuffled order")
    if protocol.feedback is not FeedbackMode.TASK:
        notes.append(f"{FEEDBACK_NOTE}{protocol.feedback.value}")
    return f" ({', '.join(notes)})" if notes else ""


def base_label(label: str) -> tuple[str, str]:
    """(the group label without its feedback note, the feedback mode) of a group label."""
    m = _NOTED.fullmatch(label)
    if m is None:
        return label, "task"
    notes = m.group("notes").split(", ")
    mode = next((n.removeprefix(FEEDBACK_NOTE) for n in notes if n.startswith(FEEDBACK_NOTE)), None)
    if mode is None:
        return label, "task"
    rest = [n for n in notes if not n.startswith(FEEDBACK_NOTE)]
    return (f"{m.group('label')} ({', '.join(rest)})" if rest else m.group("label")), mode


def _slope(curve: list[float]) -> float:
    return float(slopes(np.array([curve], dtype=float))[0])


def paired_contrast(
    run: dict[str, list[float]],
    control: dict[str, list[float]],
    *,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> dict[str, Any]:
    """The contrast of two runs' per-stream regret curves (task id -> mean regret by
    episode), over the streams both played with the same number of episodes (two or
    more; streams of different lengths may mix)."""
    common = sorted(
        t for t in run if t in control and len(run[t]) == len(control[t]) and len(run[t]) >= 2
    )
    out: dict[str, Any] = {
        "streams": len(common),
        "slope_contrast": math.nan,
        "slope_contrast_ci": [math.nan, math.nan],
        "regret_contrast": math.nan,
        "regret_contrast_ci": [math.nan, math.nan],
        "ci_below_zero": False,
    }
    if not common:
        return out
    # per stream (streams of a suite may differ in length)
    slope_diff = np.array([_slope(run[t]) - _slope(control[t]) for t in common])
    regret_diff = np.array([np.mean(run[t]) - np.mean(control[t]) for t in common])
    out["slope_contrast"] = float(slope_diff.mean())
    out["regret_contrast"] = float(regret_diff.mean())
    if len(common) < 2:
        return out
    picks = np.random.default_rng(seed).integers(0, len(common), size=(n_boot, len(common)))
    out["slope_contrast_ci"] = studentized_interval(slope_diff, picks)
    out["regret_contrast_ci"] = studentized_interval(regret_diff, picks)
    out["ci_below_zero"] = bool(out["slope_contrast_ci"][1] < 0)
    return out


def contrast_report(
    run: dict[str, dict[str, Any]], control: dict[str, dict[str, Any]], seed: int
) -> dict[str, Any]:
    """Overall and per setting, from two groups' `by_task` (task -> setting, regret)."""

    def curves(by_task: dict[str, dict[str, Any]], setting: str | None) -> dict[str, list[float]]:
        return {
            t: v["regret"] for t, v in by_task.items() if setting is None or v["setting"] == setting
        }

    settings = sorted({v["setting"] for v in run.values()})
    return {
        **paired_contrast(curves(run, None), curves(control, None), seed=seed),
        "by_setting": {
            s: paired_contrast(curves(run, s), curves(control, s), seed=seed) for s in settings
        },
    }


def _same_plan(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("plan_id") is not None and a.get("plan_id") == b.get("plan_id")


def compare_stream_groups(groups: list[dict[str, Any]], seed: int = 0) -> None:
    """Give each run's group (feedback as the task's) the contrast with every control
    group of the same agent label and suite (one per feedback mode: the one played in
    the same plan first): `feedback_contrast[mode]`, each judged by verdict.py, and the
    verdict `learns_from_feedback` (None when there is no control to compare with) with
    `verdict_note` saying why it is not given when no control can give it."""
    controls: dict[tuple[str, Any], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for g in groups:
        label, mode = base_label(g["label"])
        if mode != "task":
            controls[(label, g["suite"]["sha256"])].append((mode, g))
    for g in groups:
        label, mode = base_label(g["label"])
        if mode != "task":
            continue
        found: dict[str, dict[str, Any]] = {}
        for m, c in controls.get((label, g["suite"]["sha256"]), []):
            if m not in found or (_same_plan(g, c) and not _same_plan(g, found[m])):
                found[m] = c
        contrasts = {}
        for m, c in sorted(found.items()):
            contrasts[m] = contrast_report(g["by_task"], c["by_task"], seed)
            judge(contrasts[m], g, c, m, seed)
        g["feedback_contrast"] = contrasts
        g["learns_from_feedback"], g["verdict_note"] = overall(contrasts)
