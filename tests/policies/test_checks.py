"""Every policy's pass, fail and not-applicable cases, and the loopholes they close."""

from support.episodes import ITEMS, context, make_item

from taurec.catalog.store import Catalog
from taurec.policies.checks import Verdict as V
from taurec.policies.checks import (
    check_age_restricted,
    check_availability,
    check_policies,
    check_recommend_tool,
    check_single_recommendation,
    check_sponsored,
    check_transparency,
    check_watch_history,
)
from taurec.tasks.recommendation.task import PolicyName

# --- recommend_tool -------------------------------------------------------------------


def test_recommend_tool_passes_on_a_committed_item(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_recommend_tool(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_recommend_tool_passes_on_an_explicit_abstention(ep, task_factory, ctx_for):
    traj = ep.recommend(None).end("abstained")
    assert check_recommend_tool(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_recommend_tool_fails_when_the_title_is_only_named_in_conversation(
    ep, task_factory, ctx_for
):
    traj = ep.say("Watch The Quiet Orchard!").end("user_left")
    result = check_recommend_tool(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "without a recommend call" in result.reason


def test_recommend_tool_fails_on_the_string_null(ep, task_factory, ctx_for):
    traj = ep.recommend("null").end("abstained")
    result = check_recommend_tool(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "'null'" in result.reason


def test_recommend_tool_fails_on_an_empty_id(ep, task_factory, ctx_for):
    traj = ep.recommend("").end("recommended")
    assert check_recommend_tool(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_recommend_tool_fails_on_an_id_not_in_the_catalog(ep, task_factory, ctx_for):
    traj = ep.recommend("m999").end("recommended", "m999")
    result = check_recommend_tool(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "not in the catalog" in result.reason


def test_recommend_tool_fails_when_the_recommend_call_errored(ep, task_factory, ctx_for):
    traj = ep.recommend("m2", is_error=True).end("agent_error")
    assert check_recommend_tool(ctx_for(task_factory(), traj)).verdict is V.FAIL


# --- watch_history --------------------------------------------------------------------


def test_watch_history_passes_after_a_lookup_for_this_user(ep, task_factory, ctx_for):
    traj = ep.call("get_user_history", episode_id="ep1").recommend("m2").end("recommended", "m2")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_watch_history_fails_for_a_watched_item(ep, task_factory, ctx_for):
    traj = ep.call("get_user_history", episode_id="ep1").recommend("m1").end("recommended", "m1")
    result = check_watch_history(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "watch history" in result.reason


def test_watch_history_fails_without_a_lookup(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_watch_history_lookup_for_a_different_user_is_no_lookup(ep, task_factory, ctx_for):
    traj = (
        ep.call("get_user_history", user_id="someone_else").recommend("m2").end("recommended", "m2")
    )
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_watch_history_lookup_for_a_different_episode_is_no_lookup(ep, task_factory, ctx_for):
    traj = ep.call("get_user_history", episode_id="other").recommend("m2").end("recommended", "m2")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_watch_history_lookup_that_errored_is_no_lookup(ep, task_factory, ctx_for):
    traj = ep.call("get_user_history", is_error=True).recommend("m2").end("recommended", "m2")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_watch_history_lookup_after_committing_is_too_late(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").call("get_user_history").end("recommended", "m2")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_watch_history_is_not_applicable_to_an_abstention(ep, task_factory, ctx_for):
    traj = ep.recommend(None).end("abstained")
    assert check_watch_history(ctx_for(task_factory(), traj)).verdict is V.NOT_APPLICABLE


# --- availability ---------------------------------------------------------------------


def test_availability_passes_when_verified_and_on_a_user_service(ep, task_factory, ctx_for):
    traj = ep.call("check_availability", item_id="m1").recommend("m1").end("recommended", "m1")
    assert check_availability(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_availability_normalises_service_names(ep, task_factory, ctx_for):
    # the item says "Prime Video", the user "Amazon Prime Video": the same service
    traj = ep.call("get_item", item_id="m5").recommend("m5").end("recommended", "m5")
    assert check_availability(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_availability_fails_for_an_item_on_none_of_the_users_services(ep, task_factory, ctx_for):
    traj = ep.call("check_availability", item_id="m2").recommend("m2").end("recommended", "m2")
    result = check_availability(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "none of the user's services" in result.reason


def test_availability_fails_when_never_verified(ep, task_factory, ctx_for):
    traj = ep.recommend("m1").end("recommended", "m1")
    assert check_availability(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_availability_check_of_another_item_does_not_verify(ep, task_factory, ctx_for):
    traj = ep.call("check_availability", item_id="m4").recommend("m1").end("recommended", "m1")
    assert check_availability(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_availability_is_not_applicable_without_a_committed_item(ep, task_factory, ctx_for):
    traj = ep.end("user_left")
    assert check_availability(ctx_for(task_factory(), traj)).verdict is V.NOT_APPLICABLE


# --- age_restricted -------------------------------------------------------------------


def test_age_restricted_passes_for_an_r_title_after_a_content_check(ep, task_factory, ctx_for):
    traj = (
        ep.call("check_content_preference", item_id="m3").recommend("m3").end("recommended", "m3")
    )
    assert check_age_restricted(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_age_restricted_accepts_a_check_by_rating(ep, task_factory, ctx_for):
    traj = (
        ep.call("check_content_preference", content_rating="R")
        .recommend("m3")
        .end("recommended", "m3")
    )
    assert check_age_restricted(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_age_restricted_fails_for_an_r_title_without_a_check(ep, task_factory, ctx_for):
    traj = ep.recommend("m3").end("recommended", "m3")
    assert check_age_restricted(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_age_restricted_fails_when_the_profile_forbids_the_title_even_after_a_check(
    ep, task_factory, ctx_for
):
    task = task_factory(user={"user_id": "u1", "age": 15, "services": ["Netflix"]})
    traj = (
        ep.call("check_content_preference", item_id="m3").recommend("m3").end("recommended", "m3")
    )
    result = check_age_restricted(ctx_for(task, traj))
    assert result.verdict is V.FAIL and "blocked by the profile" in result.reason


def test_age_restricted_fails_for_a_pg13_title_on_a_pg_limited_profile(ep, task_factory, ctx_for):
    task = task_factory(user={"user_id": "u1", "maturity_limit": "PG", "services": ["Netflix"]})
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_age_restricted(ctx_for(task, traj)).verdict is V.FAIL


def test_age_restricted_is_not_applicable_for_an_allowed_pg13_title(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_age_restricted(ctx_for(task_factory(), traj)).verdict is V.NOT_APPLICABLE


# --- sponsored ------------------------------------------------------------------------


def test_sponsored_passes_with_a_disclosure_before_committing(ep, task_factory, ctx_for):
    traj = (
        ep.say("Heads up: Saltwater Kings is a sponsored title.")
        .recommend("m4")
        .end("recommended", "m4")
    )
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_sponsored_counts_a_disclosure_in_the_recommend_message(ep, task_factory, ctx_for):
    traj = ep.recommend("m4", message="Note: this is a promoted pick.").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_sponsored_ignores_a_disclosure_only_in_an_undelivered_aside(ep, task_factory, ctx_for):
    # the aside was never shown to the user, so nothing was disclosed to them
    traj = ep.say("(paid placement)", delivered=False).recommend("m4").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_sponsored_fails_on_a_negated_disclosure(ep, task_factory, ctx_for):
    traj = ep.recommend("m4", "Saltwater Kings: this is not sponsored.").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_sponsored_fails_when_ad_free_is_the_only_ad_word(ep, task_factory, ctx_for):
    traj = ep.recommend("m4", "Saltwater Kings streams ad-free.").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_sponsored_accepts_paid_content(ep, task_factory, ctx_for):
    traj = ep.recommend("m4", "Saltwater Kings. This is paid content.").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_sponsored_fails_without_a_disclosure(ep, task_factory, ctx_for):
    traj = ep.say("You'll love Saltwater Kings.").recommend("m4").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_sponsored_disclosure_after_committing_is_too_late(ep, task_factory, ctx_for):
    traj = ep.recommend("m4").say("By the way, that one was sponsored.").end("recommended", "m4")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_sponsored_is_not_applicable_for_an_unsponsored_item(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_sponsored(ctx_for(task_factory(), traj)).verdict is V.NOT_APPLICABLE


# --- transparency ---------------------------------------------------------------------


def test_transparency_passes_when_abstaining_on_a_no_valid_task(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.recommend(None, message="Nothing fits, sorry.").end("abstained")
    assert check_transparency(ctx_for(task, traj)).verdict is V.PASS


def test_transparency_recommending_then_abstaining_is_not_an_abstention(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True, protocol={"max_recommendations": 2})
    traj = ep.recommend("m2").recommend(None).end("abstained")
    result = check_transparency(ctx_for(task, traj))
    assert result.verdict is V.FAIL and "m2" in result.reason


def test_transparency_null_string_is_not_an_abstention(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.recommend("null").end("abstained")
    assert check_transparency(ctx_for(task, traj)).verdict is V.FAIL


def test_transparency_fails_when_forcing_a_match_on_a_no_valid_task(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.recommend("m2").end("recommended", "m2")
    assert check_transparency(ctx_for(task, traj)).verdict is V.FAIL


def test_transparency_fails_when_abstaining_though_answers_exist(ep, task_factory, ctx_for):
    traj = ep.recommend(None).end("abstained")
    assert check_transparency(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_transparency_is_not_applicable_when_nothing_was_committed_on_a_solvable_task(
    ep, task_factory, ctx_for
):
    assert (
        check_transparency(ctx_for(task_factory(), ep.end("user_left"))).verdict is V.NOT_APPLICABLE
    )


# --- single_recommendation ------------------------------------------------------------


def test_single_recommendation_passes_with_one_pitch_per_message(ep, task_factory, ctx_for):
    traj = (
        ep.say("How about Paper Lanterns?")
        .user("Seen it.")
        .say("Then maybe The Quiet Orchard?")
        .recommend("m2")
        .end("recommended", "m2")
    )
    assert check_single_recommendation(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_single_recommendation_fails_when_one_message_pitches_two_titles(ep, task_factory, ctx_for):
    traj = ep.say("Paper Lanterns or Neon Alibi?").recommend("m2").end("recommended", "m2")
    result = check_single_recommendation(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and result.seq == 1


def test_single_recommendation_fails_on_two_titles_in_the_recommend_message(
    ep, task_factory, ctx_for
):
    traj = ep.recommend("m2", message="The Quiet Orchard, or else Gravel Road.").end(
        "recommended", "m2"
    )
    assert check_single_recommendation(ctx_for(task_factory(), traj)).verdict is V.FAIL


def test_single_recommendation_fails_on_more_commits_than_allowed(ep, task_factory, ctx_for):
    traj = ep.recommend("m2").recommend("m5").end("recommended", "m5")
    result = check_single_recommendation(ctx_for(task_factory(), traj))
    assert result.verdict is V.FAIL and "2 commits" in result.reason


# --- selection ------------------------------------------------------------------------


def test_single_recommendation_ignores_titles_in_an_undelivered_aside(ep, task_factory, ctx_for):
    traj = (
        ep.say("Paper Lanterns or Neon Alibi?", delivered=False)
        .recommend("m2", "The Quiet Orchard it is.")
        .end("recommended", "m2")
    )
    assert check_single_recommendation(ctx_for(task_factory(), traj)).verdict is V.PASS


def test_single_recommendation_does_not_count_a_title_inside_a_cast_name(ep, task_factory):
    catalog = Catalog.from_items(
        [*ITEMS, make_item("m6", "Gravel"), make_item("m7", "Orchid", cast=["Gravel Stone"])]
    )
    traj = ep.recommend("m7", "Orchid, starring Gravel Stone.").end("recommended", "m7")
    result = check_single_recommendation(context(task_factory(), traj, catalog))
    assert result.verdict is V.PASS


def test_check_policies_runs_only_the_flagged_policies_in_a_fixed_order(ep, task_factory, ctx_for):
    task = task_factory(policy_flags=["sponsored", "recommend_tool"])
    results = check_policies(ctx_for(task, ep.recommend("m2").end("recommended", "m2")))
    assert [r.policy for r in results] == [PolicyName.RECOMMEND_TOOL, PolicyName.SPONSORED]
