"""`taurec run --agent module:Class | path/file.py:Class`: one's own agent gets what the
built-in agents get, and a bad spec is one line with exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.contestants.custom import is_custom, make_custom_agent
from taurec.clients.agents.registry import AgentUnavailable
from taurec.clients.cli.main import app

AGENTS = """
from taurec.clients.agents.base import AgentInfraError


class Abstainer:
    label = "abstainer"

    async def run(self, episode):
        await episode.recommend(None)


class Seeded:
    def __init__(self, settings):
        self.label = f"seeded-{settings.seed}"

    async def run(self, episode):
        await episode.recommend(None)


class NotAnAgent:
    label = "not-an-agent"

    def run(self, episode):
        return None


class Broken:
    def __init__(self):
        raise RuntimeError("no config")


class InfraDown:
    label = "infra-down"

    async def run(self, episode):
        raise AgentInfraError("the provider is down")


not_callable = 3
"""

runner = CliRunner()


@pytest.fixture
def agents_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(AGENTS)
    return path


def _run(*args: str):
    return runner.invoke(app, ["run", "--tasks", "t001,t004", "--trials", "1", *args])


def test_a_colon_marks_ones_own_agent() -> None:
    assert is_custom("pkg.mod:Agent") and is_custom("a/b.py:Agent") and not is_custom("llm")


def test_an_agent_from_a_file_plays_is_scored_and_gets_the_table(
    agents_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "logs"
    result = _run("--agent", f"{agents_file}:Abstainer", "--log-dir", str(out))
    assert result.exit_code == 0, result.output
    assert "agent: abstainer" in result.stdout and "pass^1" in result.stdout
    assert len(list(out.rglob("*.jsonl"))) == 2
    assert list((out / ".plans").glob("*.json")), "the run is sealed by a plan"


def test_an_agent_from_an_importable_module_plays(
    agents_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(agents_file.parent))
    monkeypatch.delitem(sys.modules, "my_agents", raising=False)
    result = _run("--agent", "my_agents:Abstainer", "--log-dir", str(tmp_path / "logs"))
    assert result.exit_code == 0, result.output
    assert "agent: abstainer" in result.stdout


def test_ones_own_agent_is_refused_a_second_run_and_resumes(
    agents_file: Path, tmp_path: Path
) -> None:
    spec, out = f"{agents_file}:Abstainer", str(tmp_path / "logs")
    assert _run("--agent", spec, "--log-dir", out).exit_code == 0
    again = _run("--agent", spec, "--log-dir", out)
    assert again.exit_code == 2 and "--resume" in again.stderr
    resumed = _run("--agent", spec, "--log-dir", out, "--resume")
    assert resumed.exit_code == 0 and "nothing to play" in resumed.stderr


def test_a_class_taking_settings_gets_the_runs_settings(agents_file: Path) -> None:
    agent = make_custom_agent(f"{agents_file}:Seeded", AgentSettings(seed=7))
    assert agent.label == "seeded-7"


def test_label_overrides_the_agents_own(agents_file: Path) -> None:
    agent = make_custom_agent(f"{agents_file}:Abstainer", AgentSettings(label="mine"))
    assert agent.label == "mine"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_here:Agent", "no module named 'no_such_module_here'"),
        ("missing/file.py:Agent", "no such file"),
        ("{file}:Nope", "has no attribute 'Nope'"),
        ("{file}:NotAnAgent", "not an agent"),
        ("{file}:not_callable", "not a class or factory"),
        ("{file}:Broken", "making the agent failed: RuntimeError: no config"),
        ("{file}:", "expected module:Class"),
    ],
)
def test_a_bad_agent_spec_is_one_line_with_exit_2(
    agents_file: Path, tmp_path: Path, spec: str, message: str
) -> None:
    out = tmp_path / "logs"
    result = _run("--agent", spec.format(file=agents_file), "--log-dir", str(out))
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.rglob("*.jsonl"))


def test_the_factory_error_names_the_spec(agents_file: Path) -> None:
    with pytest.raises(AgentUnavailable, match="Broken"):
        make_custom_agent(f"{agents_file}:Broken", AgentSettings())


def test_an_unknown_plain_name_lists_the_agents_and_the_module_form(tmp_path: Path) -> None:
    result = _run("--agent", "nope", "--log-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "scripted" in result.stderr and "module:Class" in result.stderr


def test_a_run_of_only_infrastructure_errors_exits_1(agents_file: Path, tmp_path: Path) -> None:
    result = _run("--agent", f"{agents_file}:InfraDown", "--log-dir", str(tmp_path / "logs"))
    assert result.exit_code == 1, result.output
    assert "all 2 episodes ended as infrastructure errors" in result.stderr
    assert "the provider is down" in result.stderr


def test_a_dry_run_of_ones_own_agent_plans_without_an_estimate(
    agents_file: Path, tmp_path: Path
) -> None:
    result = _run("--agent", f"{agents_file}:Abstainer", "--dry-run", "--log-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "2 episodes planned" in result.stdout and "no estimate" in result.stdout


def test_a_class_without_a_label_is_one_line_naming_what_to_add(tmp_path: Path) -> None:
    file = tmp_path / "unlabelled.py"
    file.write_text(
        "class NoLabel:\n    async def run(self, episode):\n        await episode.recommend(None)\n"
        "class Slotted:\n    __slots__ = ()\n    async def run(self, episode):\n        pass\n"
    )
    out = tmp_path / "logs"
    result = _run("--agent", f"{file}:NoLabel", "--log-dir", str(out))
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "NoLabel has no label; give the class a `label` attribute" in result.stderr
    labelled = _run("--agent", f"{file}:NoLabel", "--label", "mine", "--log-dir", str(out))
    assert labelled.exit_code == 0, labelled.output
    slotted = _run("--agent", f"{file}:Slotted", "--label", "x", "--log-dir", str(tmp_path / "s"))
    assert slotted.exit_code == 2 and "--label cannot be set on a Slotted" in slotted.stderr


def test_run_agent_refuses_an_object_without_a_label_in_one_line(tmp_path: Path) -> None:
    from taurec.clients.runner import run_agent
    from taurec.clients.runner.session import RunRefused

    class NoLabel:
        async def run(self, episode: object) -> None: ...

    with pytest.raises(RunRefused, match=r"^NoLabel has no label: an agent needs a `label`"):
        run_agent(NoLabel(), tasks=["t001"], out=tmp_path / "logs", quiet=True)  # type: ignore[arg-type]
    assert not (tmp_path / "logs").exists()


def test_a_custom_agent_records_its_class_and_the_digest_of_its_file(agents_file: Path) -> None:
    import hashlib

    agent = make_custom_agent(f"{agents_file}:Abstainer", AgentSettings())
    info = agent.agent_info  # type: ignore[attr-defined]
    assert info["kind"] == "custom" and info["settings"]["class"] == "my_agents.py:Abstainer"
    digest = hashlib.sha256(agents_file.read_bytes()).hexdigest()
    assert info["settings"]["code_sha256"] == digest


def test_two_custom_agents_are_told_apart_under_one_label(agents_file: Path) -> None:
    one = make_custom_agent(f"{agents_file}:Abstainer", AgentSettings(label="same"))
    other = make_custom_agent(f"{agents_file}:Seeded", AgentSettings(label="same"))
    assert one.label == other.label
    assert one.agent_info != other.agent_info  # type: ignore[attr-defined]
