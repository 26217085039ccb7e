"""Calling the model behind the LLM user: reply cache, retries, usage and cost, and the
whole path through litellm.completion with its own `mock_response` (no network)."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import litellm
import pytest

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.llm_client import (
    LLMClient,
    LLMUserSettings,
    SimulatorUnavailable,
)
from taurec.server.recommendation.simulator.llm_user import make_llm_user
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask

CATALOG = Catalog.from_items(
    [
        Item(
            id="good",
            title="The Lantern Keeper",
            release_date="2015-05-01",
            runtime=85,
            genres=["Comedy"],
            rating=7.5,
            vote_count=5000,
            content_rating="PG",
        )
    ]
)
TASK = RecommendationTask(
    id="t",
    persona="You are Ann, a nurse.",
    constraints=[
        Constraint(field="genres", op="contains", value="Comedy", reveal="volunteer"),
        Constraint(field="runtime", op="<=", value=90, reveal="hidden"),
    ],
)
HELLO = [{"role": "user", "content": "hello"}]


class Model:
    """A stand-in for litellm.completion: raises the queued errors, then answers."""

    def __init__(self, text: str = "Hi, a comedy please.", errors: list[Exception] | None = None):
        self.text = text
        self.errors = list(errors or [])
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if self.errors:
            raise self.errors.pop(0)
        message = SimpleNamespace(content=self.text)
        usage = SimpleNamespace(prompt_tokens=12, completion_tokens=4)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=usage)


def _settings(model: Model, **kw: Any) -> LLMUserSettings:
    kw.setdefault("cache_dir", None)
    return LLMUserSettings(model="openai/test", completion=model, **kw)


def _rate_limited() -> Exception:
    return litellm.RateLimitError(message="slow down", llm_provider="openai", model="test")


# --- the reply cache -----------------------------------------------------------------------


def test_a_cache_hit_makes_no_call_and_gives_the_same_text(tmp_path: Path):
    first = Model("Hi, a comedy please.")
    user = make_llm_user(TASK, CATALOG, 5, _settings(first, cache_dir=tmp_path))
    said = user.opening()
    again = Model("Something else entirely.")
    rerun = make_llm_user(TASK, CATALOG, 5, _settings(again, cache_dir=tmp_path))
    assert rerun.opening() == said
    assert again.calls == []
    assert rerun.stats()["cache_hits"] == 1 and rerun.stats()["llm_calls"] == 0


def test_another_seed_is_another_sample_not_a_cache_hit(tmp_path: Path):
    make_llm_user(TASK, CATALOG, 5, _settings(Model(), cache_dir=tmp_path)).opening()
    other = Model("Hello there!")
    user = make_llm_user(TASK, CATALOG, 6, _settings(other, cache_dir=tmp_path))
    assert user.opening() == "Hello there!" and len(other.calls) == 1


def test_a_corrupt_cache_entry_is_ignored_and_rewritten(tmp_path: Path):
    client = LLMClient(_settings(Model("first"), cache_dir=tmp_path), seed=0)
    client.complete(HELLO, "reply")
    (entry,) = tmp_path.glob("*/*.json")
    entry.write_text("{not json")
    fresh = LLMClient(_settings(Model("second"), cache_dir=tmp_path), seed=0)
    assert fresh.complete(HELLO, "reply") == "second"
    assert (
        LLMClient(_settings(Model("third"), cache_dir=tmp_path), seed=0).complete(HELLO, "reply")
        == "second"
    )


def test_the_call_purpose_keeps_cache_entries_apart(tmp_path: Path):
    client = LLMClient(_settings(Model("x"), cache_dir=tmp_path), seed=0)
    client.complete(HELLO, "reply")
    client.complete(HELLO, "decide")
    assert client.stats.llm_calls == 2 and len(list(tmp_path.glob("*/*.json"))) == 2


# --- retries -------------------------------------------------------------------------------


def test_a_transient_error_is_retried_with_growing_waits():
    waits: list[float] = []
    model = Model(
        "ok",
        errors=[_rate_limited(), litellm.Timeout(message="t", model="m", llm_provider="openai")],
    )
    client = LLMClient(_settings(model, sleep=waits.append, backoff_seconds=0.5), seed=0)
    assert client.complete(HELLO, "reply") == "ok"
    assert waits == [0.5, 1.0] and client.stats.retries == 2 and len(model.calls) == 3


def test_exhausted_retries_raise_simulator_unavailable():
    waits: list[float] = []
    model = Model(errors=[_rate_limited() for _ in range(4)])
    client = LLMClient(_settings(model, sleep=waits.append, max_retries=3), seed=0)
    with pytest.raises(SimulatorUnavailable, match="RateLimitError after 4 attempts"):
        client.complete(HELLO, "reply")
    assert len(waits) == 3


def test_a_refused_request_is_unavailable_at_once():
    refused = litellm.AuthenticationError(message="bad key", llm_provider="openai", model="test")
    model = Model(errors=[refused])
    client = LLMClient(_settings(model, sleep=lambda _: pytest.fail("no retry")), seed=0)
    with pytest.raises(SimulatorUnavailable, match="AuthenticationError"):
        client.complete(HELLO, "reply")


def test_an_error_that_is_not_litellms_surfaces_as_it_is():
    client = LLMClient(_settings(Model(errors=[KeyError("bug")])), seed=0)
    with pytest.raises(KeyError):
        client.complete(HELLO, "reply")


# --- what reaches litellm, and what it cost -------------------------------------------------


def test_each_call_carries_the_settings_and_the_episode_seed():
    model = Model()
    client = LLMClient(_settings(model, temperature=0.3, max_tokens=50), seed=42)
    client.complete(HELLO, "reply")
    call = model.calls[0]
    assert (call["model"], call["temperature"], call["max_tokens"]) == ("openai/test", 0.3, 50)
    assert call["seed"] == 42 and call["drop_params"] is True


def test_tokens_add_up_and_an_unpriced_call_is_counted():
    client = LLMClient(_settings(Model()), seed=0)
    client.complete(HELLO, "reply")
    client.complete(HELLO, "decide")
    stats = client.stats.as_dict()
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (24, 8)
    assert stats["unpriced_calls"] == 2 and stats["cost_usd"] == 0.0


@pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier")
def test_litellm_mock_response_works_end_to_end():
    settings = LLMUserSettings(
        model="openai/gpt-4o-mini",
        cache_dir=None,
        variant="dual",
        litellm_kwargs={"mock_response": "Hi! I want a comedy tonight."},
    )
    user = make_llm_user(TASK, CATALOG, 1, settings)
    assert user.opening() == "Hi! I want a comedy tonight."
    reply = user.respond("How about The Lantern Keeper?")  # the decision is unreadable: go on
    assert reply.text == "Hi! I want a comedy tonight." and reply.accepted == "good"
    stats = user.stats()
    assert stats["llm_calls"] == 3 and stats["unparsed_decisions"] == 1
    assert stats["prompt_tokens"] > 0 and stats["cost_usd"] > 0  # priced from the local map
