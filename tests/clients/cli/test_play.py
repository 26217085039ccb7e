"""`taurec play`: a person plays the agent; their episode is logged and scored."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from taurec.clients.agents.recommendation.human import filter_arguments
from taurec.clients.cli.main import app
from taurec.tasks.trajectory.reader import read_log

runner = CliRunner()


def _play(tmp_path: Path, lines: list[str], *args: str):
    result = runner.invoke(
        app, ["play", "--out", str(tmp_path), *args], input="\n".join(lines) + "\n"
    )
    logs = sorted(tmp_path.rglob("*.jsonl"))
    return result, logs


def test_a_played_episode_is_logged_under_the_human_label_and_scored(tmp_path: Path) -> None:
    lines = [
        "/help",
        "Hi! What are you in the mood for?",
        "/filter genres_any=Western limit=3",
        "/search western",
        "/history",
        "/item syn_000056",
        "/avail syn_000056",
        "/content R",
        "/recommend syn_000056 A Western for you.",
    ]
    result, (log,) = _play(tmp_path, lines, "--task", "t001")
    assert result.exit_code == 0, result.output
    assert "user:" in result.stdout and "Western" in result.stdout
    assert "/recommend ID" in result.stdout  # the help text
    parsed = read_log(log)
    assert parsed.ok and parsed.header is not None and parsed.header.agent.label == "human"
    calls = [e["name"] for e in parsed.events if e["type"] == "tool_call"]
    assert calls == [
        "filter_catalog", "search_catalog", "get_user_history", "get_item",
        "check_availability", "check_content_preference", "recommend",
    ]  # fmt: skip
    assert parsed.events[-1]["reason"] == "recommended"
    assert "reward" in result.stdout  # the explanation of the score


def test_quitting_ends_the_episode_as_an_agent_error(tmp_path: Path) -> None:
    result, (log,) = _play(tmp_path, ["/quit"], "--task", "t002")
    assert result.exit_code == 0, result.output
    assert read_log(log).events[-1]["reason"] == "agent_error"


def test_bad_commands_are_explained_and_play_goes_on(tmp_path: Path) -> None:
    lines = ["/dance", "/filter runtime_max=long", "/item", "/abstain Nothing fits."]
    result, (log,) = _play(tmp_path, lines, "--task", "t004")
    assert result.exit_code == 0, result.output
    assert "unknown command /dance" in result.stdout
    assert "runtime_max: expected a whole number" in result.stdout
    assert "/item needs an item id" in result.stdout
    assert read_log(log).events[-1]["reason"] == "abstained"


def test_without_a_task_the_player_chooses_one(tmp_path: Path) -> None:
    result, (log,) = _play(tmp_path, ["t003", "/abstain"])
    assert result.exit_code == 0, result.output
    assert read_log(log).header.task_id == "t003"


def test_an_unknown_task_is_a_clear_error(tmp_path: Path) -> None:
    result, logs = _play(tmp_path, [], "--task", "t999")
    assert result.exit_code == 2 and "t999" in result.stderr and logs == []


def test_filter_words_become_typed_filter_arguments() -> None:
    assert filter_arguments(["genres_all=Science Fiction,Action", "min_rating=6.5"]) == {
        "genres_all": ["Science Fiction", "Action"],
        "min_rating": 6.5,
    }
