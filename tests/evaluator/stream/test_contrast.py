"""The paired contrast of a run with its control run: how much faster the run's regret
falls than the control's, stream by stream, with an interval; runs are paired with
their controls by label and suite (verdict.py decides the verdict: test_verdict.py)."""

from __future__ import annotations

import math

import numpy as np

from taurec.evaluator.stream.contrast import (
    base_label,
    compare_stream_groups,
    contrast_report,
    paired_contrast,
    protocol_note,
)
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol, StreamRules

FALLING = [40.0 - 3 * k for k in range(10)]  # slope -3
FLAT = [35.0] * 10


def curves(curve: list[float], n: int = 20, jitter: float = 0.0) -> dict[str, list[float]]:
    rng = np.random.default_rng(1)
    return {f"t{k:02d}": [x + jitter * rng.normal() for x in curve] for k in range(n)}


def test_a_run_that_falls_against_a_flat_control_learns_from_feedback() -> None:
    out = paired_contrast(curves(FALLING, jitter=2), curves(FLAT, jitter=2))
    assert out["streams"] == 20
    assert math.isclose(out["slope_contrast"], -3.0, abs_tol=0.5)
    assert out["slope_contrast_ci"][1] < 0 and out["ci_below_zero"]
    assert out["regret_contrast"] < 0


def test_the_same_curve_with_and_without_feedback_is_no_learning() -> None:
    same = curves(FALLING)
    out = paired_contrast(same, same)
    assert out["slope_contrast"] == 0.0 and out["slope_contrast_ci"] == [0.0, 0.0]
    assert not out["ci_below_zero"]


def test_only_streams_both_runs_played_are_paired() -> None:
    run = curves(FALLING, n=5)
    control = {k: v for k, v in curves(FLAT, n=5).items() if k != "t00"}
    control["other"] = FLAT
    assert paired_contrast(run, control)["streams"] == 4


def test_one_stream_gives_a_contrast_without_an_interval() -> None:
    out = paired_contrast({"a": FALLING}, {"a": FLAT})
    assert math.isclose(out["slope_contrast"], -3.0)
    assert all(math.isnan(x) for x in out["slope_contrast_ci"])
    assert not out["ci_below_zero"]


def test_the_report_has_each_setting() -> None:
    run = {
        "a": {"setting": "variable_category", "regret": FALLING},
        "b": {"setting": "variable_persona", "regret": FLAT},
    }
    report = contrast_report(run, run, seed=0)
    assert set(report["by_setting"]) == {"variable_category", "variable_persona"}
    assert report["by_setting"]["variable_category"]["streams"] == 1


def test_control_labels_name_their_mode() -> None:
    assert base_label("learner (feedback none)") == ("learner", "none")
    assert base_label("learner (feedback shuffled)") == ("learner", "shuffled")
    assert base_label("gpt (feedback) x") == ("gpt (feedback) x", "task")


def test_other_protocols_stay_in_the_label_so_runs_pair_only_with_their_like() -> None:
    note = protocol_note(StreamProtocol(rules=StreamRules.TAUREC, shuffle_order=True))
    assert note == " (rules taurec, shuffled order)"
    control = protocol_note(StreamProtocol(shuffle_order=True, feedback=FeedbackMode.NONE))
    assert control == " (shuffled order, feedback none)"
    assert base_label("learner" + control) == ("learner (shuffled order)", "none")
    assert base_label("learner (shuffled order)") == ("learner (shuffled order)", "task")
    assert protocol_note(StreamProtocol()) == ""


AGENT = '{"kind": "learner", "model": null, "settings": {}}'


def group(
    label: str, curve: list[float], sha: str = "s", plan: str | None = "p1"
) -> dict[str, object]:
    by_task = {
        t: {"setting": "variable_category", "regret": c, "trials": [c]}
        for t, c in curves(curve, jitter=1.0).items()
    }
    return {
        "label": label,
        "suite": {"sha256": sha},
        "by_task": by_task,
        "mode": "sealed" if plan else "open",
        "plan_id": plan,
        "agents": [AGENT],
    }


def test_groups_are_paired_by_label_and_suite() -> None:
    run, control = group("learner", FALLING), group("learner (feedback shuffled)", FLAT)
    alone, elsewhere = group("popularity", FLAT), group("learner (feedback none)", FLAT, "x")
    groups = [run, control, alone, elsewhere]
    compare_stream_groups(groups)  # type: ignore[arg-type]
    assert run["learns_from_feedback"] is True
    assert set(run["feedback_contrast"]) == {"shuffled"}  # type: ignore[arg-type]
    assert alone["learns_from_feedback"] is None and alone["feedback_contrast"] == {}
    assert "feedback_contrast" not in control


def test_with_two_controls_it_must_beat_both() -> None:
    run = group("learner", FALLING)
    groups = [
        run,
        group("learner (feedback none)", FLAT),
        group("learner (feedback shuffled)", FALLING),
    ]
    compare_stream_groups(groups)  # type: ignore[arg-type]
    assert run["learns_from_feedback"] is False
    withheld = run["feedback_contrast"]["none"]  # type: ignore[index]
    assert withheld["beaten"] and not withheld["learns_from_feedback"]  # it is not blind


def test_a_control_of_the_same_plan_is_preferred_to_one_played_apart() -> None:
    run = group("learner", FALLING)
    apart, same = (
        group("learner (feedback shuffled)", FLAT, plan="p2"),
        group("learner (feedback shuffled)", FLAT),
    )
    compare_stream_groups([run, apart, same])  # type: ignore[list-item]
    assert run["learns_from_feedback"] is True


def test_streams_of_different_lengths_are_contrasted_each_on_its_own() -> None:
    run = {"long": FALLING, "short": FALLING[:4], "one": [5.0]}
    control = {"long": FLAT, "short": FLAT[:4], "one": [5.0]}
    out = paired_contrast(run, control)
    assert out["streams"] == 2 and math.isclose(out["slope_contrast"], -3.0)
