"""Scoring one episode: every end reason, no-valid-answer tasks, reward = constraint × policy."""

import pytest
from support.episodes import Episode, make_task, small_catalog

from taurec.catalog.mentions import TitleMatcher
from taurec.evaluator.recommendation.aggregate import aggregate_group, failure_mode
from taurec.evaluator.recommendation.scoring import score_episode

CATALOG = small_catalog()
TITLES = TitleMatcher(CATALOG.items)
COMEDY_ON_NETFLIX = make_task(
    constraints=[
        {"field": "genres", "op": "contains", "value": "Comedy", "reveal": "volunteer"},
        {"field": "streaming_services", "op": "contains", "value": "Netflix", "reveal": "hidden"},
    ],
    policy_flags=["recommend_tool", "watch_history"],
)
NO_VALID = make_task(
    constraints=[
        {"field": "genres", "op": "contains", "value": "Drama", "reveal": "volunteer"},
        {"field": "streaming_services", "op": "contains", "value": "Netflix", "reveal": "on_ask"},
    ],
    policy_flags=["recommend_tool", "transparency"],
    no_valid_recommendation=True,
)


def score(task, trajectory):
    return score_episode(task, trajectory, CATALOG, TITLES)


def test_a_compliant_recommendation_passes_with_reward_one():
    s = score(
        COMEDY_ON_NETFLIX,
        Episode().call("get_user_history").recommend("m4").end("recommended", "m4"),
    )
    assert (s.constraint_score, s.policy_score, s.reward, s.passed) == (1.0, 1.0, 1.0, True)
    assert s.outcome == "item" and s.end_reason == "recommended"


def test_a_constraint_miss_keeps_partial_credit_and_fails():
    s = score(
        COMEDY_ON_NETFLIX,
        Episode().call("get_user_history").recommend("m2").end("recommended", "m2"),
    )
    assert s.constraint_score == 0.0 and s.constraint_partial == pytest.approx(0.5)
    assert [v.holds for v in s.constraint_verdicts] == [True, False]
    assert not s.passed


def test_a_policy_failure_zeroes_the_reward_of_a_correct_item():
    s = score(COMEDY_ON_NETFLIX, Episode().recommend("m4").end("recommended", "m4"))
    assert s.constraint_score == 1.0 and s.policy_score == 0.0 and s.reward == 0.0


def test_abstaining_on_a_no_valid_task_passes():
    s = score(NO_VALID, Episode().recommend(None, message="Nothing fits.").end("abstained"))
    assert s.outcome == "abstain" and s.constraint_score == 1.0 and s.passed


def test_committing_anything_on_a_no_valid_task_fails_even_if_partly_right():
    s = score(NO_VALID, Episode().recommend("m5").end("recommended", "m5"))
    assert s.constraint_score == 0.0 and s.constraint_partial == pytest.approx(0.5) and not s.passed


def test_abstaining_on_a_solvable_task_fails():
    s = score(COMEDY_ON_NETFLIX, Episode().recommend(None).end("abstained"))
    assert s.outcome == "abstain" and s.constraint_score == 0.0 and not s.passed


@pytest.mark.parametrize("reason", ["user_left", "max_turns", "agent_error"])
def test_episodes_ending_without_a_commit_fail_but_are_not_infra_errors(reason):
    s = score(COMEDY_ON_NETFLIX, Episode().say("Hello?").user("Bye.").end(reason))
    assert s.end_reason == reason and s.outcome == "none"
    assert not s.passed and not s.infra_error


def test_an_infra_error_episode_is_flagged_and_never_passes():
    s = score(
        COMEDY_ON_NETFLIX,
        Episode().call("get_user_history").recommend("m4").end("infra_error", "m4"),
    )
    assert s.infra_error and not s.passed
    assert any("infrastructure error" in p for p in s.problems)


def test_an_end_record_that_disagrees_with_the_commits_is_reported():
    s = score(
        COMEDY_ON_NETFLIX,
        Episode().call("get_user_history").recommend("m4").end("recommended", "m1"),
    )
    assert any("end record names 'm1'" in p for p in s.problems)


def test_turns_and_tool_calls_are_counted_up_to_the_commit():
    traj = (
        Episode().say("Genre?").user("Comedy").say("Length?").user("Short").call("get_user_history")
    )
    s = score(COMEDY_ON_NETFLIX, traj.recommend("m4").end("recommended", "m4"))
    assert (s.turns, s.turns_to_commit, s.tool_calls) == (2, 2, 2)


def test_failure_modes_tell_abstainers_from_wrong_committers():
    abstain = [
        score(COMEDY_ON_NETFLIX, Episode().recommend(None).end("abstained")) for _ in range(3)
    ]
    wrong = [
        score(COMEDY_ON_NETFLIX, Episode().recommend("m2").end("recommended", "m2"))
        for _ in range(3)
    ]
    assert failure_mode(abstain)["mode"] == "abstainer"
    assert failure_mode(wrong)["mode"] == "wrong-committer"
    assert failure_mode(abstain[:1] + wrong[:1])["mode"] == "balanced"


def test_a_label_that_errored_in_every_episode_gets_no_failure_mode_diagnosis():
    crashed = [score(COMEDY_ON_NETFLIX, Episode().end("agent_error")) for _ in range(2)]
    down = score(COMEDY_ON_NETFLIX, Episode().end("infra_error"))
    down.infra_error = True
    abstained = score(COMEDY_ON_NETFLIX, Episode().recommend(None).end("abstained"))
    assert failure_mode(crashed)["mode"] == "agent-error"
    assert failure_mode([*crashed, down])["mode"] == "agent-error"
    assert failure_mode([*crashed, abstained])["mode"] == "abstainer"  # it chose once


def test_strata_and_no_rec_rate_in_a_group_report():
    good = score(
        COMEDY_ON_NETFLIX,
        Episode().call("get_user_history").recommend("m4").end("recommended", "m4"),
    )
    none = score(COMEDY_ON_NETFLIX, Episode().end("user_left"))
    group = aggregate_group("a", [good, none])
    assert group["no_rec_rate"] == 0.5
    assert group["by_complexity"] == {"simple": 0.5}
    assert group["by_reveal"] == {"hidden": 0.5}
    assert group["policy_violation_rate"]["watch_history"] == 0.0
