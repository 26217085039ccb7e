"""Scoring sealed runs: a run is held to its plan. Trimming failures, breaking a header,
editing a recommendation, dropping the register or pointing a header at another suite
can only make the score worse or the evaluator louder. Attacks from the review."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator
from taurec.evaluator.sealed import MAX_REGISTER_BYTES
from taurec.tasks.runs.register import REGISTER_NAME

TASKS = "t001,t002,t003,t004,t005"
cli = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed run of the random agent (it fails most tasks) and the scripted one."""
    out = tmp_path_factory.mktemp("sealed") / "logs"
    for agent in ("random", "scripted"):
        result = cli.invoke(
            taurec, ["run", "--agent", agent, "--trials", "2", "--tasks", TASKS, "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def run(played: Path, tmp_path: Path) -> Iterator[Path]:
    copy = tmp_path / "logs"
    shutil.copytree(played, copy)
    yield copy


def _score(out: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    result = cli.invoke(evaluator, ["score", str(out), "--json", *extra])
    return result.exit_code, orjson.loads(result.stdout), result.stderr


def _group(doc: dict[str, Any], label: str) -> dict[str, Any]:
    (group,) = [g for g in doc["groups"] if g["label"] == label]
    return group


def _logs(out: Path, label: str) -> list[Path]:
    found = []
    for path in sorted(out.rglob("*.jsonl")):
        header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
        if header["agent"]["label"] == label:
            found.append(path)
    return found


def _passed(path: Path) -> bool:
    result = cli.invoke(evaluator, ["explain", str(path)])
    assert result.exit_code == 0, result.output
    return "PASS" in result.stdout


def test_an_intact_sealed_run_scores_cleanly(run: Path) -> None:
    code, doc, _ = _score(run)
    assert code == 0 and doc["excluded"] == [] and doc["run_problems"] == []
    group = _group(doc, "scripted")
    assert group["mode"] == "sealed" and group["n_episodes"] == 10
    assert group["suite"]["id"] == "builtin" and len(group["suite"]["sha256"]) == 64
    assert {r["label"]: r["counted"] for r in doc["runs"]} == {"random": 10, "scripted": 10}


def test_deleting_the_failures_still_counts_them_as_failures(run: Path) -> None:
    _, before, _ = _score(run)
    failing = [p for p in _logs(run, "random") if not _passed(p)]
    assert failing  # the random agent fails some
    for path in failing:
        path.unlink()
    code, after, stderr = _score(run)
    assert code == 1 and "log missing" in stderr
    assert _group(after, "random")["n_episodes"] == 10
    assert _group(after, "random")["pass_k"] == _group(before, "random")["pass_k"]
    assert _group(after, "random")["sealed_failures"] == {"log missing": len(failing)}


def test_deleting_a_passing_log_turns_it_into_a_failure(run: Path) -> None:
    path = _logs(run, "scripted")[0]
    path.unlink()
    code, doc, _ = _score(run)
    group = _group(doc, "scripted")
    assert code == 1 and group["n_episodes"] == 10 and group["passed"] == 9


def test_a_broken_header_byte_keeps_the_episode_in_its_run_as_a_failure(run: Path) -> None:
    path = _logs(run, "scripted")[0]
    raw = bytearray(path.read_bytes())
    raw[2] = ord("X")  # {"type"... -> {"Xype"...
    path.write_bytes(bytes(raw))
    code, doc, _ = _score(run)
    assert code == 1
    assert {g["label"] for g in doc["groups"]} == {"random", "scripted"}  # no "(unreadable)"
    group = _group(doc, "scripted")
    assert group["n_episodes"] == 10 and group["passed"] == 9 and group["pass_k"]["2"] < 1


def test_an_edited_recommendation_breaks_the_chain_without_any_key(run: Path) -> None:
    """Forgery without --verify: the edit is caught by the chain alone."""
    path = _logs(run, "random")[0]
    raw = path.read_bytes()
    end = raw.rstrip(b"\n").rsplit(b"\n", 1)[1]
    record = orjson.loads(end)
    edited = end.replace(orjson.dumps(record["item_id"]), b'"syn_000001"', 1)
    path.write_bytes(raw.replace(end, edited))
    code, doc, stderr = _score(run)
    assert code == 1 and "chain hash mismatch" in stderr
    assert [e["path"] for e in doc["excluded"]] == [str(path)]
    assert _group(doc, "random")["n_episodes"] == 10


def test_a_run_without_its_register_is_not_counted(run: Path) -> None:
    for register in run.rglob(REGISTER_NAME):
        register.unlink()
    code, doc, stderr = _score(run)
    assert code == 1 and "run register (run.register) is not among the paths" in stderr
    assert doc["groups"] == []


def test_an_oversized_register_is_not_read_and_its_run_not_counted(run: Path) -> None:
    """A register grown past the cap (a sparse file: nothing is written) is never read
    whole, by the scorer or by the viewer, which uses the same reader."""
    (register, *_) = sorted(run.rglob(REGISTER_NAME))
    with register.open("r+b") as f:
        f.truncate(MAX_REGISTER_BYTES + 1)
    code, doc, stderr = _score(run)
    assert code == 1 and "larger than 64 MiB, the limit; not read" in " ".join(stderr.split())
    assert len(doc["groups"]) == 1  # the other run still counts


def test_an_edited_register_is_reported_and_its_unvouched_episodes_fail(run: Path) -> None:
    (register, *_) = sorted(run.rglob(REGISTER_NAME))
    lines = register.read_bytes().splitlines(keepends=True)
    register.write_bytes(
        b"".join(lines[:3]) + lines[3].replace(b"t00", b"t99", 1) + b"".join(lines[4:])
    )
    code, doc, stderr = _score(run)
    assert code == 1 and "run register damaged at line 4" in stderr
    assert sum(g["n_episodes"] for g in doc["groups"]) == 20


def test_a_header_pointing_at_another_suite_is_not_scored_against_it(
    run: Path, tmp_path: Path
) -> None:
    """The review's forgery: same task ids, trivial constraints, in a folder of its own."""
    path = _logs(run, "random")[0]
    lines = path.read_bytes().split(b"\n")
    header = orjson.loads(lines[0])
    header["suite"]["spec"] = str(tmp_path / "trivial-suite")
    path.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]))
    code, doc, stderr = _score(run)
    assert code == 1 and "line 1: chain hash mismatch" in stderr
    assert _group(doc, "random")["n_episodes"] == 10
    assert "trivial-suite" not in {g["suite"]["spec"] for g in doc["groups"]}


def test_markdown_rows_say_whether_a_run_was_sealed(run: Path) -> None:
    result = cli.invoke(evaluator, ["score", str(run), "--format", "markdown"])
    assert result.exit_code == 0
    assert "| random | sealed | 10 |" in result.stdout


@pytest.mark.slow
def test_ten_thousand_copies_of_one_log_give_bounded_output(tmp_path: Path, played: Path) -> None:
    """Evaluator DoS: copies are reported once per episode, not once per pair."""
    source = _logs(played, "scripted")[0]
    folder = tmp_path / "copies"
    folder.mkdir()
    data = source.read_bytes()
    for i in range(10_000):
        (folder / f"c{i:05d}.jsonl").write_bytes(data)
    result = cli.invoke(evaluator, ["score", str(folder), "--json"])
    assert result.exit_code == 1
    assert len(result.stderr) < 20_000
    doc = orjson.loads(result.stdout)
    assert len(doc["excluded"]) == 10_000  # every copy excluded, in the JSON for a program
    assert "logged 10,000 times" in doc["excluded"][0]["why"]
    assert len(doc["excluded"][0]["why"]) < 500


def test_a_symlink_loop_and_an_oversized_log_are_reported_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    os.symlink(folder / "loop.jsonl", folder / "loop.jsonl")
    with open(folder / "sparse.jsonl", "wb") as f:
        f.truncate(3 * 2**20)
    result = cli.invoke(evaluator, ["score", str(folder), "--json", "--max-log-mb", "1"])
    assert result.exit_code == 1
    assert "loop.jsonl: cannot be read" in result.stderr
    assert "over the evaluator's limit" in result.stderr


def test_an_unreadable_sub_folder_is_reported_and_the_rest_scored(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.scandir
    hidden = sorted(p for p in run.rglob("t003") if p.is_dir())[0]

    def scandir(path: Any) -> Any:
        if Path(path) == hidden:
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, doc, stderr = _score(run)
    assert code == 1 and f"{hidden}: cannot be listed (Permission denied); skipped" in stderr
    assert sum(g["n_episodes"] for g in doc["groups"]) == 20  # its episodes count as missing


def test_many_suite_spellings_in_headers_load_no_suite(run: Path, tmp_path: Path) -> None:
    """Each header naming a suite of its own is refused before anything is loaded."""
    folder = tmp_path / "spellings"
    folder.mkdir()
    records = [orjson.loads(line) for line in _logs(run, "random")[0].read_bytes().splitlines()]
    for r in records:  # an unchained log, as another harness writes them
        for member in ("chain", "hmac", "key_id"):
            r.pop(member, None)
    for i in range(300):
        header = {**records[0], "episode_id": f"{i:032x}", "mode": "open", "plan_id": None}
        header["trial"] = i
        header["suite"] = {**header["suite"], "spec": f"{tmp_path}/{'./' * i}elsewhere"}
        lines = [orjson.dumps(r) for r in [header, *records[1:]]]
        (folder / f"s{i}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    code, doc, stderr = _score(folder)
    assert code == 2 and len(doc["problems"]) == 300  # not one log could be counted
    assert all(
        "neither the built-in suite nor the suite of a run plan" in p for p in doc["problems"]
    )
    assert len(stderr) < 20_000


def test_a_ranking_run_is_sealed_too(tmp_path: Path) -> None:
    from taurec.tasks.suite import load_suite

    tasks = ",".join(t.id for t in load_suite("ranking:builtin").tasks[:3])
    out = tmp_path / "logs"
    args = [
        "run",
        "--suite",
        "ranking:builtin",
        "--agent",
        "cf",
        "--tasks",
        tasks,
        "--out",
        str(out),
    ]
    result = cli.invoke(taurec, [*args, "--trials", "2"])
    assert result.exit_code == 0, result.output
    code, doc, _ = _score(out)
    assert code == 0 and [(g["mode"], g["n_episodes"]) for g in doc["groups"]] == [("sealed", 6)]
    next(out.rglob("*.jsonl")).unlink()
    code, doc, stderr = _score(out)
    assert code == 1 and "log missing" in stderr and doc["groups"][0]["n_episodes"] == 6
    for path in out.rglob("*.jsonl"):
        path.unlink()
    _, doc, _ = _score(out)  # with no log left, the kind comes from the plan's suite
    assert [(g["kind"], g["n_episodes"]) for g in doc["groups"]] == [("ranking", 6)]


def _rewrite_register(register: Path, keep: set[str]) -> None:
    """The review's trim: drop planned episodes from the plan record and their lines, and
    re-chain the register (anyone can; only the HMAC needs the key)."""
    import hashlib

    from taurec.tasks.trajectory.signing import GENESIS

    records = [orjson.loads(line) for line in register.read_bytes().splitlines()]
    plan = records[0]["plan"]
    plan["episodes"] = [e for e in plan["episodes"] if e["task_id"] in keep]
    kept_ids = {r["episode_id"] for r in records if r.get("task_id") in keep}
    out, chain = [], GENESIS
    for r in records:
        if r["type"] != "plan" and r.get("episode_id") not in kept_ids and "episode_id" in r:
            continue
        r.pop("chain", None)
        r.pop("hmac", None)
        body = orjson.dumps(r)[:-1]
        chain = hashlib.sha256(chain.encode() + body).hexdigest()
        out.append(body + f',"chain":"{chain}","hmac":"{"0" * 64}"}}'.encode())
    register.write_bytes(b"\n".join(out) + b"\n")


def test_a_rewritten_register_is_caught_without_verify(run: Path) -> None:
    (register,) = [r for r in run.rglob(REGISTER_NAME) if "random" in r.read_text()[:2000]]
    _rewrite_register(register, keep={"t001"})
    code, doc, stderr = _score(run)  # no --verify: the key on this machine is used
    assert code == 1 and "run register unusable" in stderr
    assert "random" not in {r["label"] for r in doc["runs"]}


def test_registers_without_any_key_are_a_run_problem(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from taurec.tasks.trajectory.signing import KEY_ENV, KEY_FILE_ENV

    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "no-such.key"))
    code, _, stderr = _score(run)
    assert code == 1 and "run registers cannot be authenticated: no log key" in stderr
