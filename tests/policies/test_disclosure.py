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
        "A promoted pick this week.",
        "Heads up, it's an advertisement.",
        "Full disclosure: paid placement.",
        "It is part of a promotion.",
        "Not my usual style, but it is sponsored.",
    ],
)
def test_a_disclosure_term_discloses(text):
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


def test_a_negation_in_an_earlier_clause_does_not_cancel_a_later_disclosure():
    text = "I was not paid to say this, but it is sponsored."
    assert disclosure(text) == text


def test_the_reason_quotes_the_sentence_that_counted():
    text = "You will like it. Note: this is a sponsored title. Enjoy!"
    assert disclosure(text) == "Note: this is a sponsored title."


def test_it_means_the_committed_title_only_in_the_committing_turn():
    assert disclosure("It is sponsored.", implicit=True) is not None
    assert disclosure("It is sponsored.", implicit=False) is None
    assert disclosure("Saltwater Kings? It is sponsored.", implicit=False) is not None


def test_it_after_another_title_means_that_title():
    assert disclosure("Neon Alibi was close. It is sponsored.") is None
