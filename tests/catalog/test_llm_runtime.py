"""litellm loaded quiet, and the credentials a model needs found before any call."""

from __future__ import annotations

import ast
import logging
import os
from pathlib import Path

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import pytest

from taurec.catalog.llm_runtime import (
    LITELLM_LOGGERS,
    load_litellm,
    missing_credentials,
    refusal_errors,
)


def test_litellm_is_loaded_without_its_banners_or_debug_prints() -> None:
    litellm = load_litellm()
    assert litellm.suppress_debug_info is True and litellm.set_verbose is False


def test_litellm_logs_only_errors_unless_litellm_log_asks_for_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LITELLM_LOG", raising=False)
    for name in LITELLM_LOGGERS:
        monkeypatch.setattr(logging.getLogger(name), "level", logging.NOTSET)
    load_litellm()
    assert all(logging.getLogger(n).level == logging.ERROR for n in LITELLM_LOGGERS)
    monkeypatch.setenv("LITELLM_LOG", "DEBUG")
    monkeypatch.setattr(logging.getLogger("LiteLLM"), "level", logging.NOTSET)
    load_litellm()
    assert logging.getLogger("LiteLLM").level == logging.NOTSET


def test_a_model_litellm_cannot_place_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    litellm = load_litellm()
    with pytest.raises(litellm.BadRequestError):  # raised before any network use
        litellm.completion(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
    out, err = capsys.readouterr()
    assert (out, err) == ("", "")


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


def _imports_litellm(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        if any(n == "litellm" or n.startswith("litellm.") for n in names):
            return True
    return False


def test_every_llm_path_loads_litellm_through_the_quiet_loader() -> None:
    root = Path(__file__).resolve().parents[2]
    layers = ("catalog", "tasks", "policies", "server", "evaluator", "clients")
    found = [
        str(path.relative_to(root))
        for layer in layers
        for path in sorted((root / layer).rglob("*.py"))
        if _imports_litellm(path)
    ]
    assert found == ["catalog/llm_runtime.py"]
