"""Reading replies to BIEL's prompts: decisions, forced picks, confidences, the oracle."""

from __future__ import annotations

from taurec.clients.agents.stream.replies import (
    read_confidence,
    read_decision,
    read_forced,
    read_oracle,
)

IDS = ["101", "102", "103"]


def test_a_recommendation_is_read_before_a_question_and_sent_as_written() -> None:
    assert read_decision("QUESTION: Which?\nRECOMMEND: 999", IDS) == ("recommend", "999")


def test_a_reasoning_block_and_emphasis_are_ignored() -> None:
    reply = "<think>RECOMMEND: 101 maybe</think>**QUESTION:** Do you cook"
    assert read_decision(reply, IDS) == ("ask", "Do you cook?")


def test_a_bare_recommend_counts_only_with_an_id_of_the_set() -> None:
    assert read_decision("I recommend 102", IDS) == ("recommend", "102")
    assert read_decision("I recommend it", IDS) is None


def test_the_forced_pick_is_the_first_id_of_the_set_after_the_last_recommend() -> None:
    assert read_forced("RECOMMEND: 101\nOn reflection, RECOMMEND: #103.", IDS) == "103"
    assert read_forced("RECOMMEND: 555", IDS) == "101"


def test_confidence_lines_are_clipped_and_a_missing_one_left_out() -> None:
    picked, stated = read_confidence(
        "RECOMMEND: 102\nCONFIDENCE_FAVORITE: 1.7\nCONFIDENCE_TOP5: 60%\n"
        "PREDICTED_REGRET: 140\nCONFIDENCE_REGRET_WITHIN_5: n/a",
        IDS,
    )
    assert picked == "102"
    assert stated == {"favorite": 1.0, "top5": 0.6, "predicted_regret": 100.0}


def test_a_confidence_pick_may_be_biels_zero_based_index() -> None:
    assert read_confidence("RECOMMEND: 2", IDS)[0] == "103"
    assert read_confidence("RECOMMEND: 7", IDS)[0] is None


def test_the_oracle_names_an_index_in_range() -> None:
    assert read_oracle("RECOMMEND: 1", 3) == 1
    assert read_oracle("RECOMMEND: 3", 3) is None and read_oracle("the first", 3) is None
