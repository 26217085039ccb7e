"""UserSimCRS's act format, `intent(slot="v",slot)|intent()`, as LLMs write it."""

from __future__ import annotations

from taurec.server.recommendation.simulator.act_format import (
    format_acts,
    parse_acts,
    split_acts_line,
)
from taurec.tasks.trajectory.dialogue_acts import USER_INTENTS, DialogueAct


def _titles(text: str) -> list[str]:
    return {"Night Train": ["n1"]}.get(text, [])


def test_acts_with_slots_values_and_titles_are_read():
    acts = parse_acts('seen(title="Night Train")|disclose(genres="comedy")', USER_INTENTS, _titles)
    assert acts == [
        DialogueAct(intent="seen", items=("n1",)),
        DialogueAct(intent="disclose", slot="genres", value="comedy"),
    ]


def test_text_not_wholly_in_the_format_gives_none():
    assert parse_acts("I accept(it) happily", USER_INTENTS, _titles) is None


def test_unknown_intents_are_dropped():
    assert parse_acts("dance()|stop()", USER_INTENTS, _titles) == [DialogueAct(intent="stop")]


def test_an_accept_without_a_title_is_about_the_titles_it_answers():
    (act,) = parse_acts("accept()", USER_INTENTS, _titles, ["x9"]) or []
    assert act.items == ("x9",)


def test_the_acts_line_is_split_off_the_reply():
    body, line = split_acts_line("Sounds great!\nACTS: accept()")
    assert (body, line) == ("Sounds great!", "accept()")


def test_a_reply_without_an_acts_line_keeps_its_text():
    assert split_acts_line("Sounds great!") == ("Sounds great!", None)


def test_formatted_acts_read_back_the_same():
    acts = [DialogueAct(intent="inquire", slot="director"), DialogueAct(intent="stop")]
    assert parse_acts(format_acts(acts), USER_INTENTS, _titles) == acts
