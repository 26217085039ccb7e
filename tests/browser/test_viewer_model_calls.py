"""A model call in the viewer, in a real browser: folded in the conversation with its model,
tokens and time; unfolded, the messages it sent and its completion, as text (a
completion carrying markup stays text); the page logs no console error."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

from pathlib import Path
from typing import Any

import anyio
import pytest

from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.server.settings import ServerSettings
from tests.support.browser import console_errors, until
from tests.support.viewer import HOSTILE_TEXT, served


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One episode of an LLM agent (litellm's mock) whose every reply is markup."""
    out = tmp_path_factory.mktemp("viewer-models") / "logs"
    agent = LLMAgent(
        LLMAgentSettings(
            model="openai/gpt-4o-mini", max_steps=2, litellm_kwargs={"mock_response": HOSTILE_TEXT}
        )
    )
    runner = Runner(agent, Connection("inproc", ServerSettings(log_dir=out)), out, "talker")
    anyio.run(runner.run, plan(["t001"], 1))
    return out


def _wait(driver: Any, css: str) -> list[Any]:
    return until(driver, lambda d: d.find_elements("css selector", css) or False)


def test_a_model_call_unfolds_to_what_it_sent_and_got(
    browser: Any, logs: Path, screenshots: Path
) -> None:
    with served([logs]) as url:
        browser.get(url)
        _wait(browser, "#episodes tbody tr")[0].click()
        folded = _wait(browser, "#conversation details.model")
        assert len(folded) == 2
        summary = folded[0].find_element("css selector", "summary").text
        assert "model call: agent → openai/gpt-4o-mini" in summary
        assert " in / " in summary and " ms" in summary and "$" in summary
        assert not folded[0].get_attribute("open")
        folded[1].find_element("css selector", "summary").click()
        sent = folded[1].find_elements("css selector", ".sent details.msg-in")
        assert [s.find_element("css selector", "summary").text.split(":")[0] for s in sent] == [
            "system",
            "user",
            "assistant",
            "user",
        ]
        sent[0].find_element("css selector", "summary").click()
        assert "taurec" in sent[0].find_element("css selector", "pre").text
        completion = folded[1].find_element("css selector", ".completion pre").text
        assert completion == HOSTILE_TEXT
        assert (
            browser.execute_script(
                "return document.querySelectorAll('b, script:not([src])').length"
            )
            == 0
        )
        browser.save_screenshot(str(screenshots / "served-model-call.png"))
        # checked while the server runs: once it stops, the page's next poll fails
        assert console_errors(browser) == []
