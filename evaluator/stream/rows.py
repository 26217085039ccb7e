"""The stream kind's rows in `evaluator score`'s table: one label's curve and verdicts.

"improves" reads the slope of regret over episodes (a CI wholly below 0); "learns from
feedback" reads the paired contrast with a control run (contrast.py, judged by
verdict.py: its permutation p-value, or why the pair cannot give the verdict) and
appears only when the logs hold a control. Abandoned streams are shown both ways: regret = best for the
episodes never reached (taurec), and the mean over reached episodes (BIEL's leaderboard).
"""

from __future__ import annotations

from typing import Any

from taurec.evaluator.render import run_rows

FEEDBACK_NAMES = {
    "task": "the task's",
    "none": "withheld (a control run)",
    "shuffled": "scrambled (a control run)",
}


def _n(v: Any, digits: int = 1) -> str:
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def _slope(g: dict[str, Any]) -> str:
    lo, hi = g["slope_ci"]
    verdict = "improves" if g.get("improves") else "no improvement shown"
    return f"{_n(g['slope'], 2)}  [{_n(lo, 2)}, {_n(hi, 2)}]  {verdict}"


def _contrast(c: dict[str, Any], note: str | None = None) -> str:
    slo, shi = c["slope_contrast_ci"]
    rlo, rhi = c["regret_contrast_ci"]
    verdict = (
        "learns from feedback"
        if c.get("learns_from_feedback")
        else "beats it, but the control is not blind"
        if c.get("beaten")
        else "not shown to learn"
    )
    p, adjusted = c.get("permutation_p"), c.get("adjusted_p")
    tested = ""
    if p is not None and not note:
        tested = f" (permutation p {p:.3f}" + (
            f", adjusted {adjusted:.3f})" if adjusted is not None else ")"
        )
    why = f" ({note})" if note else ""
    return (
        f"slope {_n(c['slope_contrast'], 2)} [{_n(slo, 2)}, {_n(shi, 2)}], regret "
        f"{_n(c['regret_contrast'])} [{_n(rlo)}, {_n(rhi)}] over {c['streams']} streams: "
        f"{verdict}{tested}{why}"
    )


def _abandoned(g: dict[str, Any]) -> list[tuple[str, str]]:
    if not g.get("abandoned"):
        return []
    gap = g["avg_regret"] - g["avg_regret_reached"]
    return [
        (
            "abandoned streams",
            f"{g['abandoned']}: average regret {_n(g['avg_regret'])} with unreached episodes "
            f"as regret = best (taurec), {_n(g['avg_regret_reached'])} over reached episodes "
            f"only (BIEL's leaderboard); the difference, {_n(gap)}, is what quitting saves "
            "under BIEL's convention",
        )
    ]


def _planning(g: dict[str, Any]) -> list[tuple[str, str]]:
    points = g.get("planning") or []
    if not points:
        return []
    text = " ".join(f"q{p['questions']}:{p['regret']:.0f}" for p in points)
    return [("interim regret by questions asked", text)]


def _calibration(g: dict[str, Any]) -> list[tuple[str, str]]:
    c = g.get("calibration")
    if not c:
        return []
    rows = []
    for field, name in (("favorite", "P(best)"), ("top5", "P(top 5)")):
        f = c.get(field)
        if f:
            rows.append(
                (
                    f"calibration {name}",
                    f"stated {_n(100 * f['stated'])}%, observed {_n(100 * f['observed'])}%, "
                    f"ECE {_n(f['ece'], 3)}, Brier {_n(f['brier'], 3)} (n {f['n']})",
                )
            )
    if p := c.get("predicted_regret"):
        rows.append(
            (
                "predicted regret",
                f"MAE {_n(p['mae'])}, bias {_n(p['bias'])} (predicted − actual, n {p['n']})",
            )
        )
    return rows


def stream_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    g = group
    ilo, ihi = g["improvement_ci"]
    rows = [
        *run_rows(g),
        ("feedback", FEEDBACK_NAMES.get(g.get("feedback", "task"), "?")),
        ("streams / tasks", f"{g['n_episodes']} / {g['n_tasks']}"),
        ("incomplete streams", f"{g['incomplete']} (missing episodes: regret = best)"),
        ("infrastructure errors", str(g["infra_errors"])),
        (
            "average regret",
            f"{_n(g['avg_regret'])}  (ep1 {_n(g['regret_at_1'])}, "
            f"ep5 {_n(g['regret_at_5'])}, ep10 {_n(g['regret_at_10'])})",
        ),
        *_abandoned(g),
        ("improvement ep10 − ep1", f"{_n(g['improvement'])}  [{_n(ilo)}, {_n(ihi)}]"),
        ("slope per episode", _slope(g)),
    ]
    for mode, c in (g.get("feedback_contrast") or {}).items():
        rows.append((f"vs feedback {mode} (paired)", _contrast(c, c.get("verdict_note"))))
    if g.get("learns_from_feedback") is not None:
        verdict = "yes" if g["learns_from_feedback"] else "not shown"
        found = [
            f"{mode} {c['family_p']:.3f}"
            for mode, c in (g.get("feedback_contrast") or {}).items()
            if c.get("family_p") is not None and c.get("eligible")
        ]
        least = f" (least adjusted p: {', '.join(found)})" if found else ""
        why = f": {g['verdict_note']}" if g.get("verdict_note") else least
        rows.append(("learns from feedback", verdict + why))
    rows += [
        ("questions per episode", _n(g["avg_questions"], 2)),
        (
            "top-1 / top-3 / top-5",
            " / ".join(f"{_n(100 * g[k])}%" for k in ("top1", "top3", "top5")),
        ),
    ]
    for setting, sg in g["by_setting"].items():
        rows.append((setting, f"regret {_n(sg['avg_regret'])}, slope {_slope(sg)}"))
        for mode, c in (g.get("feedback_contrast") or {}).items():
            sc = c["by_setting"].get(setting)
            if sc:
                rows.append((f"  vs feedback {mode}", _contrast(sc, c.get("verdict_note"))))
    rows += _planning(g) + _calibration(g)
    curve = " ".join(f"{p['regret']:.0f}±{p['regret_se']:.0f}" for p in g["curve"])
    rows.append(("regret by episode (±SE)", curve))
    return rows
