"""`taurec run` on a full disk: the run exits non-zero naming the cause, no log holds a
torn line, and the agent is told in one line (never the system's error text)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.tasks.trajectory.reader import read_log

INCOMPLETE = "no end record: the episode did not finish (incomplete log)"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs (needs root and permission to mount; skipped otherwise)."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a 2 MB tmpfs here ({exc}); the full-disk run needs one")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a 2 MB tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False, timeout=HANG_GUARD_S)


def test_a_run_onto_a_full_disk_exits_non_zero_and_every_log_reads_back_whole(
    tiny_disk: Path,
) -> None:
    out = tiny_disk / "logs"
    result = CliRunner().invoke(app, ["run", "--trials", "2", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "have no whole log" in result.stderr
    assert "disk is full" in result.stderr or "ENOSPC" in result.stderr
    assert "Errno" not in result.output
    logs = list(out.rglob("*.jsonl"))
    assert len(logs) > 20  # the disk took some before it filled
    unfinished = 0
    for path in logs:
        parsed = read_log(path)
        assert parsed.header is not None, path  # no empty or headless file
        problems = [p.message for p in parsed.problems]
        assert problems in ([], [INCOMPLETE]), (path, problems)  # whole lines only
        unfinished += bool(problems)
    assert unfinished < len(logs)
