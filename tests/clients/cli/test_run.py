"""`taurec run`: defaults, bad flags, dry runs, refusing to mix runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import AGENT_KINDS, AgentUnavailable, agents_of, make_agent
from taurec.clients.cli.main import app
from taurec.clients.cli.run import AgentName

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, ["run", *args])


def test_the_cli_offers_exactly_the_registrys_agents() -> None:
    registered = {name for kind in AGENT_KINDS.names() for name in agents_of(kind)}
    assert {a.value for a in AgentName} == registered


def test_a_run_plays_every_episode_and_prints_the_evaluator_table(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    result = _run("--tasks", "t001,t004,t048", "--trials", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "agent: scripted" in result.stdout and "pass^2" in result.stdout
    assert "100.0%" in result.stdout
    assert len(list(out.rglob("*.jsonl"))) == 6
    assert "evaluator score" in result.stderr


def test_a_second_run_into_the_same_folder_is_refused_unless_resumed(tmp_path: Path) -> None:
    out = str(tmp_path / "logs")
    assert _run("--tasks", "t001", "--trials", "1", "--out", out).exit_code == 0
    again = _run("--tasks", "t001", "--trials", "1", "--out", out)
    assert again.exit_code == 2 and "--resume" in again.stderr
    resumed = _run("--tasks", "t001", "--trials", "1", "--out", out, "--resume")
    assert resumed.exit_code == 0 and "nothing to play" in resumed.stderr
    other_label = _run("--tasks", "t001", "--trials", "1", "--out", out, "--label", "b")
    assert other_label.exit_code == 0
    # the table is of this run; the line after it says how to score the whole folder
    assert "agent: b" in other_label.stdout and "agent: scripted" not in other_label.stdout
    assert f"the whole folder: evaluator score {out}" in other_label.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "nope"], "--agent"),
        (["--trials", "0"], "--trials"),
        (["--transport", "http"], "needs --url"),
        (["--url", "http://x/mcp"], "--transport http only"),
        (["--tasks", "t001,t999"], "unknown task ids t999"),
        (["--agent", "llm"], "needs --model"),
        (["--model", "openai/gpt-4o"], "--agent llm only"),
        (["--simulator", "llm"], "--simulator llm needs --simulator-model MODEL"),
        (["--simulator-model", "openai/gpt-4o"], "--simulator llm, llm-sp and llm-dp only"),
        (["--suite", "/no/such/suite"], "no such suite"),
        (["--concurrency", "0"], "--concurrency"),
    ],
)
def test_bad_flags_are_one_clear_error_with_exit_code_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = _run(*args, "--out", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_missing_llm_agent_module_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "taurec.clients.agents.llm", None)
    with pytest.raises(AgentUnavailable, match="not available"):
        make_agent("llm", AgentSettings(model="openai/gpt-4o"))


def test_a_dry_run_estimates_without_running(tmp_path: Path) -> None:
    result = _run("--dry-run", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "240 episodes planned" in result.stdout and "tool calls:" in result.stdout
    assert not tmp_path.exists() or not list(tmp_path.rglob("*.jsonl"))


def test_a_dry_run_of_llm_agents_prices_their_calls(tmp_path: Path) -> None:
    args = ["--agent", "llm", "--model", "openai/gpt-4o-mini", "--trials", "1", "--dry-run"]
    args += ["--simulator", "llm", "--simulator-model", "openai/gpt-4o-mini"]
    result = _run(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "60 episodes planned" in result.stdout
    assert "agent LLM calls" in result.stdout and "user LLM calls" in result.stdout
    assert "$" in result.stdout


def test_a_builtin_run_reports_only_the_taurec_rules(tmp_path: Path) -> None:
    result = _run("--tasks", "t001", "--trials", "1", "--out", str(tmp_path / "logs"))
    assert result.exit_code == 0, result.output
    assert "rules: tau-rec" not in result.stdout


def test_a_tau_rec_run_reports_pass_k_under_both_rules_profiles_and_the_oracle_scores_1(
    tmp_path: Path,
) -> None:
    from support.third_party import TAU_REC

    if not (TAU_REC / "catalog.json").is_file():
        pytest.skip(f"the τ-Rec release is not at {TAU_REC}")
    out = tmp_path / "logs"
    args = ("--agent", "oracle", "--suite", f"tau-rec:{TAU_REC}", "--trials", "1")
    result = runner.invoke(app, ["run", *args, "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if "rules: taurec" in line)
    assert "rules: tau-rec" in header
    assert "60 / 60" in result.stdout  # every task of the release
    row = next(line for line in result.stdout.splitlines() if "pass^1 " in line)
    assert row.count("100.0%  [100.0%, 100.0%]") == 2, row
    assert "--rules both" in result.stderr


def test_agenda_dialogues_without_annotated_dialogues_is_one_line_with_exit_2(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ["--simulator", "agenda-requests", "--agenda-dialogues", str(empty), "--tasks", "t001"]
    result = _run(*args, "--trials", "1", "--out", str(tmp_path / "logs"))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --agenda-dialogues: ")
    assert "no annotated dialogues" in result.stderr and result.stderr.count("\n") == 1
    assert not list((tmp_path / "logs").rglob("*.jsonl"))


def test_agenda_dialogues_apply_to_the_agenda_user_only(tmp_path: Path) -> None:
    result = _run("--agenda-dialogues", str(tmp_path), "--out", str(tmp_path / "logs"))
    assert result.exit_code == 2, result.output
    assert "simulators 'abus' and 'agenda-requests'" in result.stderr


def test_a_run_with_agenda_dialogues_records_the_matrices_in_the_header(tmp_path: Path) -> None:
    first = _run("--tasks", "t001,t006", "--trials", "1", "--out", str(tmp_path / "rule"))
    assert first.exit_code == 0, first.output
    args = ["--simulator", "agenda-requests", "--agenda-dialogues", str(tmp_path / "rule")]
    result = _run(*args, "--tasks", "t001", "--trials", "1", "--out", str(tmp_path / "agenda"))
    assert result.exit_code == 0, result.output
    (log,) = (tmp_path / "agenda").rglob("*.jsonl")
    header = log.read_text().splitlines()[0]
    assert '"transitions":{"source"' in header and '"dialogues":2' in header


def test_a_server_the_run_starts_over_stdio_gets_the_agenda_dialogues() -> None:
    from taurec.clients.runner.connection import serve_arguments
    from taurec.server.settings import ServerSettings

    args = serve_arguments(
        ServerSettings(simulator="agenda-requests", agenda_dialogues=Path("logs/a"))
    )
    assert args[args.index("--agenda-dialogues") + 1] == str(Path("logs/a"))
    assert args[args.index("--simulator") + 1] == "agenda-requests"


@pytest.mark.parametrize("simulator", ["llm-sp", "llm-dp"])
def test_usersimcrs_llm_users_need_a_model(tmp_path: Path, simulator: str) -> None:
    result = _run("--simulator", simulator, "--out", str(tmp_path / "logs"))
    assert result.exit_code == 2
    assert f"--simulator {simulator} needs --simulator-model MODEL" in result.stderr


def test_an_nlg_model_is_for_the_deciding_users_only(tmp_path: Path) -> None:
    args = ["--simulator", "llm-sp", "--simulator-model", "openai/x", "--nlg-model", "openai/y"]
    result = _run(*args, "--out", str(tmp_path / "logs"))
    assert result.exit_code == 2
    assert "nlg_model applies to simulators 'rule', 'abus' and 'agenda-requests'" in result.stderr


def test_a_server_the_run_starts_over_stdio_gets_the_stream_protocol(tmp_path: Path) -> None:
    import orjson

    from taurec.clients.runner.connection import serve_arguments
    from taurec.server.settings import ServerSettings
    from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol, StreamRules

    protocol = StreamProtocol(
        feedback=FeedbackMode.NONE, rules=StreamRules.TAUREC, shuffle_order=True
    )
    args = serve_arguments(ServerSettings(stream_protocol=protocol))
    assert args[args.index("--feedback") + 1] == "none"
    assert args[args.index("--rules") + 1] == "taurec" and "--shuffle-order" in args
    assert "--feedback" not in serve_arguments(ServerSettings())
    out = tmp_path / "logs"
    result = _run(
        "--suite", "stream:builtin", "--agent", "random", "--transport", "stdio",
        "--feedback", "none", "--shuffle-order", "--trials", "1", "--out", str(out),
        "--tasks", "stream-variable-category-regret-000",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (log,) = out.rglob("*.jsonl")
    header = orjson.loads(log.read_bytes().splitlines()[0])
    assert header["simulator"]["settings"]["protocol"] == {
        "feedback": "none",
        "rules": "biel",
        "shuffle_order": True,
        "customer_knows": "tastes",
        "labelled_control": False,
    }
