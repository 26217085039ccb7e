"""Replay and the signature: a sealed log whose end-record HMAC verifies with the server's
key is not replayed (the signature proves the server wrote its results); every other log
is (unsigned, unverified, failing verification, open mode), and the score says which.

The logs are real ones, written by the server for the scripted agent in a sealed run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.logs import Resolver, score_files
from taurec.tasks.trajectory.signing import LogKey, chained_lines, load_log_key


@pytest.fixture
def logs(signed_logs: list[Path]) -> list[Path]:
    return signed_logs  # tests/evaluator/conftest.py: the sealed run's logs, a private copy


def key() -> LogKey:
    return load_log_key()  # the test session's key (tests/conftest.py), which signed them


def rewrite(path: Path, edit, sign_with: LogKey | None) -> None:
    """Edit the records, then chain them again (and sign, given the key), as the server
    would have written the edited episode."""
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    edit(records)
    path.write_bytes(chained_lines(records, sign_with))


def edit_a_result(records: list[dict]) -> None:
    result = next(r for r in records if r["type"] == "tool_result" and "title" in r["content"])
    result["content"]["title"] = "A Title The Catalog Never Had"


def open_mode(records: list[dict]) -> None:
    records[0]["mode"] = "open"
    records[0].pop("plan_id", None)


def score(paths: list[Path], **settings) -> list:
    return score_files(paths, Resolver(**settings), workers=1)


def test_the_logs_are_sealed(logs):
    assert {orjson.loads(p.read_bytes().split(b"\n", 1)[0])["mode"] for p in logs} == {"sealed"}


def test_a_sealed_log_whose_signature_verifies_is_trusted_not_replayed(logs):
    # results only the server's key could have signed: the signature vouches for them
    rewrite(logs[0], edit_a_result, sign_with=key())
    (trusted,) = score(logs[:1], verify_key=key())
    assert trusted.verification is None
    assert trusted.replay == "signed" and trusted.replay_mismatches == 0


def test_without_a_key_the_same_log_is_replayed_and_the_edit_found(logs):
    rewrite(logs[0], edit_a_result, sign_with=key())
    (replayed,) = score(logs[:1])
    assert replayed.replay == "replayed" and replayed.replay_mismatches == 1


def test_a_log_that_fails_verification_is_replayed(logs):
    rewrite(logs[0], edit_a_result, sign_with=LogKey(b"not the server's key 0123456789", "x"))
    (failed,) = score(logs[:1], verify_key=key())
    assert failed.verification is not None
    assert failed.replay == "replayed" and failed.replay_mismatches == 1


def test_an_open_mode_log_is_replayed_though_its_signature_verifies(logs):
    rewrite(logs[0], lambda records: (open_mode(records), edit_a_result(records)), key())
    (opened,) = score(logs[:1], verify_key=key())
    assert opened.verification is None and opened.mode == "open"
    assert opened.replay == "replayed" and opened.replay_mismatches == 1


def test_no_replay_records_neither(logs):
    assert {s.replay for s in score(logs, replay=False, verify_key=key())} == {None}


def test_trusting_the_signature_changes_no_verdict(logs):
    trusted = score(logs, verify_key=key())
    replayed = score(logs)
    assert [s.replay for s in trusted] == ["signed"] * 3
    assert [(s.reward, s.policy_results, s.constraint_verdicts, s.problems) for s in trusted] == [
        (s.reward, s.policy_results, s.constraint_verdicts, s.problems) for s in replayed
    ]


def test_cli_verify_says_how_many_logs_were_trusted_and_how_many_replayed(logs):
    rewrite(logs[0], edit_a_result, sign_with=None)  # fails verification: replayed, excluded
    result = CliRunner().invoke(app, ["score", str(logs[0].parents[2]), "--verify", "--json"])
    verification = orjson.loads(result.stdout)["verification"]
    assert (verification["trusted_by_signature"], verification["replayed"]) == (2, 1)
    assert "2 logs are trusted by signature" in result.stderr and "1 replayed" in result.stderr


def test_scores_from_worker_processes_equal_the_serial_ones_field_by_field(logs, tmp_path):
    many = []
    for n in range(8):  # copies under other names: enough for several chunks per process
        for p in logs:
            copy = tmp_path / "many" / str(n) / p.name
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, copy)
            many.append(copy)
    serial = score_files(many, Resolver(verify_key=key()), workers=1)
    for workers in (2, 3):
        assert score_files(many, Resolver(verify_key=key()), workers=workers) == serial
