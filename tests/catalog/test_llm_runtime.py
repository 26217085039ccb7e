"""litellm loaded quiet, and the credentials a model needs found before any call."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import pytest

from taurec.catalog.llm_runtime import load_litellm, missing_credentials, refusal_errors


def test_litellm_is_loaded_without_its_banners_or_debug_prints() -> None:
    litellm = load_litellm()
    assert litellm.suppress_debug_info is True and litellm.set_verbose is False


def test_a_provider_model_without_its_key_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert missing_credentials("openai/gpt-4o-mini") == ["OPENAI_API_KEY"]


def test_a_model_whose_key_is_set_needs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert missing_credentials("anthropic/claude-3-5-haiku-latest") == []


def test_the_mock_model_and_local_servers_need_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    assert missing_credentials("mock") == []
    assert missing_credentials("ollama/llama3") == []


def test_refused_keys_permissions_and_models_are_never_retried() -> None:
    litellm = load_litellm()
    refused = refusal_errors(litellm)
    assert litellm.AuthenticationError in refused and litellm.PermissionDeniedError in refused
