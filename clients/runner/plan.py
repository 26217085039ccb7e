"""What a run plays: tasks x trials, minus what an earlier run already finished.

An episode is identified by (suite, task, trial, agent label). Resume reads the logs under
the output folder (a sealed run's register has the last word: resume.py): an episode
whose log has its end record is finished and skipped. An unfinished one is moved aside
into `<out>/.incomplete/` (renamed `*.jsonl.incomplete`, so `evaluator score` does not
count it; never deleted) and replayed: a log without an end record (the run or the server
was killed mid-episode), or one the server ended because it was shutting down
(infra_error, "server shut down": the agent was cut off, as by a kill).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from taurec.server.episode_end import SHUTDOWN_DETAIL
from taurec.tasks.trajectory.model_calls import episode_store

INCOMPLETE_DIR: Final = ".incomplete"


@dataclass(frozen=True, order=True)
class EpisodeSpec:
    task_id: str
    trial: int


def plan(task_ids: Sequence[str], trials: int) -> list[EpisodeSpec]:
    """Every (task, trial), trial-major (all tasks' trial 0 first), so an interrupted run
    has covered every task about equally."""
    return [EpisodeSpec(t, k) for k in range(trials) for t in task_ids]


@dataclass(frozen=True)
class LogSummary:
    """Header facts and completeness of one log, read from its first and last lines."""

    path: Path
    suite_id: str | None
    task_id: str | None
    trial: int | None
    label: str | None
    complete: bool  # the log has its end record
    end_reason: str | None = None
    end_detail: str | None = None
    protocol: dict[str, Any] | None = None  # a stream log's run protocol (its header's)

    @property
    def cut_off(self) -> bool:
        """The server ended the episode because it was shutting down, not because of
        anything the agent did: as unfinished as a log without an end record."""
        return (
            self.complete
            and self.end_reason == "infra_error"
            and self.end_detail == SHUTDOWN_DETAIL
        )

    @property
    def finished(self) -> bool:
        """Complete, and not cut off: what resume keeps."""
        return self.complete and not self.cut_off


def _nested_dict(doc: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    """doc[k1][k2]... when every step is a JSON object, else None."""
    node: Any = doc
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def summarize_log(path: Path) -> LogSummary:
    try:
        data = path.read_bytes()
    except OSError:
        return LogSummary(path, None, None, None, None, False)
    lines = data.splitlines()
    try:
        header = orjson.loads(lines[0]) if lines else {}
    except orjson.JSONDecodeError:
        header = {}
    try:
        last = orjson.loads(lines[-1]) if len(lines) > 1 and data.endswith(b"\n") else {}
    except orjson.JSONDecodeError:
        last = {}
    if not isinstance(header, dict):
        header = {}
    agent = header.get("agent") if isinstance(header.get("agent"), dict) else {}
    suite = header.get("suite") if isinstance(header.get("suite"), dict) else {}
    trial = header.get("trial")
    complete = isinstance(last, dict) and last.get("type") == "end"
    protocol = _nested_dict(header, "simulator", "settings", "protocol")
    reason, detail = (last.get("reason"), last.get("detail")) if complete else (None, None)
    return LogSummary(
        path=path,
        suite_id=suite.get("id") if suite else None,
        task_id=header.get("task_id"),
        trial=trial if isinstance(trial, int) else None,
        label=agent.get("label") if agent else None,
        complete=complete,
        end_reason=reason if isinstance(reason, str) else None,
        end_detail=detail if isinstance(detail, str) else None,
        protocol=protocol,
    )


def episode_logs(out: Path) -> list[Path]:
    """Every episode log under `out`, except the ones set aside."""
    if not out.is_dir():
        return []
    aside = out / INCOMPLETE_DIR
    return sorted(p for p in out.rglob("*.jsonl") if aside not in p.parents and p.is_file())


@dataclass
class Existing:
    """The logs under `out` of one (suite, label): finished ones by episode, and the
    unfinished ones (no end record, or cut off by a server shutdown)."""

    complete: dict[EpisodeSpec, Path] = field(default_factory=dict)
    incomplete: list[Path] = field(default_factory=list)
    #: logs of the same (suite, label) played under another stream protocol
    other_protocol: list[Path] = field(default_factory=list)
    #: complete logs whose run register has no end for them (resume.py): played again
    unended: list[Path] = field(default_factory=list)
    #: episodes the run register closed without a finished log: not played again, failed
    closed: list[EpisodeSpec] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.complete) + len(self.incomplete)


def _played_as(recorded: dict[str, Any] | None) -> dict[str, Any] | None:
    """A recorded stream protocol with the fields it lacks filled in as it was played
    (a log written before a field existed), so that it compares with a new record."""
    from taurec.tasks.stream.protocol import PROTOCOL_KEY, protocol_of

    try:
        played = protocol_of({PROTOCOL_KEY: recorded}) if recorded is not None else None
    except ValueError:  # not a protocol: it matches nothing but itself
        return recorded
    return None if played is None else played.record()


def existing(
    out: Path,
    suite_id: str,
    label: str,
    protocols: Sequence[dict[str, Any]] | None = None,
) -> Existing:
    """The logs of (suite, label) under `out`; with `protocols` (a stream run's: one, or
    its run and control arms'), those played under another protocol are set apart, never
    counted as this run's."""
    found = Existing()
    played = None if protocols is None else [_played_as(p) for p in protocols]
    for path in episode_logs(out):
        s = summarize_log(path)
        if s.label != label or s.suite_id != suite_id or s.task_id is None or s.trial is None:
            continue
        if played is not None and _played_as(s.protocol) not in played:
            found.other_protocol.append(path)
            continue
        spec = EpisodeSpec(s.task_id, s.trial)
        if s.finished:
            found.complete.setdefault(spec, path)
        else:
            found.incomplete.append(path)
    return found


def set_aside(out: Path, paths: Iterable[Path]) -> list[Path]:
    """Move unfinished logs to `<out>/.incomplete/<same relative path>.incomplete` (with a
    numbered suffix if that name is taken: nothing set aside is ever overwritten), each
    with its prompt store."""
    moved = []
    for path in paths:
        target = out / INCOMPLETE_DIR / f"{path.relative_to(out)}.incomplete"
        target.parent.mkdir(parents=True, exist_ok=True)
        n = 0
        while target.exists():
            n += 1
            target = target.with_name(f"{path.name}.incomplete.{n}")
        path.replace(target)
        if (store := episode_store(path)).is_file():
            store.replace(episode_store(target))
        moved.append(target)
    return moved


def remaining(specs: Iterable[EpisodeSpec], done: Existing) -> list[EpisodeSpec]:
    return [s for s in specs if s not in done.complete]
