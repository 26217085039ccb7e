"""Scoring in several processes: the same scores, in the logs' order, whether the workers
are forked or spawned, and nothing lost when a worker dies."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from taurec.evaluator import parallel
from taurec.evaluator.logs import Resolver, find_logs, score_file, score_files

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork"
)


def fields(scores) -> list[dict]:
    return [dataclasses.asdict(s) for s in scores]


@pytest.fixture
def files(logs) -> list[Path]:
    logs.run({"ta": 3, "tb": 1, "tc": 2}, trials=5)
    return find_logs([logs.out])


def test_forked_workers_give_every_field_of_every_score_in_order(files, logs):
    serial = score_files(files, Resolver(suite=logs.spec), workers=1)
    heard: list[tuple[int, int]] = []
    forked = score_files(
        files, Resolver(suite=logs.spec), workers=3, progress=lambda *a: heard.append(a)
    )
    assert fields(forked) == fields(serial)
    assert len({s.reward for s in serial}) > 1  # not all alike: the order is checked
    assert heard[-1] == (len(files), len(files))


def test_spawned_workers_give_the_same_scores(files, logs, monkeypatch):
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    serial = score_files(files, Resolver(suite=logs.spec), workers=1)
    spawned = score_files(files, Resolver(suite=logs.spec), workers=2)
    assert fields(spawned) == fields(serial)


def _dies_in_a_worker(path: Path, resolver: Resolver):
    """A worker dies at its first log (it leaves a mark first); this process is slow,
    so the worker surely takes chunks before this one has taken them all."""
    if os.getpid() == PARENT[0]:
        time.sleep(0.05)
    else:
        (path.parent / "worker-died").touch()
        os._exit(3)  # as a worker killed mid-chunk would
    return score_file(path, resolver)


PARENT = [0]


def test_chunks_a_dead_worker_took_are_scored_here(files, logs):
    PARENT[0] = os.getpid()
    serial = score_files(files, Resolver(suite=logs.spec), workers=1)
    scores = parallel.score_in_processes(
        files, Resolver(suite=logs.spec), 2, lambda *a: None, _dies_in_a_worker
    )
    assert list(logs.out.rglob("worker-died"))  # the worker did take a chunk, and died
    assert fields(scores) == fields(serial)
