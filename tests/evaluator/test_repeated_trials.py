"""Two logs of one trial in one report group are flagged; two runs scored together (two
sealed plans, or open logs against two suites) each keep their own trials."""

from __future__ import annotations

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import flag_repeated_trials


def _score(path: str, *, plan_id: str | None = None, suite_id: str = "builtin") -> EpisodeScore:
    s = EpisodeScore(
        path=path,
        label="scripted",
        task_id="t001",
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="m1",
    )
    s.mode = "sealed" if plan_id else "open"
    s.plan_id, s.suite_id = plan_id, suite_id
    return s


def _flagged(scores: list[EpisodeScore]) -> list[str]:
    flag_repeated_trials(scores)
    return [s.path for s in scores if any("each counts as a trial" in p for p in s.problems)]


def test_two_logs_of_one_trial_in_one_run_are_flagged_once():
    assert _flagged([_score("a", plan_id="p1"), _score("b", plan_id="p1")]) == ["a"]


def test_two_open_logs_of_one_trial_against_one_suite_are_flagged():
    assert _flagged([_score("a"), _score("b")]) == ["a"]


def test_the_same_trial_in_two_sealed_runs_is_not_a_repeat():
    assert _flagged([_score("a", plan_id="p1"), _score("b", plan_id="p2")]) == []


def test_the_same_trial_against_two_suites_is_not_a_repeat():
    assert _flagged([_score("a", suite_id="s1"), _score("b", suite_id="s2")]) == []
