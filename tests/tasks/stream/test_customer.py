"""The rule-based customer answers like a person: from its tastes (its preference model,
or its description), consistently, never with a number, and never from the utilities: no
answer changes when they are permuted or replaced. By default it knows its tastes and
the category, not the products (as BIEL's customer): asked about a named item it says it
does not know it and answers from its tastes in general, whichever item is named. Knowing
the items (`knows_items`, the named option) it describes a named item's attributes
against its tastes."""

from __future__ import annotations

import random
import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from support.streams import make_stream

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.personas import Persona
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.customer import CustomerContext, RuleCustomer
from taurec.tasks.stream.customer_words import category_words
from taurec.tasks.stream.task import StreamTask
from taurec.tasks.suite import load_suite

QUESTIONS = (
    "What are you looking for today?",
    "Do you like comedy?",
    "Do you prefer long or short films?",
    "Old classics or something recent?",
    "How much do reviews matter to you?",
    "Are subtitles okay?",
    "Any favourite director?",
    "What's your budget?",
    "Would you enjoy a heist story?",
    "Which one would you pick?",
)
#: How the customer used to grade a named item by its utility.
BAND_PHRASES = ("just right", "sounds good to me", "not really exciting", "isn't for me")


@cache
def builtin_task() -> StreamTask:
    task = load_suite("stream:builtin").tasks[0]
    assert isinstance(task, StreamTask)
    return task


def context(
    task: StreamTask,
    n: int = 0,
    *,
    bare: bool = False,
    dialogue: tuple = (),
    knows_items: bool = False,
) -> CustomerContext:
    ep = task.episodes[n]
    persona = task.persona_index[ep.persona_id]
    if bare:  # a persona whose utilities came from elsewhere: no preference model
        persona = persona.model_copy(update={"preferences": None})
    return CustomerContext(
        persona=persona,
        category=ep.category_name,
        items=[task.item_index[i] for i in ep.item_ids],
        utilities=ep.utilities,
        dialogue=dialogue,
        knows_items=knows_items,
    )


def questions(ctx: CustomerContext) -> list[str]:
    items = ctx.items
    return [
        *QUESTIONS,
        *(f"What about {i.id}?" for i in items),
        *(f"How about {i.title}?" for i in items[:5]),
        f"Is {items[0].id} too long for you?",
        f"Which is better, {items[1].id} or {items[2].id}?",
    ]


def test_answers_never_state_a_number() -> None:
    task = make_stream(episodes=5)
    customer = RuleCustomer()
    for n in range(5):
        for bare, knows in ((False, False), (False, True), (True, False), (True, True)):
            ctx = context(task, n, bare=bare, knows_items=knows)
            for q in questions(ctx):
                assert not re.search(r"\d", customer.answer(ctx, q)), q


def test_the_same_question_gets_the_same_answer() -> None:
    ctx = context(make_stream())
    assert RuleCustomer().answer(ctx, QUESTIONS[2]) == RuleCustomer().answer(ctx, QUESTIONS[2])


@settings(max_examples=25, deadline=None)
@given(
    builtin=st.booleans(),
    n=st.integers(min_value=0, max_value=2),
    bare=st.booleans(),
    seed=st.integers(min_value=0, max_value=2**32),
    replace=st.booleans(),
)
def test_answers_do_not_change_when_the_utilities_are_permuted_or_replaced(
    builtin: bool, n: int, bare: bool, seed: int, replace: bool
) -> None:
    task = builtin_task() if builtin else make_stream()
    asked = (("What are you looking for?", "I'm shopping for something."),)
    ctx = context(task, n, bare=bare, dialogue=asked)
    rng = random.Random(seed)
    values = list(ctx.utilities.values())
    if replace:
        values = [rng.choice((0.0, 50.0, 100.0, rng.uniform(0, 100))) for _ in values]
    else:
        rng.shuffle(values)
    other = CustomerContext(
        persona=ctx.persona,
        category=ctx.category,
        items=ctx.items,
        utilities=dict(zip(ctx.utilities, values, strict=True)),
        dialogue=ctx.dialogue,
        knows_items=ctx.knows_items,
    )
    customer = RuleCustomer()
    for q in questions(ctx):
        assert customer.answer(other, q) == customer.answer(ctx, q), q


def test_no_answer_about_a_named_item_grades_it() -> None:
    task = make_stream(episodes=3)
    customer = RuleCustomer()
    for n in range(3):
        for bare, knows in ((False, False), (False, True), (True, False), (True, True)):
            ctx = context(task, n, bare=bare, knows_items=knows)
            for item in ctx.items:
                for q in (f"What about {item.id}?", f"Would you like {item.title}?"):
                    answer = customer.answer(ctx, q).lower()
                    assert not any(p in answer for p in BAND_PHRASES), (q, answer)


def movie(**fields: object) -> ChoiceItem:
    return ChoiceItem.model_validate({"id": "m1", "title": "Dust Road", **fields})


def one_item(
    prefs: PreferenceModel, item: ChoiceItem, *, knows_items: bool = True
) -> CustomerContext:
    persona = Persona(id="p", description="x", preferences=prefs)
    return CustomerContext(
        persona=persona,
        category="Westerns",
        items=[item],
        utilities={},
        knows_items=knows_items,
    )


def test_by_default_a_named_item_is_unknown_and_the_answer_is_its_tastes_in_general() -> None:
    prefs = PreferenceModel(categories={"Western": 0.5}, runtime=100, runtime_weight=0.4)
    ctx = one_item(prefs, movie(categories=["Western"], runtime=150), knows_items=False)
    assert RuleCustomer().answer(ctx, "What about m1?") == (
        "I don't know that one, so I can't say how I'd feel about it. I'm shopping for "
        "westerns for myself. I especially enjoy western."
    )


def test_by_default_every_named_item_gets_the_same_words() -> None:
    task = make_stream(episodes=3)
    customer = RuleCustomer()
    for n in range(3):
        for bare in (False, True):
            ctx = context(task, n, bare=bare)
            answers = {customer.answer(ctx, f"What about {i.id}?") for i in ctx.items}
            answers |= {customer.answer(ctx, f"What about {i.title}?") for i in ctx.items}
            trio = ", ".join(i.id for i in ctx.items[:3])
            answers.add(customer.answer(ctx, f"What about {trio}?"))
            assert len(answers) == 1, answers


def test_by_default_a_topic_asked_with_a_named_item_is_answered_from_the_tastes() -> None:
    prefs = PreferenceModel(categories={"Western": 0.9}, runtime=100, runtime_weight=0.3)
    ctx = one_item(prefs, movie(categories=["Western"], runtime=160), knows_items=False)
    assert RuleCustomer().answer(ctx, "Is Dust Road too long?") == (
        "I don't know that one, so I can't say how I'd feel about it. I'd like a normal "
        "length, around two hours or a little less."
    )


def test_a_named_item_is_described_by_how_its_attributes_meet_the_tastes() -> None:
    prefs = PreferenceModel(categories={"Western": 0.5}, runtime=100, runtime_weight=0.4)
    ctx = one_item(prefs, movie(categories=["Western"], runtime=150))
    assert RuleCustomer().answer(ctx, "What about m1?") == (
        "It's a western, which I like, though it sounds long for me."
    )


def test_a_named_item_gets_at_most_two_attributes_the_strongest_tastes_first() -> None:
    prefs = PreferenceModel(
        categories={"Western": 0.4, "Comedy": 0.9},
        keywords={"heist": -0.7},
        runtime=100,
        runtime_weight=0.3,
    )
    item = movie(categories=["Western", "Comedy"], keywords=["heist"], runtime=100)
    answer = RuleCustomer().answer(one_item(prefs, item), "And Dust Road?")
    assert answer == "It's a comedy, which I love, though it has a heist angle, which puts me off."


def test_a_question_on_a_named_items_length_is_answered_about_its_length_first() -> None:
    prefs = PreferenceModel(categories={"Western": 0.9}, runtime=100, runtime_weight=0.3)
    ctx = one_item(prefs, movie(categories=["Western"], runtime=160))
    assert RuleCustomer().answer(ctx, "Is Dust Road too long?").startswith("It sounds long")


def test_asked_about_a_length_neither_close_nor_far_it_says_so() -> None:
    prefs = PreferenceModel(runtime=100, runtime_weight=0.3)
    ctx = one_item(prefs, movie(categories=["Western"], runtime=120))
    assert RuleCustomer().answer(ctx, "Is Dust Road too long?") == (
        "It's a little long for me, but that's fine."
    )


def test_an_item_that_meets_no_taste_gets_a_neutral_line() -> None:
    ctx = one_item(PreferenceModel(), movie(categories=["Western"]))
    assert "neither here nor there" in RuleCustomer().answer(ctx, "What about m1?")


def test_a_genre_question_follows_the_preference_weight() -> None:
    persona = Persona(
        id="p",
        description="x",
        preferences=PreferenceModel(categories={"Comedy": 0.9, "Horror": -0.8}),
    )
    ctx = CustomerContext(persona=persona, category="Films", items=[], utilities={})
    assert RuleCustomer().answer(ctx, "Do you like comedy?") == "I love comedy."
    assert RuleCustomer().answer(ctx, "And horror?") == "I'd rather avoid horror."


def test_an_open_question_names_the_category() -> None:
    ctx = context(make_stream())
    answer = RuleCustomer().answer(ctx, "What are you looking for?")
    assert category_words(ctx.category) in answer


def test_an_answer_given_again_in_the_episode_says_so() -> None:
    ctx = context(make_stream())
    first = RuleCustomer().answer(ctx, "Do you like comedy?")
    later = CustomerContext(
        persona=ctx.persona,
        category=ctx.category,
        items=ctx.items,
        utilities=ctx.utilities,
        dialogue=(("Do you like comedy?", first),),
    )
    assert RuleCustomer().answer(later, "Do you like comedy?").startswith("As I said, ")


def test_the_same_words_about_another_item_are_not_marked_as_said_before() -> None:
    prefs = PreferenceModel(categories={"Western": 0.5})
    items = [movie(categories=["Western"]), movie(id="m2", title="Mesa", categories=["Western"])]
    persona = Persona(id="p", description="x", preferences=prefs)
    said = (("What about m1?", "It's a western, which I like."),)
    ctx = CustomerContext(
        persona=persona,
        category="Westerns",
        items=items,
        utilities={},
        dialogue=said,
        knows_items=True,
    )
    assert RuleCustomer().answer(ctx, "What about m2?") == "It's a western, which I like."


def bare(
    description: str, items: list[ChoiceItem] | None = None, *, knows_items: bool = True
) -> CustomerContext:
    persona = Persona(id="p", description=description)
    return CustomerContext(
        persona=persona,
        category="Westerns",
        items=items or [],
        utilities={},
        knows_items=knows_items,
    )


DESCRIPTION = (
    "A retired teacher in her 60s who loves westerns and old war stories. She values "
    "family time and dislikes graphic horror. She is frugal and careful with money."
)


def test_a_persona_without_a_model_answers_from_the_sentences_that_share_words() -> None:
    ctx = bare(DESCRIPTION)
    assert RuleCustomer().answer(ctx, "Do you enjoy westerns?") == (
        "About me: A retired teacher in her sixties who loves westerns and old war stories."
    )
    assert "frugal" in RuleCustomer().answer(ctx, "What's your budget?")


def test_a_persona_without_a_model_says_when_it_has_no_view() -> None:
    ctx = bare(DESCRIPTION)
    assert RuleCustomer().answer(ctx, "Do you like jazz?") == (
        "I don't have a strong preference about that."
    )


def test_a_persona_without_a_model_answers_an_open_question_with_who_it_is() -> None:
    answer = RuleCustomer().answer(bare(DESCRIPTION), "What are you looking for?")
    assert answer.startswith("I'm shopping for westerns for myself. A retired teacher")


def test_a_persona_without_a_model_relates_a_named_item_to_its_description() -> None:
    item = movie(categories=["Western", "Family"])
    answer = RuleCustomer().answer(bare(DESCRIPTION, [item]), "What about m1?")
    assert answer.startswith("It's a western, and about me:") and "western" in answer


def test_by_default_a_persona_without_a_model_does_not_relate_a_named_item() -> None:
    item = movie(categories=["Western", "Family"])
    answer = RuleCustomer().answer(bare(DESCRIPTION, [item], knows_items=False), "What about m1?")
    assert answer.startswith("I don't know that one") and "western" not in answer.split(".")[0]
