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
  and at least one of them must be blind; a scope beats a control that is not blind
  (`beaten`) without "learns from feedback".

The test is a permutation test on arms. Two statistics are tested (`STATISTICS`), per
stream (task) the run arm's mean over its trials minus the control arm's, averaged over
the streams of a scope (all of them, or one setting's) that both arms played: the slope
of regret over the episodes (does regret fall faster with the feedback?) and the mean
regret after the first episode (does the feedback lower it? No feedback of the stream
has reached the first episode yet). The arms' labels are then permuted among each
stream's trials (the assignment the plan drew at random; with one trial per arm, a sign
flip), `N_PERMUTATIONS` times. A test's one-sided p-value is the share of permutations
whose statistic is at most the observed one (the observed counted among them). An agent
may learn in one setting only (a customer's tastes can be learnt where the customer
stays, variable_category), so every scope is tested with both statistics, and the
p-values are adjusted for testing several (Westfall and Young's min-p, over the same
permutations): a scope learns from feedback when either of its adjusted p-values is at
most `ALPHA`, and the agent does ("learns from feedback") when any scope does.
Under the null (the agent acts the same in both arms) the arms are exchangeable within a
stream whatever the agent shares across streams or over time, so the rate of false
verdicts is at most ALPHA, for the agent as for each scope.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
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


#: The statistics tested, each per trial's regret curve: its slope over the episodes, and
#: its mean after the first episode (which no feedback of the stream can reach yet).
STATISTICS: Final[dict[str, Callable[[np.ndarray], np.ndarray]]] = {
    "slope": slopes,
    "regret": lambda curves: curves[:, 1:].mean(axis=1),
}


def _permuted(
    run: Trials, control: Trials, rng: np.random.Generator, n_perm: int
) -> dict[str, tuple[float, np.ndarray, int]]:
    """Per statistic: (the observed run − control difference averaged over streams, its
    `n_perm` values with the arms' labels permuted among each stream's trials (the same
    permutations for every statistic), the streams compared)."""
    observed = dict.fromkeys(STATISTICS, 0.0)
    drawn = {name: np.zeros(n_perm) for name in STATISTICS}
    used = 0
    for task in sorted(set(run) & set(control)):
        curves = [*run[task], *control[task]]
        if not run[task] or not control[task] or len({len(c) for c in curves}) != 1:
            continue
        if len(curves[0]) < 2:
            continue
        k = len(run[task])
        order = rng.permuted(np.tile(np.arange(len(curves)), (n_perm, 1)), axis=1)
        for name, statistic in STATISTICS.items():
            v = statistic(np.array(curves, dtype=float))
            observed[name] += float(v[:k].mean() - v[k:].mean())
            shuffled = v[order]
            drawn[name] += shuffled[:, :k].mean(axis=1) - shuffled[:, k:].mean(axis=1)
        used += 1
    div = max(used, 1)
    return {name: (observed[name] / div, drawn[name] / div, used) for name in STATISTICS}


def _p(observed: float, drawn: np.ndarray) -> float:
    return (1 + int(np.sum(drawn <= observed + 1e-12))) / (1 + len(drawn))


def permutation_p(
    run: Trials,
    control: Trials,
    *,
    seed: int = 0,
    n_perm: int = N_PERMUTATIONS,
    statistic: str = "slope",
) -> tuple[float, int]:
    """(the one-sided p-value that the run's `statistic` (slope, or regret after the
    first episode) is no lower than the control's, the streams compared): the arms'
    labels permuted among each stream's trials. Streams whose curves differ in length
    are compared each on their own; a stream is used when both arms played it with
    curves of two or more episodes. p is 1.0 with no stream."""
    observed, drawn, used = _permuted(run, control, np.random.default_rng(seed), n_perm)[statistic]
    return (_p(observed, drawn), used) if used else (1.0, 0)


def scope_tests(
    scopes: Mapping[str, tuple[Trials, Trials]],
    *,
    seed: int = 0,
    n_perm: int = N_PERMUTATIONS,
) -> dict[str, dict[str, tuple[float, float, int]]]:
    """Per scope, per statistic: (p-value, p-value adjusted for testing every scope and
    statistic, streams compared). `scopes` are disjoint sets of streams (settings) except
    "all", their union; each setting's permutations are drawn once and "all" is made of
    them, so the adjustment (min-p) sees the tests' dependence."""
    rng = np.random.default_rng(seed)
    parts = {
        name: _permuted(run, control, rng, n_perm)
        for name, (run, control) in scopes.items()
        if name != "all"
    }
    used = {(scope, stat): v for scope, by in parts.items() for stat, v in by.items() if v[2]}
    if "all" in scopes:
        for stat in STATISTICS:
            mine = [v for (_, s), v in used.items() if s == stat]
            if mine:
                total = sum(v[2] for v in mine)
                observed = sum(v[0] * v[2] for v in mine) / total
                drawn = np.sum([v[1] * v[2] for v in mine], axis=0) / total
                used[("all", stat)] = (observed, drawn, total)
    out = {name: dict.fromkeys(STATISTICS, (1.0, 1.0, 0)) for name in scopes}
    if not used:
        return out
    # the observed statistic counts as one of the permutations (index 0): each one's
    # p-value in each test, and the least over tests, is min-p's null distribution
    values = {k: np.concatenate([[o], d]) for k, (o, d, _) in used.items()}
    pvals = {
        k: np.searchsorted(np.sort(v), v + 1e-12, side="right") / len(v) for k, v in values.items()
    }
    least = np.min(list(pvals.values()), axis=0)
    for (scope, stat), pk in pvals.items():
        adjusted = float(np.sum(least <= pk[0] + 1e-12)) / len(least)
        out[scope][stat] = (float(pk[0]), max(float(pk[0]), adjusted), used[(scope, stat)][2])
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
    """Set the contrast's `beaten` (the test says the run does better, the pair can say
    it) and `learns_from_feedback` (beaten, and the control is blind), overall and per
    setting, with `permutation_p`, `adjusted_p`, `family_p`, `eligible`, `blind` and
    `verdict_note`, from the two groups."""
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
    blind = contrast["blind"]
    adjusted_all = []
    for name, scope in [("all", contrast), *settings.items()]:
        slope, regret = tests[name]["slope"], tests[name]["regret"]
        n = slope[2]
        scope["permutation_p"] = slope[0] if n else None
        scope["adjusted_p"] = slope[1] if n else None
        scope["regret_p"] = regret[0] if n else None
        scope["regret_adjusted_p"] = regret[1] if n else None
        least = min(slope[1], regret[1])
        if n:
            adjusted_all.append(least)
        scope["beaten"] = bool(not notes and n and least <= ALPHA)
        scope["learns_from_feedback"] = scope["beaten"] and blind
    # the run beats the control when any test does (the least adjusted p); a control that
    # is not blind can be beaten by an agent that tells it apart, so only a blind one says
    # "learns from feedback"
    contrast["family_p"] = min(adjusted_all) if adjusted_all else None
    contrast["beaten"] = bool(not notes and adjusted_all and min(adjusted_all) <= ALPHA)
    contrast["learns_from_feedback"] = contrast["beaten"] and blind


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
    return all(c["beaten"] for c in eligible), None
