"""The LLM customer (litellm mocked): BIEL's prompts (persona, category, tastes in words,
the conversation, the rules; feedback in the tone of the regret band), never a utility or
anything drawn from one, the leak guard, the fallback, and a stream log with LLM words
that still replays."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from support.streams import make_stream

from taurec.evaluator.logs import Resolver, score_log
from taurec.server.settings import ServerSettings
from taurec.server.stream.llm_customer import (
    TONES,
    UNKNOWN_ITEMS,
    LLMCustomer,
    LLMCustomerSettings,
)
from taurec.server.stream.service import StreamService
from taurec.tasks.stream.customer import CustomerContext, RuleCustomer
from taurec.tasks.stream.feedback import PERFECT
from taurec.tasks.stream.task import FeedbackKind
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm

SETTINGS = LLMCustomerSettings(model="openai/mock")


def mocked(replies: list[str], seen: list[list[dict[str, str]]]) -> Any:
    def complete(**kwargs: Any) -> Any:
        seen.append(kwargs["messages"])
        return litellm.completion(
            model=kwargs["model"], messages=kwargs["messages"], mock_response=replies.pop(0)
        )

    return complete


def context(
    utilities: dict[str, float] | None = None,
    dialogue: tuple[tuple[str, str], ...] = (),
    *,
    knows_items: bool = False,
) -> CustomerContext:
    task = make_stream()
    ep = task.episodes[0]
    return CustomerContext(
        persona=task.persona_index[ep.persona_id],
        category=ep.category_name,
        items=[task.item_index[i] for i in ep.item_ids],
        utilities=ep.utilities if utilities is None else utilities,
        dialogue=dialogue,
        knows_items=knows_items,
    )


def odd_utilities() -> dict[str, float]:
    """Utilities no listing could hold by chance (no year, runtime or price is 61.37...)."""
    return {i: 61.37 + 0.11 * n for n, i in enumerate(context().utilities)}


def prompt_text(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def answer_prompt(ctx: CustomerContext, question: str) -> str:
    seen: list[list[dict[str, str]]] = []
    LLMCustomer(SETTINGS, mocked(["Fine."], seen)).answer(ctx, question)
    return prompt_text(seen[0])


def feedback_prompt(ctx: CustomerContext, chosen: float, best: float) -> str:
    seen: list[list[dict[str, str]]] = []
    LLMCustomer(SETTINGS, mocked(["Fine."], seen)).react(ctx, chosen, best, ctx.items[0], None, 0)
    return prompt_text(seen[0])


def test_the_prompt_has_the_persona_the_category_and_biels_rules() -> None:
    seen: list[list[dict[str, str]]] = []
    ctx = context()
    reply = LLMCustomer(SETTINGS, mocked(["Something funny, please."], seen)).answer(
        ctx, "What do you want?"
    )
    assert reply == "Something funny, please."
    system = seen[0][0]["content"]
    assert ctx.persona.description in system and f"shopping for {ctx.category}" in system
    assert "BE CONSISTENT" in system and "HELPFUL & HONEST" in system and "CONCISE" in system
    assert "Your tastes, in your own words:" in system and "I love" in system


def test_the_prompt_holds_no_utility_and_nothing_drawn_from_one() -> None:
    ctx = context(odd_utilities())
    first = ctx.items[0]
    for question in ("What do you want?", f"What about {first.id}?"):
        text = answer_prompt(ctx, question)
        assert not any(f"{u:g}" in text for u in ctx.utilities.values())
        assert "you would" not in text  # the old per-item bands: "- TITLE: you would love it"
        permuted = dict(zip(ctx.utilities, reversed(ctx.utilities.values()), strict=True))
        assert answer_prompt(context(permuted), question) == text
        assert answer_prompt(context(dict.fromkeys(ctx.utilities, 50.0)), question) == text


def test_by_default_the_prompt_lists_no_item_and_says_the_products_are_unknown() -> None:
    ctx = context()
    named = answer_prompt(ctx, f"What about {ctx.items[0].id}?")
    assert not any(i.title in named for i in ctx.items)
    assert UNKNOWN_ITEMS in named
    assert UNKNOWN_ITEMS not in answer_prompt(ctx, "What do you want?")


def test_knowing_the_items_the_prompt_lists_only_the_items_the_question_names() -> None:
    ctx = context(knows_items=True)
    first, others = ctx.items[0], ctx.items[1:]
    assert not any(i.title in answer_prompt(ctx, "What do you want?") for i in ctx.items)
    named = answer_prompt(ctx, f"What about {first.id}?")
    assert first.title in named and not any(i.title in named for i in others)


def test_the_prompt_holds_the_conversation_so_far() -> None:
    asked = (("Do you like comedy?", "I love comedy."), ("Long films?", "Not too long."))
    text = answer_prompt(context(dialogue=asked), "Anything else?")
    assert "Q: Do you like comedy?\nA: I love comedy.\nQ: Long films?\nA: Not too long." in text
    assert "No previous conversation." in answer_prompt(context(), "Anything else?")


def test_a_persona_without_a_model_is_prompted_with_its_description_only() -> None:
    ctx = context()
    bare = CustomerContext(
        persona=ctx.persona.model_copy(update={"preferences": None}),
        category=ctx.category,
        items=ctx.items,
        utilities=ctx.utilities,
    )
    text = answer_prompt(bare, "What do you want?")
    assert ctx.persona.description in text and "Your tastes" not in text


def test_a_reply_with_a_number_is_regenerated_once() -> None:
    seen: list[list[dict[str, str]]] = []
    customer = LLMCustomer(SETTINGS, mocked(["I'd give it 85 out of 100.", "I'd love it."], seen))
    assert customer.answer(context(), "Score it?") == "I'd love it."
    assert customer.stats() == {"calls": 2, "leaks_caught": 1, "rule_fallbacks": 0}


def test_a_reply_leaking_twice_falls_back_to_the_rule_based_customer() -> None:
    seen: list[list[dict[str, str]]] = []
    customer = LLMCustomer(SETTINGS, mocked(["Utility 72.", "Still 72."], seen))
    ctx = context()
    assert customer.answer(ctx, "Do you like comedy?") == RuleCustomer().answer(
        ctx, "Do you like comedy?"
    )
    assert customer.stats()["rule_fallbacks"] == 1


def test_regret_0_gives_the_perfect_reply_without_a_call() -> None:
    seen: list[list[dict[str, str]]] = []
    ctx = context()
    item = ctx.items[0]
    assert LLMCustomer(SETTINGS, mocked([], seen)).react(ctx, 80, 80, item, None, 0) == PERFECT
    assert seen == []


def test_the_reaction_asks_for_the_tone_of_the_regret_band() -> None:
    seen: list[list[dict[str, str]]] = []
    ctx = context()
    text = LLMCustomer(SETTINGS, mocked(["Not for me at all."], seen)).react(
        ctx, 20, 80, ctx.items[0], None, 0
    )
    assert text == "Not for me at all." and TONES["dissatisfied"] in seen[0][-1]["content"]


def test_the_feedback_prompt_follows_biel_by_band_and_holds_no_score() -> None:
    asked = (("Do you like comedy?", "I love comedy."),)
    ctx = context(odd_utilities(), asked)
    item = ctx.items[0]
    for (chosen, best), mood in (
        ((77.3, 83.9), "positive"),
        ((57.3, 83.9), "moderate"),
        ((17.3, 83.9), "dissatisfied"),
    ):
        text = feedback_prompt(ctx, chosen, best)
        assert TONES[mood] in text and all(TONES[m] not in text for m in TONES if m != mood)
        assert f'"{item.title}" (price: not listed)' in text
        assert "Q: Do you like comedy?\nA: I love comedy." in text
        assert ctx.persona.description in text and ctx.category in text
        numbers = (chosen, best, round(best - chosen, 1), *ctx.utilities.values())
        assert not any(f"{x:g}" in text for x in numbers)


async def test_a_stream_with_llm_words_replays_without_mismatches(tmp_path: Path) -> None:
    suite = load_suite("stream:builtin")
    task = next(t for t in suite.tasks if t.feedback is FeedbackKind.PERSONA)
    seen: list[list[dict[str, str]]] = []
    replies = ["I like calm films."] + ["Hmm, it's fine."] * 20
    settings = ServerSettings(suite="stream:builtin", log_dir=tmp_path, run_label="t")
    service = StreamService.create(settings, suite)
    service.make_customer = lambda: LLMCustomer(SETTINGS, mocked(replies, seen))
    started = await service.start(task.id, 0, None, "tester")
    stream = started.episode_id
    await service.run(stream, "ask_question", {"question": "Mood?"}, lambda s: s.ask("Mood?"))
    for n, ep in enumerate(task.episodes):
        pick = ep.ranked()[-1]
        await service.run(
            stream, "recommend_item", {"item_id": pick}, lambda s, p=pick: s.recommend(p)
        )
        if n < len(task.episodes) - 1:
            await service.run(stream, "next_episode", {}, lambda s: s.next_episode())
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.header is not None and log.header.simulator.kind == "llm"
    assert '"I like calm films."' in path.read_text()
    score = score_log(log, Resolver(suite="stream:builtin"))
    assert score.replay_mismatches == 0 and score.problems == []


async def test_the_customers_model_calls_are_in_the_stream_log(tmp_path: Path) -> None:
    from taurec.tasks.trajectory.model_calls import find_store, read_store

    suite = load_suite("stream:builtin")
    task = suite.tasks[0]
    seen: list[list[dict[str, str]]] = []
    settings = ServerSettings(suite="stream:builtin", log_dir=tmp_path, run_label="t")
    service = StreamService.create(settings, suite)
    service.make_customer = lambda: LLMCustomer(SETTINGS, mocked(["I like calm films."], seen))
    stream = (await service.start(task.id, 0, None, "tester")).episode_id
    await service.run(stream, "ask_question", {"question": "Mood?"}, lambda s: s.ask("Mood?"))
    (path,) = tmp_path.rglob("*.jsonl")
    events = read_log(path).events
    (call,) = [e for e in events if e["type"] == "model_call"]
    assert call["caller"] == "user" and call["model"] == SETTINGS.model
    assert call["output"]["content"] == "I like calm films."
    assert call["settings"] == {"temperature": 0.0, "max_tokens": 100}
    kinds = [e["type"] for e in events]
    assert kinds.index("model_call") < kinds.index("tool_result")  # made during the call
    store_path = find_store(path)
    assert store_path is not None
    store = read_store(store_path, 2**30)
    assert [store.contents[h] for h in store.messages(call["input"]) or []] == seen[0]
