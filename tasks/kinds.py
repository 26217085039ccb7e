"""Task kinds: one per research system, registered once per layer.

A kind ("recommendation", "ranking", ...) is named in every task file and every log
header. Each layer that treats kinds differently keeps one `KindRegistry`: the task
schema here (`TASK_KINDS`), the MCP surface in `taurec.server.kinds`, scoring and report
columns in `taurec.evaluator.kinds`, agents in `taurec.clients.agents.registry`. A kind
module registers itself with the layer's decorator; the registry lists the modules that
hold its kinds and imports them on first lookup, so shared code (suites, episodes,
logs, runner, reports) asks the registry and never tests a kind's name.
See docs/task-kinds.md.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
M = TypeVar("M", bound=type[BaseModel])

#: The kind of a task file or log header that does not name one (v1 files).
DEFAULT_KIND = "recommendation"


class UnknownKind(ValueError):
    """A kind no module of this layer registered."""


class KindRegistry(Generic[T]):
    """What one layer knows about each kind: `register(kind)` decorates the entry, `get`
    finds it. `modules` are imported on first lookup (they register themselves)."""

    def __init__(self, layer: str, modules: tuple[str, ...]) -> None:
        self.layer = layer
        self.modules = modules
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._loading = threading.RLock()  # two threads' first lookups: one imports

    def register(self, kind: str) -> Callable[[T], T]:
        def add(entry: T) -> T:
            if kind in self._entries and self._entries[kind] is not entry:
                raise ValueError(f"task kind {kind!r} is registered twice for the {self.layer}")
            self._entries[kind] = entry
            return entry

        return add

    def _load(self) -> None:
        if self._loaded:
            return
        with self._loading:  # marked loaded only once every module has registered
            if not self._loaded:
                for module in self.modules:
                    importlib.import_module(module)
                self._loaded = True

    def get(self, kind: str) -> T:
        self._load()
        entry = self._entries.get(kind)
        if entry is None:
            raise UnknownKind(
                f"unknown task kind {kind!r} for the {self.layer}; expected one of "
                f"{', '.join(self.names())}"
            )
        return entry

    def names(self) -> tuple[str, ...]:
        self._load()
        return tuple(sorted(self._entries))


#: Completes one task document with what its suite folder holds once for every task.
CompleteDoc = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class SuiteData:
    """What a kind keeps once per suite folder rather than in every task file (a stream
    suite's pool.json). `reader(folder)` gives the function that completes each task
    document before validation (the identity when the folder holds none); `write(folder,
    tasks)` writes that data and gives, per task, the fields the reader rebuilds exactly:
    only those are left out of the task's file, so it loads with the same sha256."""

    reader: Callable[[Path], CompleteDoc]
    write: Callable[[Path, Sequence[Any]], list[set[str]]]


@dataclass(frozen=True)
class TaskKind:
    """A task kind's schema: the pydantic model of its task files, the checks past the
    schema (each returns (field, problem) pairs; an empty list means the task is sound),
    and what its suite folders hold beside the task files (None: nothing)."""

    name: str
    model: type[BaseModel]
    description: str
    checks: Callable[[Any], list[tuple[str, str]]] = lambda task: []
    suite_data: SuiteData | None = None


TASK_KINDS: KindRegistry[TaskKind] = KindRegistry(
    "task schema",
    (
        "taurec.tasks.recommendation.task",
        "taurec.tasks.ranking.task",
        "taurec.tasks.ranking.pair",
        "taurec.tasks.stream.task",
    ),
)


def task_kind(
    name: str,
    *,
    description: str,
    checks: Callable[[Any], list[tuple[str, str]]] | None = None,
    suite_data: SuiteData | None = None,
) -> Callable[[M], M]:
    """Class decorator: register a pydantic task model as the schema of kind `name`."""

    def add(model: M) -> M:
        entry = TaskKind(name, model, description, checks or (lambda task: []), suite_data)
        TASK_KINDS.register(name)(entry)
        return model

    return add
