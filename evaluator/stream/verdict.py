"""When a run and its control can say "learns from feedback", and the test that says it.

A control run (feedback scrambled or withheld) is the counterfactual of a feedback run:
an agent that does no better with feedback than without has not learned from it. The
comparison means that only when nothing but the feedback differs between the two arms,
so a verdict needs three things of the pair; each one missing is named in the contrast's
`verdict_note`, and the verdict is then not given:

- **the same agent.** Every log header records the agent's identity (kind, model and
  settings; a custom agent's class and a digest of its code: `agent_identity`). Two
  groups that record different identities, or (played as separate runs) none, are not
  known to be one agent: a label alone can be borrowed.
- **arms assigned at random within one run.** `taurec run --with-control` plans both
  arms in one sealed plan, each (task, trial) slot given to an arm at random, each with
  its own seed and episode order. Two separately played runs differ by whatever differs
  between runs (a rule drawn at start, a provider's quality on the day), which no
  resampling of streams can see: such a pair gets its contrast, never the verdict.
- **a blind control.** Scrambled feedback (`--feedback shuffled`) has the form of the
  real thing; withheld feedback is missing where feedback is due, so an agent could tell
  the control and do worse there on purpose. Every eligible control must be beaten,
  and at least one of them must be blind.

The test is a permutation test on arms: per stream (task) the statistic is the mean slope
of regret over the run arm's trials minus that over the control arm's, averaged over
the streams of a scope (all of them, or one setting's) that both arms played; the arms'
labels are then permuted among each stream's trials (the assignment the plan drew at
random; with one trial per arm, a sign flip), `N_PERMUTATIONS` times. A scope's
one-sided p-value is the share of permutations whose statistic is at most the observed
one (the observed counted among them). An agent may learn in one setting only (a
customer's tastes can be learnt where the customer stays, variable_category), so every
scope is tested, and the p-values are adjusted for testing several (Westfall and
Young's min-p, over the same permutations): a scope learns from feedback when its
adjusted p ≤ `ALPHA`, and the agent does ("learns from feedback") when any scope does.
Under the null (the agent acts the same in both arms) the arms are exchangeable within a
stream whatever the agent shares across streams or over time, so the rate of false
verdicts is at most ALPHA, for the agent as for each scope.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from taurec.evaluator.stream.metrics import slopes
from taurec.tasks.stream.protocol import FeedbackMode
from taurec.tasks.trajectory.format import AgentInfo

#: The verdict's one-sided level (the interval's 95%, one side of it).
ALPHA: Final = 0.025
N_PERMUTATIONS: Final = 4000
#: What an identity recorded by a harness that reports none looks like.
UNKNOWN_AGENT: Final = AgentInfo(label="unknown").identity()

#: per task: every trial's regret curve (by played position)
Trials = Mapping[str, Sequence[Sequence[float]]]


def _permuted(
    run: Trials, control: Trials, rng: np.random.Generator, n_perm: int
) -> tuple[float, np.ndarray, int]:
    """(the observed statistic, its `n_perm` permuted values, the streams compared)."""
    observed = 0.0
    drawn = np.zeros(n_perm)
    used = 0
    for task in sorted(set(run) & set(control)):
        curves = [*run[task], *control[task]]
        if not run[task] or not control[task] or len({len(c) for c in curves}) != 1:
            continue
        if len(curves[0]) < 2:
            continue
        s = slopes(np.array(curves, dtype=float))
        k = len(run[task])
        observed += float(s[:k].mean() - s[k:].mean())
        shuffled = rng.permuted(np.tile(s, (n_perm, 1)), axis=1)
        drawn += shuffled[:, :k].mean(axis=1) - shuffled[:, k:].mean(axis=1)
        used += 1
    if used == 0:
        return 0.0, drawn, 0
    return observed / used, drawn / used, used


def _p(observed: float, drawn: np.ndarray) -> float:
    return (1 + int(np.sum(drawn <= observed + 1e-12))) / (1 + len(drawn))


def permutation_p(
    run: Trials, control: Trials, *, seed: int = 0, n_perm: int = N_PERMUTATIONS
) -> tuple[float, int]:
    """(the one-sided p-value that the run's slopes are no lower than the control's, the
    streams compared): the arms' labels permuted among each stream's trials. Streams
    whose curves differ in length are compared each on its own; a stream is used when
    both arms played it with curves of two or more episodes. p is 1.0 with no stream."""
    observed, drawn, used = _permuted(run, control, np.random.default_rng(seed), n_perm)
    return (_p(observed, drawn), used) if used else (1.0, 0)


def scope_tests(
    scopes: Mapping[str, tuple[Trials, Trials]],
    *,
    seed: int = 0,
    n_perm: int = N_PERMUTATIONS,
) -> dict[str, tuple[float, float, int]]:
    """Per scope: (p-value, p-value adjusted for testing every scope, streams compared).
    `scopes` are disjoint sets of streams (settings) except "all", their union; each
    setting's permutations are drawn once and "all" is made of them, so the adjustment
    (min-p) sees the scopes' dependence."""
    rng = np.random.default_rng(seed)
    parts = {
        name: _permuted(run, control, rng, n_perm)
        for name, (run, control) in scopes.items()
        if name != "all"
    }
    used = {k: v for k, v in parts.items() if v[2]}
    if "all" in scopes and used:
        total = sum(v[2] for v in used.values())
        observed = sum(v[0] * v[2] for v in used.values()) / total
        drawn = np.sum([v[1] * v[2] for v in used.values()], axis=0) / total
        used["all"] = (observed, drawn, total)
    if not used:
        return {name: (1.0, 1.0, 0) for name in scopes}
    raw = {k: _p(o, d) for k, (o, d, _) in used.items()}
    # each permutation's p-value in each scope, and the least of them: min-p's null
    least = np.min(
        [
            (np.searchsorted(np.sort(d), d, side="right") + 1) / (1 + len(d))
            for _, d, _ in used.values()
        ],
        axis=0,
    )
    out = {name: (1.0, 1.0, 0) for name in scopes}
    for k, p in raw.items():
        adjusted = (1 + int(np.sum(least <= p + 1e-12))) / (1 + n_perm)
        out[k] = (p, max(p, adjusted), used[k][2])
    return out


def trials_of(by_task: Mapping[str, Mapping[str, Any]], setting: str | None) -> dict[str, Any]:
    """A group's per-trial curves by task (of one setting, or all)."""
    return {
        t: v.get("trials") or [v["regret"]]
        for t, v in by_task.items()
        if setting is None or v["setting"] == setting
    }


def eligibility(run: Mapping[str, Any], control: Mapping[str, Any]) -> list[str]:
    """Why this pair cannot give the verdict (nothing: it can)."""
    notes = []
    mine, theirs = run.get("agents") or [], control.get("agents") or []
    one_plan = (
        run.get("mode") == "sealed"
        and control.get("mode") == "sealed"
        and run.get("plan_id") is not None
        and run.get("plan_id") == control.get("plan_id")
    )
    if len(mine) > 1 or len(theirs) > 1:
        notes.append("the logs of an arm record more than one agent identity")
    elif mine != theirs:
        notes.append(
            f"the run's agent ({_shown(mine)}) is not the control's ({_shown(theirs)}): "
            "the same label does not make the same agent"
        )
    elif not one_plan and UNKNOWN_AGENT in mine:
        notes.append(
            "the logs record no agent identity (kind, model, settings), so nothing shows "
            "the two runs played the same agent"
        )
    if not one_plan:
        notes.append(
            "the run and the control were played as separate runs, which can differ by "
            "more than the feedback (a choice made at start, a provider's drift); play "
            "both arms in one plan: taurec run --with-control shuffled"
        )
    return notes


def _shown(identities: Sequence[str]) -> str:
    if not identities:
        return "none recorded"
    try:
        doc = json.loads(identities[0])
    except ValueError:
        return identities[0]
    bits = [str(doc.get("kind") or "unknown kind")]
    if doc.get("model"):
        bits.append(str(doc["model"]))
    bits += [f"{k}={v}" for k, v in sorted((doc.get("settings") or {}).items())]
    return ", ".join(bits)


def judge(
    contrast: dict[str, Any],
    run: Mapping[str, Any],
    control: Mapping[str, Any],
    mode: str,
    seed: int,
) -> None:
    """Set the contrast's `learns_from_feedback` (overall and per setting), its
    `permutation_p`, `eligible`, `blind` and `verdict_note`, from the two groups."""
    notes = eligibility(run, control)
    contrast["eligible"] = not notes
    contrast["blind"] = FeedbackMode(mode).blind
    contrast["verdict_note"] = "; ".join(notes) or None
    settings = dict(contrast.get("by_setting", {}))
    tests = scope_tests(
        {
            name: (trials_of(run["by_task"], s), trials_of(control["by_task"], s))
            for name, s in [("all", None), *((s, s) for s in settings)]
        },
        seed=seed,
    )
    for name, scope in [("all", contrast), *settings.items()]:
        p, adjusted, n = tests[name]
        scope["permutation_p"] = p if n else None
        scope["adjusted_p"] = adjusted if n else None
        scope["learns_from_feedback"] = bool(not notes and n and adjusted <= ALPHA)
    # the agent learns from feedback when any scope does (adjusted: the least adjusted p)
    found = [tests[k][1] for k in tests if tests[k][2]]
    contrast["family_p"] = min(found) if found else None
    contrast["learns_from_feedback"] = bool(not notes and found and min(found) <= ALPHA)


def overall(contrasts: Mapping[str, Mapping[str, Any]]) -> tuple[bool | None, str | None]:
    """The group's verdict over its controls (None: no control), and why it is not given
    when no control can give it."""
    if not contrasts:
        return None, None
    eligible = [c for c in contrasts.values() if c.get("eligible")]
    if not eligible:
        notes = dict.fromkeys(c["verdict_note"] for c in contrasts.values() if c["verdict_note"])
        return False, "; ".join(notes)
    if not any(c["blind"] for c in eligible):
        return False, (
            "no blind control: withheld feedback can be told from feedback where it is "
            "missing; add a scrambled-feedback arm (taurec run --with-control shuffled)"
        )
    return all(c["learns_from_feedback"] for c in eligible), None
