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


def test_every_registered_agent_reports_its_name_and_settings_but_not_its_seed() -> None:
    from taurec.clients.agents.base import AgentSettings
    from taurec.clients.agents.registry import make_agent

    made = make_agent("learner", AgentSettings(seed=3, suite="stream:builtin"), "stream")
    again = make_agent("learner", AgentSettings(seed=9, suite="stream:builtin"), "stream")
    info = made.agent_info  # type: ignore[attr-defined]
    assert info == {"kind": "learner", "model": None, "settings": {}}
    assert again.agent_info == info  # type: ignore[attr-defined]
