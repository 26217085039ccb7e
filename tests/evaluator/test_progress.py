"""Scoring many logs reports its progress: counts that only grow and end at the total,
in one process and in several; the bar shows only on a terminal and for many logs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from taurec.evaluator import logs as logs_module
from taurec.evaluator.logs import Resolver, score_files
from taurec.evaluator.progress import SHOW_FROM, scoring_progress


def _files(tmp_path: Path, n: int) -> list[Path]:
    """n logs that score fast (each is an infrastructure error: not JSON)."""
    out = []
    for i in range(n):
        path = tmp_path / f"{i:03d}.jsonl"
        path.write_bytes(b"not json\n")
        out.append(path)
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_grow_and_end_at_the_total(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(logs_module, "PROGRESS_EVERY", 3)
    heard: list[tuple[int, int]] = []
    scores = score_files(
        _files(tmp_path, 10),
        Resolver(),
        workers=workers,
        progress=lambda d, t: heard.append((d, t)),
    )
    assert len(scores) == 10
    assert len(heard) > 1 and heard[-1] == (10, 10)
    done = [d for d, _ in heard]
    assert done == sorted(done) and all(t == 10 for _, t in heard)


def test_no_bar_when_stderr_is_not_a_terminal():
    console = Console(file=io.StringIO(), force_terminal=False)
    with scoring_progress(console) as progress:
        assert progress is None


def test_a_terminal_shows_the_bar_for_many_logs():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with scoring_progress(console) as progress:
        assert progress is not None
        progress(SHOW_FROM // 2, SHOW_FROM)
    assert "scoring logs" in out.getvalue()


def test_a_terminal_shows_no_bar_for_few_logs():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with scoring_progress(console) as progress:
        assert progress is not None
        progress(1, SHOW_FROM - 1)
    assert out.getvalue() == ""
