"""Tamper evidence: chained log lines, the signed end record, and `evaluator score --verify`.

The logs here are real ones, written by the server for the scripted agent; each test
then edits, reorders, truncates, copies or forges them the way a cheater would.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.evaluator.cli.main import app
from taurec.evaluator.logs import Resolver, score_paths
from taurec.tasks.trajectory.signing import (
    KEY_ENV,
    KEY_FILE_ENV,
    LogKey,
    chained_lines,
    load_log_key,
    verify_chain,
)


@pytest.fixture
def logs(signed_logs: list[Path]) -> list[Path]:
    return signed_logs  # tests/evaluator/conftest.py: the sealed run's logs, a private copy


def key() -> LogKey:
    return load_log_key()  # the test session's key (tests/conftest.py), which signed them


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def rechain(records: list[dict], sign_with: LogKey | None) -> bytes:
    """Write records as a cheater who knows the format (but maybe not the key) would."""
    return chained_lines(records, sign_with)


def verify_problems(paths: list[Path], *, with_key: LogKey | None = None) -> dict[str, str]:
    scores = score_paths(paths, Resolver(verify_key=with_key or key()), workers=1)
    return {Path(s.path).parent.name: s.verification for s in scores if s.verification}


def test_every_line_the_server_writes_is_chained_and_the_end_is_signed(logs):
    for path in logs:
        raw = path.read_bytes()
        assert verify_chain(raw, key()) is None
        end = orjson.loads(lines(path)[-1])
        assert end["type"] == "end" and end["key_id"] == key().key_id
        assert len(end["hmac"]) == 64
    assert verify_problems(logs) == {}


def test_an_edited_line_breaks_the_chain_at_that_line(logs):
    path = logs[0]
    raw = path.read_bytes()
    first_user = lines(path)[1]
    edited = first_user.replace(b'"left":false', b'"left":true')
    assert edited != first_user
    path.write_bytes(raw.replace(first_user, edited))
    assert verify_chain(path.read_bytes(), key()) == (
        "line 2: chain hash mismatch (the log was edited, reordered or spliced here)"
    )
    assert verify_problems(logs) == {"t001": verify_chain(path.read_bytes(), key())}


def test_reordered_lines_break_the_chain(logs):
    path = logs[1]
    ls = lines(path)
    ls[2], ls[3] = ls[3], ls[2]
    path.write_bytes(b"".join(ls))
    assert "line 3: chain hash mismatch" in verify_problems(logs)["t002"]


def test_a_log_truncated_at_a_line_boundary_has_no_signed_end(logs):
    path = logs[2]
    path.write_bytes(b"".join(lines(path)[:-3]))
    assert "carries no HMAC" in verify_problems(logs)["t003"]


def test_a_log_cut_mid_line_is_reported_as_truncated(logs):
    path = logs[2]
    path.write_bytes(path.read_bytes()[:-20])
    assert verify_problems(logs)["t003"] == "the last line is incomplete (truncated log)"


def test_a_re_chained_edit_is_caught_by_the_hmac(logs):
    """A cheater who recomputes the whole chain after editing cannot recompute the HMAC."""
    path = logs[0]
    records = [orjson.loads(line) for line in lines(path)]
    records[-1]["reason"] = "recommended"
    records[1]["text"] = records[1]["text"] + " I love everything."
    guessed = LogKey(b"not the server key at all!", "a guess")
    path.write_bytes(rechain(records, sign_with=guessed))
    assert verify_chain(path.read_bytes(), None) is None  # the chain itself is consistent
    assert "HMAC does not match" in verify_problems(logs)["t001"]


def test_a_forged_log_without_a_signature_fails(logs, tmp_path):
    records = [orjson.loads(line) for line in lines(logs[0])]
    records[1]["text"] = "forged"
    forged = tmp_path / "logs" / "forged" / "x.jsonl"
    forged.parent.mkdir()
    records[0]["episode_id"] = "f" * 32
    forged.write_bytes(rechain(records, sign_with=None))
    assert "carries no HMAC" in verify_problems([*logs, forged])["forged"]


def test_an_unsigned_log_from_another_harness_fails_verify_but_still_scores(logs):
    path = logs[0]
    records = [orjson.loads(line) for line in lines(path)]
    path.write_bytes(
        b"".join(
            orjson.dumps({k: v for k, v in r.items() if k not in ("chain", "hmac", "key_id")})
            + b"\n"
            for r in records
        )
    )
    assert "no chain hash" in verify_problems(logs)["t001"]
    plain = score_paths(logs, Resolver(), workers=1)
    assert [s.infra_error for s in plain] == [False, False, False]


def test_a_dropped_header_is_caught(logs):
    """Dropping line 1 and prefixing line 2 with line 1's chain would reproduce what the
    server hashed for line 2 if the header's chain began from nothing: it begins from a
    64-character genesis value, so no line can pose as the first."""
    path = logs[0]
    ls = lines(path)
    header_chain = orjson.loads(ls[0])["chain"].encode()
    path.write_bytes(header_chain + b"".join(ls[1:]))
    assert verify_chain(path.read_bytes(), key()) == (
        "line 1: chain hash mismatch (the log was edited, reordered or spliced here)"
    )
    assert "no readable header" in verify_problems(logs)["t001"]


def test_lines_appended_after_the_end_record_are_caught(logs):
    path = logs[0]
    ls = lines(path)
    path.write_bytes(b"".join([*ls, ls[-2]]))
    assert "line" in verify_problems(logs)["t001"]


def test_two_genuine_logs_spliced_together_are_caught(logs):
    first, second = lines(logs[0]), lines(logs[1])
    logs[0].write_bytes(b"".join(first[:5] + second[5:]))
    assert "line 6: chain hash mismatch" in verify_problems(logs)["t001"]


def test_a_log_whose_header_cannot_be_read_fails_verification(logs):
    path = logs[0]
    ls = lines(path)
    records = [orjson.loads(line) for line in ls]
    records[0]["trial"] = "zero"  # re-chained, so only the HMAC and the parse catch it
    path.write_bytes(rechain(records, sign_with=key()))
    assert "header" in verify_problems(logs)["t001"]


def test_racing_key_creation_gives_every_server_the_same_whole_key(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "race" / "log.key"
    with ThreadPoolExecutor(8) as pool:
        keys = list(pool.map(lambda _: load_log_key(path, create=True), range(16)))
    assert len({k.secret for k in keys}) == 1
    assert len(keys[0].secret) == 64
    assert [p.name for p in path.parent.iterdir()] == ["log.key"]  # no temporary left


def test_a_copied_log_flags_every_copy(logs):
    copy = logs[0].parent / "trial1-copy.jsonl"
    shutil.copy(logs[0], copy)
    problems = score_paths([*logs, copy], Resolver(verify_key=key()), workers=1)
    flagged = sorted(Path(s.path).name for s in problems if s.verification)
    assert flagged == sorted([logs[0].name, copy.name])
    assert all("copied logs" in s.verification for s in problems if s.verification)


def test_a_log_signed_with_another_key_names_both_key_ids(logs):
    other = LogKey(b"another server's key 0123456789", "other")
    problem = verify_problems(logs, with_key=other)["t001"]
    assert key().key_id in problem and other.key_id in problem


def test_replay_catches_an_edited_tool_result_without_any_key(logs):
    """Re-chaining makes the chain consistent; replay still sees the edited payload."""
    path = logs[0]
    records = [orjson.loads(line) for line in lines(path)]
    result = next(r for r in records if r["type"] == "tool_result" and "title" in r["content"])
    result["content"]["title"] = "A Title The Catalog Never Had"
    path.write_bytes(rechain(records, sign_with=None))
    (score,) = score_paths([path], Resolver(), workers=1)
    assert score.replay_mismatches == 1
    assert any("result differs from what the catalog returns" in p for p in score.problems)


def test_workers_verify_the_same_way(logs):
    ls = lines(logs[1])
    logs[1].write_bytes(b"".join(ls[:-1]))
    one = score_paths(logs, Resolver(verify_key=key()), workers=1)
    two = score_paths(logs, Resolver(verify_key=key()), workers=2)
    assert [s.verification for s in one] == [s.verification for s in two]
    assert sum(s.verification is not None for s in one) == 1


# --- the command line -------------------------------------------------------------------


def test_cli_verify_excludes_failed_logs_loudly_and_exits_1(logs):
    logs[0].write_bytes(logs[0].read_bytes().replace(b'"left":false', b'"left":true', 1))
    result = CliRunner().invoke(app, ["score", str(logs[0].parents[2]), "--verify", "--json"])
    assert result.exit_code == 1
    doc = orjson.loads(result.stdout)
    assert doc["verification"]["verified"] == 2
    assert [f["path"] for f in doc["verification"]["failed"]] == [str(logs[0])]
    (group,) = doc["groups"]  # a sealed run: the edited episode counts as a failure
    assert group["n_episodes"] == 3 and group["sealed_failures"] == {"log fails verification": 1}
    assert [e["path"] for e in doc["excluded"]] == [str(logs[0])]
    assert "1 log is NOT counted" in result.stderr


def test_cli_verify_passes_intact_logs_with_exit_0(logs):
    result = CliRunner().invoke(app, ["score", str(logs[0].parents[2]), "--verify"])
    assert result.exit_code == 0, result.stderr
    assert f"every counted log is intact and signed by key {key().key_id}" in result.stderr


def test_cli_verify_without_a_key_says_how_to_give_one(logs, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "absent.key"))
    result = CliRunner().invoke(app, ["score", str(logs[0].parents[2]), "--verify"])
    assert result.exit_code == 2
    assert "no log key at" in result.stderr and "--key-file" in result.stderr


def test_cli_key_file_needs_verify(logs, tmp_path):
    result = CliRunner().invoke(
        app, ["score", str(logs[0].parents[2]), "--key-file", str(tmp_path / "k")]
    )
    assert result.exit_code == 2 and "--key-file applies to --verify only" in result.stderr


def test_cli_verify_with_an_explicit_key_file(logs, tmp_path):
    copy = tmp_path / "copy.key"
    copy.write_bytes(Path(os.environ[KEY_FILE_ENV]).read_bytes())
    result = CliRunner().invoke(
        app, ["score", str(logs[0].parents[2]), "--verify", "--key-file", str(copy)]
    )
    assert result.exit_code == 0, result.stderr


# --- the key ------------------------------------------------------------------------------


def test_a_missing_key_file_is_generated_private_and_then_reused(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "log.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(path))
    created = load_log_key(create=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_log_key().key_id == created.key_id
    assert created.key_id not in repr(created.secret)  # key_id is a hash, not the key
    assert "secret" not in repr(created)


def test_the_environment_key_wins_and_must_be_long_enough(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "a" * 32)
    assert load_log_key().secret == b"a" * 32
    monkeypatch.setenv(KEY_ENV, "short")
    with pytest.raises(DataError, match="5 characters; expected at least 16"):
        load_log_key()


def test_without_create_a_missing_key_is_an_error_naming_the_options(tmp_path):
    with pytest.raises(DataError, match="TAUREC_LOG_KEY"):
        load_log_key(tmp_path / "nope.key")


def test_two_logs_of_one_trial_are_reported_even_without_verify(logs):
    """A copied (or re-run and not set aside) log would count as an extra trial."""
    copy = logs[0].parent / "trial0-again.jsonl"
    records = [orjson.loads(line) for line in lines(logs[0])]
    records[0]["episode_id"] = "f" * 32  # another episode of the same trial
    copy.write_bytes(rechain(records, sign_with=key()))
    scores = score_paths([*logs, copy], Resolver(), workers=1)
    repeated = [s for s in scores if any("each counts as a trial" in p for p in s.problems)]
    assert len(repeated) == 1  # reported once, naming both logs
    (problem,) = repeated[0].problems
    assert logs[0].name in problem and copy.name in problem and "2 logs of label" in problem
    assert all(not s.problems for s in scores if s not in repeated)
