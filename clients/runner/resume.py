"""Resume by the run register: in a sealed run, the register says what is played again.

The server writes an episode's log end record (and fsyncs it) before the register's end
record. A run killed between the two leaves a complete log whose register attempt has no
end: the server marks that attempt `interrupted` when it reopens the register and lets it
be played once more, and the evaluator scores each planned (task, trial) from the
register's latest attempt only. Deciding by the logs alone would skip that episode as
finished and leave it counted as a failure. So when the run's register can be read,
resume follows it, planned (task, trial) by planned (task, trial):

- one the register lets start (never started, or its latest attempt was left open or cut
  off by the server, with an attempt left) is played again, and every log of it in the
  run folder is set aside first, complete or not (a complete one is "unended");
- any other is not played again: the log its latest attempt names stays where it is,
  whatever state it is in, so the evaluator scores it, or fails it for the reason it
  reports (an ended attempt whose log is missing or incomplete, a second interruption).

A run without a register (open mode, a remote HTTP server's plans, a run killed before
its server started) resumes by its logs alone (plan.py), as does one whose register is
damaged (its server refuses to reopen it, naming the damage).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from taurec.clients.runner.plan import EpisodeSpec, Existing, summarize_log
from taurec.evaluator.sealed import MAX_REGISTER_BYTES
from taurec.tasks.runs.register import REGISTER_NAME, Attempt, RegisterState, read_register
from taurec.tasks.runs.register import may_play_again as _may_play_again


def read_run_register(folder: Path) -> RegisterState | None:
    """The register in the run folder `folder`, when there is a sound one to follow (its
    chain is checked; its signatures are the evaluator's and the server's to check)."""
    try:
        with (folder / REGISTER_NAME).open("rb") as f:
            raw = f.read(MAX_REGISTER_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_REGISTER_BYTES:
        return None
    state = read_register(raw, None)
    return state if state.plan is not None and state.problem is None else None


def playable(attempt: Attempt | None) -> bool:
    """Whether the server, reopening the register, lets the episode whose latest attempt is
    `attempt` start: never started, or cut off with an attempt left (an attempt still
    open on disk is one the server will mark interrupted)."""
    if attempt is None:
        return True
    return _may_play_again(attempt if attempt.ended else replace(attempt, interrupted=True))


def by_register(
    specs: Sequence[EpisodeSpec], done: Existing, state: RegisterState, folder: Path
) -> tuple[list[EpisodeSpec], Existing]:
    """The episodes of `specs` to play, and what was found, as the register `state` of the
    run folder `folder` has it (`done`: what the logs alone say)."""
    latest = state.latest()
    inside = os.path.abspath(folder)

    def in_folder(path: Path) -> bool:
        return os.path.commonpath([inside, os.path.abspath(path)]) == inside

    todo: list[EpisodeSpec] = []
    found = Existing(other_protocol=done.other_protocol)
    kept: set[str] = set()
    for spec in specs:
        attempt = latest.get((spec.task_id, spec.trial))
        if playable(attempt):
            todo.append(spec)
            log = done.complete.get(spec)
            if log is not None and in_folder(log):
                found.unended.append(log)
            continue
        assert attempt is not None  # a slot never started is playable
        named = folder / attempt.log
        kept.add(os.path.normpath(named))
        cut = attempt.interrupted or not attempt.ended  # the second of two: failed
        if cut or not summarize_log(named).finished:
            found.closed.append(spec)
        else:
            found.complete[spec] = named
    found.incomplete = [p for p in done.incomplete if os.path.normpath(p) not in kept]
    return todo, found
