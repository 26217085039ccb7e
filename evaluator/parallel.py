"""Scoring logs in several processes, this one among them.

Where the system can fork, the workers are forked from this process once its first log
is scored (so they share its loaded modules and suite, copy-on-write), take chunks of
logs from a shared counter, and send back what they scored, pickled, through a pipe when
they have no chunk left; a chunk a worker took but did not send back (it died) is scored
here. Elsewhere a spawned ProcessPoolExecutor does the same work. The results are the
same as in one process, in the logs' order.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import select
import signal
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.memory import collector_paused
from taurec.evaluator.progress import ScoringProgress

if TYPE_CHECKING:
    from taurec.evaluator.resolver import Resolver

#: With several processes, the logs go out in chunks: this many per process, at most
#: CHUNK_MOST logs each.
CHUNKS_EACH = 8
CHUNK_MOST = 250
#: How often, in seconds, the workers' progress is reported once this process is done.
PROGRESS_POLL_S = 0.2

ScoreFile = Callable[[Path, "Resolver"], EpisodeScore]


def chunked(files: list[Path], workers: int) -> list[list[Path]]:
    size = max(1, min(CHUNK_MOST, -(-len(files) // (workers * CHUNKS_EACH))))
    return [files[i : i + size] for i in range(0, len(files), size)]


def score_in_processes(
    files: list[Path],
    resolver: Resolver,
    workers: int,
    progress: ScoringProgress,
    score_file: ScoreFile,
) -> list[EpisodeScore]:
    if "fork" in multiprocessing.get_all_start_methods():
        return _forked(files, resolver, workers, progress, score_file)
    return _spawned(files, resolver, workers, progress, score_file)


class _Counters:
    """The next chunk to take and the logs scored so far, shared by forked processes."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self._lock = context.Lock()
        self._next = context.RawValue("i", 0)
        self._scored = context.RawValue("i", 0)

    def take(self) -> int:
        with self._lock:
            taken = self._next.value
            self._next.value = taken + 1
        return taken

    def add_scored(self, n: int) -> int:
        with self._lock:
            self._scored.value += n
            return self._scored.value

    def scored(self) -> int:
        with self._lock:
            return int(self._scored.value)


def _take_chunks(
    chunks: list[list[Path]],
    counters: _Counters,
    resolver: Resolver,
    score_file: ScoreFile,
    progress: ScoringProgress | None,
) -> dict[int, list[EpisodeScore]]:
    done: dict[int, list[EpisodeScore]] = {}
    total = sum(map(len, chunks))
    while (index := counters.take()) < len(chunks):
        done[index] = [score_file(p, resolver) for p in chunks[index]]
        scored = counters.add_scored(len(chunks[index]))
        if progress is not None:
            progress(scored, total)
    return done


def _forked(
    files: list[Path],
    resolver: Resolver,
    workers: int,
    progress: ScoringProgress,
    score_file: ScoreFile,
) -> list[EpisodeScore]:
    score_file(files[0], resolver)  # loads the suite once, before the workers fork
    chunks = chunked(files, workers)
    counters = _Counters()
    children: list[tuple[int, int]] = []
    parts: dict[int, list[EpisodeScore]] = {}
    try:
        for _ in range(workers - 1):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: score, send, and leave without any cleanup
                os.close(read_end)
                _worker(write_end, chunks, counters, resolver, score_file)
            os.close(write_end)
            children.append((pid, read_end))
        parts.update(_take_chunks(chunks, counters, resolver, score_file, progress))
        while children:  # the workers' progress is heard while they finish
            ready, _, _ = select.select([fd for _, fd in children], [], [], PROGRESS_POLL_S)
            progress(counters.scored(), len(files))
            for pid, read_end in [c for c in children if c[1] in ready]:
                children.remove((pid, read_end))
                parts.update(_collect(pid, read_end))
    finally:
        for pid, read_end in children:  # interrupted: stop the workers, keep nothing
            _stop(pid, read_end)
    for index, chunk in enumerate(chunks):  # taken by a worker that died: score them here
        if index not in parts:
            parts[index] = [score_file(p, resolver) for p in chunk]
    progress(len(files), len(files))
    return [score for index in range(len(chunks)) for score in parts[index]]


def _worker(
    out: int,
    chunks: list[list[Path]],
    counters: _Counters,
    resolver: Resolver,
    score_file: ScoreFile,
) -> None:
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt ends it at once
        done = _take_chunks(chunks, counters, resolver, score_file, None)
        payload = pickle.dumps(_plain(done), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(payload)
        while view:
            view = view[os.write(out, view) :]
        code = 0
    finally:
        os._exit(code)


def _plain(done: dict[int, list[EpisodeScore]]) -> dict[int, list[dict[str, Any]]]:
    """Each score's fields (pickled as dicts, they travel faster than as dataclasses)."""
    return {index: [vars(s) for s in scores] for index, scores in done.items()}


def _rebuilt(fields: dict[str, Any]) -> EpisodeScore:
    score = EpisodeScore.__new__(EpisodeScore)
    vars(score).update(fields)
    return score


def _collect(pid: int, read_end: int) -> dict[int, list[EpisodeScore]]:
    """What a worker sent (nothing when it died before sending all of it)."""
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {}
    with collector_paused():
        sent = pickle.loads(payload)
    return {index: [_rebuilt(f) for f in fields] for index, fields in sent.items()}


def _stop(pid: int, read_end: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.close(read_end)
    os.waitpid(pid, 0)


_Chunk = tuple[list[Path], "Resolver", ScoreFile]


def _score_chunk(args: _Chunk) -> list[EpisodeScore]:
    files, resolver, score_file = args
    with collector_paused():
        return [score_file(p, resolver) for p in files]


def _spawned(
    files: list[Path],
    resolver: Resolver,
    workers: int,
    progress: ScoringProgress,
    score_file: ScoreFile,
) -> list[EpisodeScore]:
    """Where fork is missing: workers - 1 spawned processes (each loads the suite) take
    chunks from the front, this process from the back."""
    chunks = chunked(files, workers)
    total = len(files)
    parts: list[list[EpisodeScore]] = [[] for _ in chunks]
    fresh = resolver.unloaded()
    front, back = 0, len(chunks)  # chunks [front, back) are not handed out yet
    mine = 0  # logs this process scored
    running: dict[int, Future[list[EpisodeScore]]] = {}

    def finished() -> int:
        return mine + sum(len(chunks[i]) for i, f in running.items() if f.done())

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers - 1, mp_context=context) as pool:
        while front < back:
            # two chunks queued per worker, so none waits while this process scores one
            while front < back and sum(not f.done() for f in running.values()) < 2 * (workers - 1):
                running[front] = pool.submit(_score_chunk, (chunks[front], fresh, score_file))
                front += 1
            if front < back:
                back -= 1
                parts[back] = [score_file(p, resolver) for p in chunks[back]]
                mine += len(chunks[back])
                progress(finished(), total)
        for i, f in running.items():
            parts[i] = f.result()
            progress(finished(), total)
    return [score for part in parts for score in part]
