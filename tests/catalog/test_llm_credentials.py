"""A model's missing key told from its name alone: the same answer litellm gives, without
importing litellm."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import subprocess
import sys

import pytest
from support.hang_guard import HANG_GUARD_S

from taurec.catalog.llm_credentials import (
    LOCAL_PROVIDERS,
    PROVIDER_KEYS,
    known_missing,
    provider_of,
)
from taurec.catalog.llm_runtime import load_litellm

ALL_KEYS = sorted({v for keys in PROVIDER_KEYS.values() for v in keys.accepted})


def _clear(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ALL_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("provider", sorted(PROVIDER_KEYS))
def test_each_providers_missing_key_is_the_one_litellm_names(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clear(monkeypatch)
    model = f"{provider}/some-model"
    found = load_litellm().validate_environment(model)
    assert known_missing(model) == found["missing_keys"] != []


@pytest.mark.parametrize("provider", sorted(PROVIDER_KEYS))
def test_each_accepted_variable_satisfies_litellm_too(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROVIDER_KEYS[provider].accepted:
        _clear(monkeypatch)
        monkeypatch.setenv(name, "sk-test")
        model = f"{provider}/some-model"
        assert known_missing(model) == load_litellm().validate_environment(model)["missing_keys"]
        assert known_missing(model) == []


def test_local_providers_need_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    assert all(known_missing(f"{p}/llama3") == [] for p in LOCAL_PROVIDERS)


def test_bare_names_and_unknown_providers_are_left_to_litellm() -> None:
    assert provider_of("gpt-4o-mini") is None
    assert known_missing("gpt-4o-mini") is None
    assert known_missing("azure/my-deployment") is None
    assert known_missing("mock") is None


def test_a_missing_key_is_found_without_importing_litellm() -> None:
    code = (
        "import sys\n"
        "from taurec.catalog.llm_runtime import missing_credentials\n"
        "print(missing_credentials('openai/gpt-4o-mini'), 'litellm' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=HANG_GUARD_S
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['OPENAI_API_KEY']", "False"]
