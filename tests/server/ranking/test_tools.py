"""The seven ranking tools: the paper's wording, and no output that depends on anything
at or after the task's target time."""

import pytest
from support.ranking import all_tool_outputs, small_data, small_tasks

from taurec.server.ranking.tools import (
    RankingData,
    ToolInputError,
    candidates_analyze,
    get_rating_behavior,
    get_session_behavior,
    get_similar_items,
    get_similar_users,
    item_info_search,
    shares_a_word,
)

TASKS = small_tasks()
CUTOFF = min(t.target_time for t in TASKS)


@pytest.fixture(scope="module")
def rd() -> RankingData:
    return RankingData(small_data(), CUTOFF)


def _title(rd: RankingData, item_id: str) -> str:
    return rd.data.items[rd.data.item_of(item_id)].title


def test_no_tool_output_depends_on_records_at_or_after_the_target_time(rd: RankingData):
    for task in TASKS[:6]:
        future_free = RankingData(small_data().without_records_from(task.target_time), CUTOFF)
        assert all_tool_outputs(rd, task) == all_tool_outputs(future_free, task)


def test_a_future_record_would_change_the_outputs(rd: RankingData):
    """The check above can fail: with the cut one day later, some output differs."""
    task = TASKS[0]
    later = RankingData(small_data().without_records_from(task.target_time + 86_400 * 30), CUTOFF)
    shifted = task.model_copy(update={"target_time": task.target_time + 86_400 * 30})
    assert all_tool_outputs(rd, shifted) != all_tool_outputs(later, task)


def test_item_info_search_reports_facts_rating_and_popularity(rd: RankingData):
    task = TASKS[0]
    text = item_info_search(rd, task, _title(rd, task.candidates[0]))
    assert text.startswith(f'Found 1 item named "{_title(rd, task.candidates[0])}" (Categories: ')
    assert (
        "\nOverall Rating: " in text
        and " / 5.0\nPopularity: " in text
        and text.endswith(" reviews")
    )


def test_an_unknown_title_is_an_error_the_agent_can_act_on(rd: RankingData):
    with pytest.raises(ToolInputError, match='No item named "zzqx qqq" was found'):
        item_info_search(rd, TASKS[0], "zzqx qqq")


def test_a_fragment_or_a_common_word_matches_no_title(rd: RankingData):
    """A junk query once matched a real title by its letters ('night' in 'Firstlight')
    and earned the tool bonus; a fuzzy match must share a word with the title."""
    task = TASKS[0]
    title = _title(rd, task.candidates[0])
    for junk in ("the", "The", "and of", max(title.split(), key=len)[-3:]):
        assert rd.find_title(junk, task) is None, junk


def test_a_title_with_a_typo_is_still_found(rd: RankingData):
    task = TASKS[0]
    title = _title(rd, task.candidates[0])
    word = max(title.split(), key=len)
    typo = title.replace(word, word[:-1], 1) if len(word) > 4 else title + "x"
    assert rd.find_title(typo, task) == rd.data.item_of(task.candidates[0])


def test_shares_a_word_reads_whole_words_allowing_one_typo():
    assert shares_a_word("Weatherd Ceremony", "The Weathered Ceremony")
    assert not shares_a_word("night", "Jarrohaven: Firstlight")
    assert not shares_a_word("the", "The Pocket-Sized Kite")


def test_candidates_analyze_groups_every_candidate_by_category(rd: RankingData):
    text = candidates_analyze(rd, TASKS[0])
    assert text.startswith("Candidate Analysis by Category:\n- ")
    # genres are flat labels: an item with two genres is listed under both
    assert {int(x.split(":")[0]) for x in text.split("Item ")[1:]} == set(range(1, 21))
    assert " > " not in text and "by Price" not in text  # no made-up paths; no prices


def test_session_behavior_lists_the_latest_sessions_oldest_first(rd: RankingData):
    text = get_session_behavior(rd, TASKS[0])
    assert text.startswith("Below are the extracted interests for the user's most recent ")
    ages = [float(line.split("h ago")[0]) for line in text.splitlines()[1:]]
    assert ages == sorted(ages, reverse=True) and all(a >= 0 for a in ages)


def test_rating_behavior_has_the_three_groups(rd: RankingData):
    lines = get_rating_behavior(rd, TASKS[0]).splitlines()
    assert lines[0] == "User's historical rating records are as follows:"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "Five-star items (=5)",
        "Neutral items (>=3)",
        "Low-rated items (<3)",
    ]


def test_similar_items_come_from_the_collaborative_model(rd: RankingData):
    task = TASKS[0]
    title = _title(rd, task.history[-1])
    text = get_similar_items(rd, task, title)
    assert text.startswith(
        f"Based on collaborative filtering, users who enjoy the following items are more likely to purchase [{title}]:\n[1] "
    )
    first = text.splitlines()[1].removeprefix("[1] ").split(" (Categories")[0]
    i = rd.data.item_of(task.history[-1])
    assert rd.data.items[rd.model.similar_items(i, 1, exclude=[i])[0]].title == first


def test_similar_users_show_recent_purchases(rd: RankingData):
    text = get_similar_users(rd, TASKS[0])
    assert text.startswith("The following users have similar preferences to the current user.")
    assert "\nUser [1]: [" in text


def test_a_title_shared_with_another_item_finds_the_tasks_own_item(rd: RankingData):
    """Titles repeat in real data: asking for a candidate's title answers for it."""
    task = TASKS[0]
    candidate = rd.data.item_of(task.candidates[0])
    title = rd.data.items[candidate].title
    elsewhere = next(
        i for i in range(len(rd.data.items)) if rd.data.items[i].id not in task.candidates
    )
    saved = rd._titles[title.casefold()]
    rd._titles[title.casefold()] = elsewhere  # another item of the same title, indexed last
    try:
        assert rd.find_title(title, task) == candidate
    finally:
        rd._titles[title.casefold()] = saved
