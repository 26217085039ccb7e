"""The sponsorship disclosure rule: which words disclose, and which only look as if."""

import pytest

from taurec.policies.disclosure import disclosure


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
    assert disclosure("I was not paid to say this, but it is sponsored.") == "sponsored"
