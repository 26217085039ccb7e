"""The rule-based customer answers from its tastes, consistently, and never with a number."""

from __future__ import annotations

import re

from support.streams import make_stream

from taurec.catalog.personas import Persona
from taurec.catalog.preferences import PreferenceModel
from taurec.tasks.stream.customer import CustomerContext, RuleCustomer
from taurec.tasks.stream.task import StreamTask

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
)


def context(task: StreamTask, n: int = 0) -> CustomerContext:
    ep = task.episodes[n]
    return CustomerContext(
        persona=task.persona_index[ep.persona_id],
        category=ep.category_name,
        items=[task.item_index[i] for i in ep.item_ids],
        utilities=ep.utilities,
    )


def test_answers_never_state_a_number() -> None:
    task = make_stream(episodes=5)
    customer = RuleCustomer()
    for n in range(5):
        ctx = context(task, n)
        for q in (*QUESTIONS, *(f"What about {i.title}?" for i in ctx.items)):
            assert not re.search(r"\d", customer.answer(ctx, q))


def test_the_same_question_gets_the_same_answer() -> None:
    ctx = context(make_stream())
    assert RuleCustomer().answer(ctx, QUESTIONS[2]) == RuleCustomer().answer(ctx, QUESTIONS[2])


def test_a_genre_question_follows_the_preference_weight() -> None:
    persona = Persona(
        id="p",
        description="x",
        preferences=PreferenceModel(categories={"Comedy": 0.9, "Horror": -0.8}),
    )
    ctx = CustomerContext(persona=persona, category="Films", items=[], utilities={})
    assert RuleCustomer().answer(ctx, "Do you like comedy?") == "I love comedy."
    assert RuleCustomer().answer(ctx, "And horror?") == "I'd rather avoid horror."


def test_asking_about_the_best_item_gets_enthusiasm_and_the_worst_a_refusal() -> None:
    task = make_stream()
    ctx = context(task)
    ranked = task.episodes[0].ranked()
    best, worst = task.item_index[ranked[0]], task.item_index[ranked[-1]]
    assert "just right" in RuleCustomer().answer(ctx, f"How about {best.id}?")
    assert "isn't for me" in RuleCustomer().answer(ctx, f"How about {worst.id}?")


def test_an_open_question_names_the_category_and_a_liked_genre_when_shown() -> None:
    ctx = context(make_stream())
    answer = RuleCustomer().answer(ctx, "What are you looking for?")
    assert ctx.category.lower() in answer


def test_a_persona_without_a_model_answers_from_its_utilities() -> None:
    task = make_stream()
    ctx = context(task)
    bare = CustomerContext(
        persona=ctx.persona.model_copy(update={"preferences": None}),
        category=ctx.category,
        items=ctx.items,
        utilities=ctx.utilities,
    )
    assert "I'm after something in" in RuleCustomer().answer(bare, "Tell me what you want")
