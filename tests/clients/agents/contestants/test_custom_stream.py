"""`taurec run --suite stream:... --agent file.py:Class` with one's own stream policy: the
example of docs/streams.md runs as written, every stream gets a fresh instance, the run's
settings reach a constructor that takes them, and a bad policy is one line with exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.contestants.custom import is_stream_policy, make_custom_agent
from taurec.clients.agents.registry import AgentUnavailable
from taurec.clients.agents.stream.agents import StreamAgent
from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator

ROOT = Path(__file__).resolve().parents[4]
TASKS = "stream-variable-category-regret-000,stream-variable-persona-regret-000"
POLICIES = """
from taurec.clients.agents.stream.api import StreamPolicyBase, recommend


class OneStream(StreamPolicyBase):
    label = "one-stream"
    made = 0

    def __init__(self):
        type(self).made += 1
        self.seen = []

    async def act(self, view, dialogue):
        self.seen.append(view["episode"])
        if self.seen != list(range(1, len(self.seen) + 1)):
            raise RuntimeError(f"state leaked between streams: {self.seen}")
        return recommend(view["items"][0]["id"])


class WithSettings(StreamPolicyBase):
    def __init__(self, settings):
        self.label = f"settings-{settings.suite}"

    async def act(self, view, dialogue):
        return recommend(view["items"][-1]["id"])


class NoObserve:
    label = "no-observe"

    async def act(self, view, dialogue):
        return "recommend", view["items"][0]["id"]


class NotAsync(StreamPolicyBase):
    def act(self, view, dialogue):
        return recommend(view["items"][0]["id"])
"""

cli = CliRunner()


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    path = tmp_path / "my_policies.py"
    path.write_text(POLICIES)
    return path


def run(agent: str, out: Path, *more: str):
    args = ["run", "--suite", "stream:builtin", "--agent", agent, "--tasks", TASKS]
    return cli.invoke(app, [*args, "--trials", "1", "--out", str(out), *more])


def scored(out: Path) -> dict:
    result = cli.invoke(evaluator, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    (group,) = orjson.loads(result.stdout)["groups"]
    return group


def doc_example(tmp_path: Path) -> Path:
    """The stream agent of docs/streams.md, "Your own stream agent", as written there."""
    text = (ROOT / "docs" / "streams.md").read_text()
    section = text.split("## Your own stream agent", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    path = tmp_path / "my_stream_agent.py"
    path.write_text(code.group(1))
    return path


def test_the_docs_example_plays_and_is_scored(tmp_path: Path) -> None:
    example = doc_example(tmp_path)
    assert len(example.read_text().splitlines()) <= 35
    result = run(f"{example}:AskThenPick", tmp_path / "logs")
    assert result.exit_code == 0, result.output
    group = scored(tmp_path / "logs")
    assert group["label"] == "ask-then-pick" and group["streams"] == 2
    assert group["incomplete"] == 0 and group["avg_questions"] == 1.0


def test_every_stream_gets_a_fresh_instance(policies: Path, tmp_path: Path) -> None:
    result = run(f"{policies}:OneStream", tmp_path / "logs", "--concurrency", "2")
    assert result.exit_code == 0, result.output
    group = scored(tmp_path / "logs")
    assert group["streams"] == 2 and group["incomplete"] == 0
    agent = make_custom_agent(f"{policies}:OneStream", AgentSettings())
    assert isinstance(agent, StreamAgent) and agent.label == "one-stream"


def test_a_constructor_that_takes_settings_gets_the_runs(policies: Path, tmp_path: Path) -> None:
    agent = make_custom_agent(f"{policies}:WithSettings", AgentSettings(suite="stream:builtin"))
    assert agent.label == "settings-stream:builtin"
    relabelled = make_custom_agent(f"{policies}:WithSettings", AgentSettings(label="mine"))
    assert relabelled.label == "mine"


def test_a_policy_without_observe_plays(policies: Path, tmp_path: Path) -> None:
    result = run(f"{policies}:NoObserve", tmp_path / "logs")
    assert result.exit_code == 0, result.output
    assert scored(tmp_path / "logs")["incomplete"] == 0


def test_a_policy_whose_act_is_not_async_is_one_line_with_exit_2(
    policies: Path, tmp_path: Path
) -> None:
    result = run(f"{policies}:NotAsync", tmp_path / "logs")
    assert result.exit_code == 2
    assert "NotAsync.act is not async" in result.stderr and "Traceback" not in result.stderr
    with pytest.raises(AgentUnavailable, match="not async"):
        make_custom_agent(f"{policies}:NotAsync", AgentSettings())


def test_a_class_with_act_and_no_run_is_a_stream_policy() -> None:
    class Policy:
        async def act(self, view: object, dialogue: object) -> None: ...

    class Both(Policy):
        async def run(self, episode: object) -> None: ...

    assert is_stream_policy(Policy) and not is_stream_policy(Both)
    assert not is_stream_policy(Policy())
