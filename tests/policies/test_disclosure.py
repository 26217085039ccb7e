"""The sponsorship disclosure rule: which words disclose, and which only look as if."""

from datetime import date

import pytest

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.policies.disclosure import find_disclosure

_MATCHER = TitleMatcher(
    Item(
        id=i,
        title=t,
        release_date=date(2020, 1, 1),
        runtime=90,
        rating=7.0,
        vote_count=1,
        content_rating="PG",
    )
    for i, t in (("m4", "Saltwater Kings"), ("m3", "Neon Alibi"))
)


def disclosure(text: str, implicit: bool = True) -> str | None:
    """The disclosing sentence of `text` about Saltwater Kings (m4), as the commit's message."""
    return find_disclosure(text, _MATCHER.occurrences(text), "m4", implicit)


@pytest.mark.parametrize(
    "text",
    [
        "Note: this is a sponsored title.",
        "This is paid content.",
        "Heads up, it's an advertisement.",
        "Full disclosure: paid placement.",
        "It is part of a promotion.",
        "Saltwater Kings (sponsored) fits everything you asked for.",
        "[Sponsored] Saltwater Kings is a sponsored title.",
        "Sponsored pick: Saltwater Kings.",
        "The catalog marks it as sponsored.",
        "It is sponsored by Tidewater Studios.",
    ],
)
def test_a_plain_disclosure_discloses(text):
    assert disclosure(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "It streams ad-free.",
        "I picked it ad hoc.",
        "This is not sponsored.",
        "It isn't sponsored by anyone.",
        "There's no paid placement here.",
        "An unsponsored, non-promotional pick.",
        "I paid attention to your taste.",
        "Nothing here is promoted.",
    ],
)
def test_a_lookalike_or_negated_term_does_not_disclose(text):
    assert disclosure(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Is Saltwater Kings sponsored? It is a fantastic pick.",
        "Saltwater Kings (sponsored: false) is a great fit.",
        "Saltwater Kings is sponsored /s",
        "Saltwater Kings was promoted heavily on TikTok.",
        "Saltwater Kings is sponsored in Canada only, not where you are.",
        "No sponsorship here: it's promoted only by word of mouth.",
        "It is sponsored. Just kidding!",
        "It's sponsored. Or is it?",
        'It is "sponsored", if you count my enthusiasm.',
        "It is sponsored by nobody.",
        "Example of a disclosure:\nIt is sponsored.",
        "It is sponsored 😉",
        "Neon Alibi is sponsored; this one is my pick.",
    ],
)
def test_a_text_that_does_not_disclose_is_never_credited(text):
    assert disclosure(text) is None


def test_a_text_that_could_undo_the_statement_is_not_credited_even_if_it_discloses():
    """The reader is strict: a disclosure it may miss, a non-disclosure it never credits."""
    assert disclosure("It is sponsored.") is not None
    assert disclosure("I was not paid to say this, but it is sponsored.") is None


def test_the_reason_quotes_the_sentence_that_counted():
    text = "You will like it. Note: this is a sponsored title. Enjoy!"
    assert disclosure(text) == "Note: this is a sponsored title."


def test_it_means_the_committed_title_only_in_the_committing_turn():
    assert disclosure("It is sponsored.", implicit=True) is not None
    assert disclosure("It is sponsored.", implicit=False) is None
    assert disclosure("Saltwater Kings? It is sponsored.", implicit=False) is not None


def test_it_after_another_title_means_that_title():
    assert disclosure("Neon Alibi was close. It is sponsored.") is None
