"""An agent whose exception text holds an API key (litellm's errors quote what they were
given): the key reaches no log, no run register, no viewer bundle and nothing `taurec run`
or `evaluator explain` prints, whether it is the value of a credential variable of the
environment or only shaped like a key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator

ENV_KEY = "fake-openai-key-not-shaped-0123456789"
SHAPED = "sk-proj-ShapedLikeAKey0123456789abcdef"
AGENTS = f"""
class Leaker:
    label = "leaker"

    async def run(self, episode):
        import os
        await episode.say("Hello!")
        raise RuntimeError(
            "AuthenticationError: Incorrect API key provided: " + os.environ["OPENAI_API_KEY"]
            + " (also tried {SHAPED})"
        )
"""

cli = CliRunner()


@pytest.fixture()
def leaked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    agents = tmp_path / "leaky_agents.py"
    agents.write_text(AGENTS)
    out = tmp_path / "logs"
    result = cli.invoke(
        app,
        [
            "run",
            "--agent",
            f"{agents}:Leaker",
            "--trials",
            "1",
            "--tasks",
            "t001,t002",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 1, result.output  # every episode ended in an agent error
    return out, result.output + result.stderr


def _holding(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_the_key_is_in_no_log_register_or_printed_line(leaked: tuple[Path, str]) -> None:
    out, printed = leaked
    assert "AuthenticationError" in printed and "Traceback" in printed
    assert "<redacted $OPENAI_API_KEY>" in printed and "<redacted>" in printed
    for secret in (ENV_KEY, SHAPED):
        assert secret not in printed
        assert _holding(out, secret) == []
    assert list(out.rglob("*.register")), "the run has a register"
    traceback_logged = [
        p for p in out.rglob("*.jsonl") if b"<redacted $OPENAI_API_KEY>" in p.read_bytes()
    ]
    assert traceback_logged, "the end records keep the traceback, scrubbed"


def test_the_key_is_in_no_bundle_file_nor_explanation(
    leaked: tuple[Path, str], tmp_path: Path
) -> None:
    out, _ = leaked
    site = tmp_path / "site"
    result = cli.invoke(evaluator, ["view", str(out), "--bundle", str(site)])
    assert result.exit_code == 0, result.output
    log = next(out.rglob("t001/*.jsonl"))
    explained = cli.invoke(evaluator, ["explain", str(log)])
    for secret in (ENV_KEY, SHAPED):
        assert _holding(site, secret) == []
        assert secret not in explained.output


def test_an_old_log_holding_a_key_is_shown_scrubbed(
    leaked: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log an older server wrote with the key in it: the viewer, bundle and explain
    still show it scrubbed (the chain breaks, which they report; the key stays out)."""
    out, _ = leaked
    for log in out.rglob("*.jsonl"):
        log.write_bytes(log.read_bytes().replace(b"<redacted $OPENAI_API_KEY>", ENV_KEY.encode()))
    site = tmp_path / "site"
    assert cli.invoke(evaluator, ["view", str(out), "--bundle", str(site)]).exit_code == 0
    log = next(out.rglob("t001/*.jsonl"))
    explained = cli.invoke(evaluator, ["explain", str(log)])
    assert _holding(site, ENV_KEY) == [] and ENV_KEY not in explained.output
