"""Default labels name what changes a run: the model and sampling of an LLM agent and
the modes it plays in, so runs that differ are never reported as one."""

from __future__ import annotations

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import default_label


def test_an_llm_agents_label_names_its_model_and_modes() -> None:
    plain = AgentSettings(model="openai/gpt-4o", temperature=0.0)
    assert default_label("llm", plain) == "openai/gpt-4o@t0"
    modes = AgentSettings(model="openai/gpt-4o", options={"planning": "greedy", "confidence": True})
    assert default_label("llm", modes) == "openai/gpt-4o+confidence+planning=greedy"
    assert default_label("oracle", AgentSettings(model="mock")) == "oracle@mock"


def test_urls_and_given_labels_stay_out_of_it() -> None:
    assert default_label("crs", AgentSettings(options={"crs_url": "http://x/"})) == "crs"
    assert default_label("llm", AgentSettings(label="mine", model="m")) == "mine"
    assert default_label("learner", AgentSettings()) == "learner"
