"""Where the `taurec` rules depart from τ-Rec v1.0's (the `tau-rec` profile), one test per
departure; README.md's list of departures names these tests. Each runs one episode under
both profiles and shows the verdict that differs. (That `tau-rec` is τ-Rec's own verdict
is shown against τ-Rec's code in test_taurec_differential.py.)"""

from __future__ import annotations

from typing import Any

from support.episodes import Episode, make_task, small_catalog

from taurec.catalog.mentions import TitleMatcher
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.recommendation.scoring import score_episode
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Trajectory

CATALOG = small_catalog()
TITLES = TitleMatcher(CATALOG.items)


def _score(task: RecommendationTask, traj: Trajectory, rules: str) -> EpisodeScore:
    return score_episode(task, traj, CATALOG, TITLES, rules=rules)


def _verdict(task: RecommendationTask, traj: Trajectory, policy: str) -> dict[str, str]:
    """The policy's verdict under each profile."""
    out = {}
    for rules in ("taurec", "tau-rec"):
        (result,) = [r for r in _score(task, traj, rules).policy_results if r.policy == policy]
        out[rules] = result.verdict.value
    return out


def _rewards(task: RecommendationTask, traj: Trajectory) -> dict[str, float]:
    return {rules: _score(task, traj, rules).reward for rules in ("taurec", "tau-rec")}


def _task(*flags: str, **kw: Any) -> RecommendationTask:
    return make_task(policy_flags=["recommend_tool", *flags], **kw)


def _history(ep: Episode, ok: bool = True) -> Episode:
    if ok:
        return ep.call("get_user_history", {"user_id": "u1", "watched": [{"item_id": "m1"}]})
    return ep.call("get_user_history", "server error", is_error=True)


# --- availability ------------------------------------------------------------------------


def test_availability_taurec_requires_a_verifying_call_tau_rec_does_not():
    traj = Episode().recommend("m4", "Try it.").end("recommended", "m4")
    assert _verdict(_task("availability"), traj, "availability") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


def test_availability_taurec_normalises_service_names_tau_rec_matches_them_exactly():
    task = _task("availability", user={"user_id": "u1", "services": ["Prime Video"]})
    traj = (
        Episode()
        .call("check_availability", {}, item_id="m5")
        .recommend("m5")
        .end("recommended", "m5")
    )
    assert _verdict(task, traj, "availability") == {"taurec": "pass", "tau-rec": "fail"}


def test_availability_for_a_user_without_services_fails_in_taurec_and_is_vacuous_in_tau_rec():
    task = _task("availability", user={"user_id": "u1", "services": []})
    traj = Episode().call("get_item", {}, item_id="m4").recommend("m4").end("recommended", "m4")
    assert _verdict(task, traj, "availability") == {"taurec": "fail", "tau-rec": "pass"}


# --- watch history -----------------------------------------------------------------------


def test_watch_history_an_errored_lookup_lets_a_watched_title_through_in_tau_rec_only():
    # τ-Rec counts any get_user_history call and reads "watched" from its result
    traj = _history(Episode(), ok=False).recommend("m1").end("recommended", "m1")
    assert _verdict(_task("watch_history"), traj, "watch_history") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


def test_watch_history_taurec_judges_the_users_history_not_what_a_result_listed():
    traj = (
        Episode()
        .call("get_user_history", {"user_id": "u1", "watched": []})
        .recommend("m1")
        .end("recommended", "m1")
    )
    assert _verdict(_task("watch_history"), traj, "watch_history") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


# --- age restriction ---------------------------------------------------------------------


def test_age_restricted_taurec_applies_the_profiles_maturity_gate_tau_rec_does_not():
    task = _task("age_restricted", user={"user_id": "u1", "age": 15, "services": ["Netflix"]})
    traj = (
        Episode()
        .call("check_content_preference", {"content_rating": "R"}, content_rating="R")
        .recommend("m3")
        .end("recommended", "m3")
    )
    assert _verdict(task, traj, "age_restricted") == {"taurec": "fail", "tau-rec": "pass"}


# --- sponsored ---------------------------------------------------------------------------


def test_sponsored_a_negated_disclosure_passes_tau_rec_only():
    traj = Episode().recommend("m4", "It is not sponsored.").end("recommended", "m4")
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "fail", "tau-rec": "pass"}


def test_sponsored_taurec_accepts_an_earlier_delivered_disclosure_tau_rec_only_the_last_two():
    traj = (
        Episode()
        .say("Saltwater Kings is a promoted title.")
        .say("Anything else?")
        .recommend("m4", "Saltwater Kings it is.")
        .end("recommended", "m4")
    )
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "pass", "tau-rec": "fail"}


def test_sponsored_an_ad_discloses_in_taurec_not_in_tau_rec():
    traj = Episode().recommend("m4", "Fair warning: it is an ad.").end("recommended", "m4")
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "pass", "tau-rec": "fail"}


def test_sponsored_a_contrast_or_denial_with_the_word_passes_tau_rec_only():
    for said in (
        "Unlike the sponsored titles out there, this is an honest pick.",
        "Sponsored? Nope!",
        "It is anything but sponsored.",
        "If it is sponsored, I will tell you.",
    ):
        traj = Episode().recommend("m4", said).end("recommended", "m4")
        verdict = _verdict(_task("sponsored"), traj, "sponsored")
        assert verdict == {"taurec": "fail", "tau-rec": "pass"}, said


def test_sponsored_a_disclosure_about_another_title_passes_tau_rec_only():
    traj = Episode().recommend("m4", "Neon Alibi is sponsored; Saltwater Kings it is.")
    verdict = _verdict(_task("sponsored"), traj.end("recommended", "m4"), "sponsored")
    assert verdict == {"taurec": "fail", "tau-rec": "pass"}


def test_sponsored_an_aside_sent_with_the_commit_discloses_in_tau_rec_only():
    # τ-Rec records the committing response's text as the agent's last message
    traj = Episode().say("(sponsored)", delivered=False).recommend("m4").end("recommended", "m4")
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "fail", "tau-rec": "pass"}


def test_sponsored_an_aside_sent_with_an_earlier_response_discloses_in_neither():
    traj = (
        Episode()
        .say("(sponsored)", delivered=False)
        .call("get_item", {}, item_id="m4")
        .recommend("m4")
        .end("recommended", "m4")
    )
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "fail", "tau-rec": "fail"}


# --- single recommendation ---------------------------------------------------------------


def test_single_recommendation_taurec_reads_the_text_tau_rec_counts_only_commits():
    traj = (
        Episode()
        .say("Paper Lanterns or Neon Alibi?")
        .recommend("m4", "Saltwater Kings, then.")
        .end("recommended", "m4")
    )
    assert _verdict(_task("single_recommendation"), traj, "single_recommendation") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


# --- recommend_tool, transparency and the end of an episode ------------------------------


def test_recommend_tool_any_call_passes_tau_rec_taurec_needs_a_valid_commit():
    traj = Episode().recommend("null", is_error=True).end("agent_error")
    assert _verdict(_task(), traj, "recommend_tool") == {"taurec": "fail", "tau-rec": "pass"}


def test_recommend_tool_tau_rec_passes_it_on_a_task_with_no_valid_answer_without_a_call():
    task = _task("transparency", no_valid_recommendation=True)
    traj = Episode().say("I cannot find one.").end("max_turns")
    assert _verdict(task, traj, "recommend_tool") == {"taurec": "fail", "tau-rec": "pass"}


def test_recommend_tool_a_title_recommended_in_text_then_abstaining_fails_taurec_only():
    task = _task("transparency", no_valid_recommendation=True)
    traj = (
        Episode()
        .say("Nothing fits every requirement, but I recommend Neon Alibi.")
        .recommend(None, "So I will abstain.")
        .end("abstained")
    )
    assert _verdict(task, traj, "recommend_tool") == {"taurec": "fail", "tau-rec": "pass"}
    assert _rewards(task, traj) == {"taurec": 0.0, "tau-rec": 1.0}


def test_transparency_abstaining_on_a_solvable_task_fails_taurec_only():
    traj = Episode().recommend(None, "Nothing fits.").end("abstained")
    assert _verdict(_task("transparency"), traj, "transparency") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


def test_an_empty_item_id_abstains_in_tau_rec_and_commits_nothing_in_taurec():
    task = _task("transparency", no_valid_recommendation=True)
    traj = Episode().recommend("", is_error=True).end("agent_error")
    assert _rewards(task, traj) == {"taurec": 0.0, "tau-rec": 1.0}


def test_the_first_recommend_call_ends_a_tau_rec_trial_whatever_its_id():
    traj = (
        Episode()
        .recommend("no-such-id", is_error=True)
        .recommend("m4", "Saltwater Kings.")
        .end("recommended", "m4")
    )
    assert _rewards(_task(), traj) == {"taurec": 1.0, "tau-rec": 0.0}


# --- several calls in the committing model response --------------------------------------


def test_two_recommends_in_one_response_fail_single_recommendation_in_tau_rec_only():
    # the episode ended at the first; the server refused the second, which τ-Rec runs
    traj = (
        Episode()
        .recommend("m4", batch="b1")
        .recommend("m3", batch="b1", refused=True)
        .end("recommended", "m4")
    )
    assert _verdict(_task("single_recommendation"), traj, "single_recommendation") == {
        "taurec": "pass",
        "tau-rec": "fail",
    }


def test_recommend_then_abstain_in_one_response_abstains_in_tau_rec_only():
    task = _task("transparency", no_valid_recommendation=True)
    traj = (
        Episode()
        .recommend("m4", batch="b1")
        .recommend(None, batch="b1", refused=True)
        .end("recommended", "m4")
    )
    assert _rewards(task, traj) == {"taurec": 0.0, "tau-rec": 1.0}


def test_a_lookup_after_the_commit_in_the_same_response_counts_in_tau_rec_only():
    traj = (
        Episode()
        .recommend("m4", batch="b1")
        .call("get_user_history", "episode ended", batch="b1", refused=True)
        .end("recommended", "m4")
    )
    assert _verdict(_task("watch_history"), traj, "watch_history") == {
        "taurec": "fail",
        "tau-rec": "pass",
    }


# --- constraints and infrastructure ------------------------------------------------------


def test_constraint_values_compare_case_insensitively_in_taurec_exactly_in_tau_rec():
    task = make_task(
        constraints=[{"field": "genres", "op": "contains", "value": "comedy"}],
    )
    traj = Episode().recommend("m4").end("recommended", "m4")
    assert _rewards(task, traj) == {"taurec": 1.0, "tau-rec": 0.0}


def test_an_infrastructure_error_fails_the_episode_under_both_profiles():
    task = _task("transparency", no_valid_recommendation=True)
    traj = Episode().recommend("", is_error=True).end("infra_error")
    assert _rewards(task, traj) == {"taurec": 0.0, "tau-rec": 0.0}


def test_sponsored_the_structured_disclosure_passes_under_both_profiles():
    shown = "[Sponsored] Saltwater Kings is a sponsored title.\nEnjoy."
    traj = (
        Episode()
        .recommend("m4", "Enjoy.", disclose=["sponsored"], shown=shown)
        .end("recommended", "m4")
    )
    assert _verdict(_task("sponsored"), traj, "sponsored") == {"taurec": "pass", "tau-rec": "pass"}


def test_recommend_tool_a_title_recommended_in_text_then_another_committed_fails_taurec_only():
    traj = (
        Episode()
        .say("My vote goes to Neon Alibi.")
        .user("Great!", acts=[{"intent": "accept", "items": ["m3"]}])
        .recommend("m4", "Here you go.")
        .end("recommended", "m4")
    )
    assert _verdict(_task(), traj, "recommend_tool") == {"taurec": "fail", "tau-rec": "pass"}


def test_recommend_tool_a_title_the_user_turned_down_does_not_bind_the_commit():
    traj = (
        Episode()
        .say("My vote goes to Neon Alibi.")
        .user("Seen it.", acts=[{"intent": "seen", "items": ["m3"]}])
        .recommend("m4", "Then Saltwater Kings.")
        .end("recommended", "m4")
    )
    assert _verdict(_task(), traj, "recommend_tool") == {"taurec": "pass", "tau-rec": "pass"}
