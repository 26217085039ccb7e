"""A title recommended in so many words outside the `recommend` tool, and what abstaining
after it does to recommend_tool."""

import pytest
from support.episodes import small_catalog

from taurec.catalog.mentions import TitleMatcher
from taurec.policies.checks import Verdict as V
from taurec.policies.checks import check_recommend_tool
from taurec.policies.free_text import recommended_title

TITLES = TitleMatcher(small_catalog().items)


def _recommended(text: str) -> str | None:
    found = recommended_title(text, TITLES.occurrences(text))
    return found[0] if found else None


@pytest.mark.parametrize(
    "text",
    [
        "I recommend Neon Alibi.",
        "Nothing fits every requirement, but I'd recommend Neon Alibi.",
        "I'd suggest watching Neon Alibi tonight.",
        "You should watch Neon Alibi.",
        "You'll love Neon Alibi.",
        "Watch Neon Alibi tonight.",
        "So go with Neon Alibi.",
        "My pick is Neon Alibi.",
        "Neon Alibi is my top pick.",
        "Neon Alibi is perfect for you.",
        "I'd go with Neon Alibi.",
        "Neon Alibi it is.",
    ],
)
def test_a_title_recommended_outright_is_found(text):
    assert _recommended(text) == "Neon Alibi"


@pytest.mark.parametrize(
    "text",
    [
        "How about Neon Alibi?",
        "Would you like Neon Alibi?",
        "I can't recommend Neon Alibi: it is rated R.",
        "Neon Alibi came closest, but it runs too long.",
        "Neon Alibi would have been my pick if it were on Hulu.",
        "I'd suggest Neon Alibi, but it is not on your services.",
        "If it were on Hulu, I would recommend Neon Alibi.",
        "Nothing fits; Neon Alibi breaks your runtime limit.",
        "You said you saw Neon Alibi already.",
        "I recommend checking your services first.",
    ],
)
def test_a_question_denial_condition_or_near_miss_recommends_nothing(text):
    assert _recommended(text) is None


def test_abstaining_after_recommending_a_title_in_text_fails_recommend_tool(
    ep, task_factory, ctx_for
):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.say("You should watch Neon Alibi.").recommend(None).end("abstained")
    result = check_recommend_tool(ctx_for(task, traj))
    assert result.verdict is V.FAIL and "'Neon Alibi'" in result.reason and result.seq == 1


def test_a_recommendation_in_the_abstaining_message_fails_recommend_tool(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.recommend(None, "Nothing fits, but I recommend Neon Alibi.").end("abstained")
    assert check_recommend_tool(ctx_for(task, traj)).verdict is V.FAIL


def test_abstaining_after_a_pitch_or_a_near_miss_passes_recommend_tool(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = (
        ep.say("How about Neon Alibi?")
        .user("It is rated R; no.")
        .recommend(None, "Nothing fits: Neon Alibi came closest, but it is rated R.")
        .end("abstained")
    )
    assert check_recommend_tool(ctx_for(task, traj)).verdict is V.PASS


def test_an_undelivered_aside_recommends_nothing(ep, task_factory, ctx_for):
    task = task_factory(no_valid_recommendation=True)
    traj = ep.say("I recommend Neon Alibi.", delivered=False).recommend(None).end("abstained")
    assert check_recommend_tool(ctx_for(task, traj)).verdict is V.PASS
