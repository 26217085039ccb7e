"""Suites: a catalog plus the tasks posed over it, loaded all-or-nothing.

A suite is a folder:

    my-suite/
      suite.json          {"format_version": 1, "id": "my-suite", "catalog": "builtin",
                           "description": "..."}
      tasks/<task id>.json  one task per file; the file stem is the task id

`catalog` is "builtin" (the shipped snapshot) or a catalog file path relative to the
folder; `kind` (default "recommendation") names the task kind of every task, and `data`
the kind's other data sources. A kind may keep data once per folder beside the task
files (a stream suite's pool.json); its `SuiteData` completes each task document on
load and decides what is left out on write. `KIND:builtin` (e.g. `ranking:builtin`) is
the suite of that kind shipped in this package. `load_suite` also reads the suites shipped in this package ("builtin") and, as
`tau-rec:PATH`, the τ-Rec public release (see `taurec.tasks.recommendation.taurec_release`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taurec.catalog.errors import DataError, from_validation_error
from taurec.catalog.folder import is_catalog_folder
from taurec.catalog.store import BUILTIN, Catalog
from taurec.tasks.kinds import DEFAULT_KIND, TASK_KINDS, SuiteData, UnknownKind
from taurec.tasks.shipped import BUILTIN_SUITES, SUITE_CHOICES, packaged_suites_dir
from taurec.tasks.task_files import TASKS_DIR, check_unique_ids, read_json

SUITE_FORMAT_VERSION = 1
SUITE_FILE = "suite.json"
TAU_REC_PREFIX = "tau-rec:"
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class SuiteFormat(StrEnum):
    TAUREC = "taurec"  # ours: every problem is an error
    TAU_REC = "tau-rec"  # the τ-Rec release: third-party data, problems are warnings


class SuiteManifest(BaseModel):
    """The contents of `suite.json`."""

    model_config = ConfigDict(extra="forbid")

    format_version: Literal[1] = Field(description="Suite format version; 1.")
    id: str = Field(pattern=_NAME.pattern, description="Suite id, e.g. 'builtin'.")
    catalog: str = Field(
        default=BUILTIN,
        min_length=1,
        description="'builtin' or a catalog path relative to the folder.",
    )
    description: str = ""
    kind: str = Field(default=DEFAULT_KIND, description="The task kind of every task in the suite.")
    data: dict[str, str] = Field(
        default_factory=dict,
        description="The kind's data sources beyond the catalog, e.g. {'interactions': SOURCE}.",
    )


@dataclass(frozen=True)
class Suite:
    """A loaded suite. `tasks` are sorted by id, all of one `kind` (their model is that
    kind's, see taurec.tasks.kinds); `warnings` are load-time notes."""

    id: str
    spec: str
    description: str
    catalog: Catalog
    tasks: list[Any]
    warnings: list[str] = field(default_factory=list)
    format: SuiteFormat = SuiteFormat.TAUREC
    kind: str = DEFAULT_KIND
    data: dict[str, str] = field(default_factory=dict)

    @property
    def strict(self) -> bool:
        """Whether validation problems are errors (our format) or warnings (imported data)."""
        return self.format is SuiteFormat.TAUREC

    def get(self, task_id: str) -> Any | None:
        return self._by_id.get(task_id)

    @cached_property
    def _by_id(self) -> dict[str, Any]:
        """Tasks by id (the first of a repeated id, as a scan would find), built once:
        the evaluator looks one up per log."""
        out: dict[str, Any] = {}
        for t in self.tasks:
            out.setdefault(t.id, t)
        return out

    def sha256(self) -> str:
        """Hash of the catalog (`Catalog.sha256`: a folder's covers its index files) and every
        task: equal digests mean the same suite."""
        h = hashlib.sha256(self.catalog.sha256().encode())
        for t in self.tasks:
            h.update(f"\n{t.id}:{t.sha256()}".encode())
        return h.hexdigest()


def portable_suite_spec(spec: str) -> str:
    """Suite paths made absolute, so the evaluator finds the suite from any folder."""
    if spec.startswith(TAU_REC_PREFIX):
        path = Path(spec.removeprefix(TAU_REC_PREFIX))
        return TAU_REC_PREFIX + str(path.resolve()) if path.exists() else spec
    if spec == "builtin":
        return spec
    path = Path(spec)
    return str(path.resolve()) if path.exists() else spec


def load_suite(spec: str, *, audit: bool = True) -> Suite:
    """Load "builtin" (or another suite shipped in the package, e.g. "stream:builtin"), a
    suite folder, or `tau-rec:PATH`. Raises DataError naming the file, task, field and expectation.
    Without `audit`, a τ-Rec release's defects are not looked for (its warnings lack them).
    """
    if spec.startswith(TAU_REC_PREFIX):
        from taurec.tasks.recommendation.taurec_release import (
            read_release,  # it builds on this module: import on use
        )

        release = read_release(spec.removeprefix(TAU_REC_PREFIX), audit=audit)
        return Suite(
            id="tau-rec",
            spec=spec,
            description=f"τ-Rec public release at {release.root}",
            catalog=release.catalog,
            tasks=release.tasks,
            warnings=release.warnings,
            format=SuiteFormat.TAU_REC,
        )
    kind, _, name = spec.partition(":")
    if spec in BUILTIN_SUITES and name == BUILTIN and kind in TASK_KINDS.names():
        return read_suite_dir(packaged_suites_dir() / kind, spec=spec)  # e.g. ranking:builtin
    packaged = packaged_suites_dir() / spec
    if _NAME.match(spec) and (packaged / TASKS_DIR).is_dir():
        return read_suite_dir(packaged, spec=spec)
    path = Path(spec)
    if path.is_file() and path.name == SUITE_FILE:
        path = path.parent
    if not path.is_dir():
        raise DataError(
            f"no such suite; expected {SUITE_CHOICES} (a suite folder holds suite.json and "
            "tasks/; PATH is a τ-Rec release)",
            source=spec,
        )
    return read_suite_dir(path, spec=spec)


def read_manifest(folder: Path) -> SuiteManifest:
    path = folder / SUITE_FILE
    if not path.is_file():
        hint = ""
        if (folder / "catalog.json").is_file():
            hint = f" (this looks like a τ-Rec release; load it as tau-rec:{folder})"
        raise DataError(
            'no such file; expected a suite manifest {"format_version": 1, "id": ..., '
            f'"catalog": "builtin" or a path, "description": ...}}{hint}',
            source=path,
        )
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise DataError(f"expected a JSON object, got {type(doc).__name__}", source=path)
    try:
        return SuiteManifest.model_validate(doc)
    except ValidationError as exc:
        raise from_validation_error(exc, source=path, record="suite") from None


def parse_task(
    doc: Any, *, source: Path | str, expected_id: str | None = None, kind: str | None = None
) -> Any:
    """Validate one task document (our format) with its kind's model and checks.
    `expected_id` is the file stem, if any; `kind`, the suite's kind it must have."""
    record = (
        f"task {doc['id']!r}" if isinstance(doc, dict) and isinstance(doc.get("id"), str) else None
    )
    record = record or (f"task {expected_id!r}" if expected_id else "task")
    if not isinstance(doc, dict):
        raise DataError(
            f"expected a JSON object, got {type(doc).__name__}", source=source, record=record
        )
    doc_kind = doc.get("kind", DEFAULT_KIND)
    try:
        task_kind = TASK_KINDS.get(doc_kind)
    except UnknownKind:
        raise DataError(
            f"unknown task kind {doc_kind!r}; expected one of the supported kinds: "
            f"{', '.join(TASK_KINDS.names())}",
            source=source,
            record=record,
            field="kind",
        ) from None
    if kind is not None and doc_kind != kind:
        raise DataError(
            f"is a {doc_kind!r} task in a {kind!r} suite; expected every task of the suite's kind",
            source=source,
            record=record,
            field="kind",
        )
    try:
        task: Any = task_kind.model.model_validate(doc)
    except ValidationError as exc:
        raise from_validation_error(exc, source=source, record=record) from None
    if expected_id is not None and task.id != expected_id:
        raise DataError(
            f"expected the file name stem {expected_id!r} as the id, got {task.id!r}",
            source=source,
            record=record,
            field="id",
        )
    problems = task_kind.checks(task)
    if problems:
        field_name, problem = problems[0]
        raise DataError(problem, source=source, record=record, field=field_name)
    return task


def read_suite_dir(folder: Path, *, spec: str) -> Suite:
    """Load a suite folder in our format (see the module docstring)."""
    manifest = read_manifest(folder)
    tasks_dir = folder / TASKS_DIR
    if not tasks_dir.is_dir():
        raise DataError("no tasks/ folder; expected tasks/<task id>.json files", source=tasks_dir)
    data = _suite_data(manifest.kind)
    complete = data.reader(folder) if data is not None else None
    warnings: list[str] = []
    tasks: list[Any] = []
    problems: list[DataError] = []
    for path in sorted(tasks_dir.iterdir()):
        if path.name.startswith("."):
            continue
        if path.suffix != ".json" or not path.is_file():
            warnings.append(f"{path}: ignored; task files are tasks/<task id>.json")
            continue
        try:
            doc = read_json(path)
            doc = complete(doc) if complete is not None else doc
        except DataError as exc:
            record = f"task {path.stem!r}"
            problems.append(DataError(exc.detail, source=path, record=record, field=exc.field))
            continue
        try:
            tasks.append(parse_task(doc, source=path, expected_id=path.stem, kind=manifest.kind))
        except DataError as exc:
            problems.append(exc)
    if problems:
        raise _first_of(problems)
    if not tasks:
        raise DataError(
            "holds no task files; expected at least one tasks/<task id>.json", source=tasks_dir
        )
    check_unique_ids(tasks, source=tasks_dir)
    return Suite(
        id=manifest.id,
        spec=spec,
        description=manifest.description,
        catalog=_load_catalog(manifest.catalog, folder),
        tasks=sorted(tasks, key=lambda t: t.id),
        warnings=warnings,
        format=SuiteFormat.TAUREC,
        kind=manifest.kind,
        data=dict(manifest.data),
    )


def _suite_data(kind: str) -> SuiteData | None:
    """What suite folders of `kind` hold beside the task files, if anything."""
    try:
        return TASK_KINDS.get(kind).suite_data
    except UnknownKind:  # each task file's kind is checked, and reported, on its own
        return None


def _first_of(problems: list[DataError]) -> DataError:
    first = problems[0]
    if len(problems) == 1:
        return first
    others = ", ".join(Path(p.source or "?").name for p in problems[1:4])
    more = "..." if len(problems) > 4 else ""
    n = len(problems) - 1
    return DataError(
        f"{first.detail} (and {n} more file{'s' if n > 1 else ''} with problems: {others}{more})",
        source=first.source,
        record=first.record,
        field=first.field,
    )


def _load_catalog(catalog: str, folder: Path) -> Catalog:
    if catalog == BUILTIN:
        return Catalog.load(BUILTIN)
    path = folder / catalog
    if not (path.is_file() or is_catalog_folder(path)):
        raise DataError(
            f"names {catalog!r}, which is not a file ({path}); expected 'builtin' or a catalog "
            "file path (or .taurec-catalog folder) relative to the suite folder",
            source=folder / SUITE_FILE,
            field="catalog",
        )
    return Catalog.load(path)


def task_record(task: BaseModel) -> dict[str, Any]:
    """The JSON object a task file holds (unset optional fields left out)."""
    return task.model_dump(mode="json", exclude_none=True)


def write_suite_dir(folder: Path, manifest: SuiteManifest, tasks: Sequence[Any]) -> Path:
    """Write suite.json, the kind's shared data (if any) and tasks/<id>.json under
    `folder`; existing task files are replaced."""
    check_unique_ids(tasks, source=folder / TASKS_DIR)
    tasks_dir = folder / TASKS_DIR
    tasks_dir.mkdir(parents=True, exist_ok=True)
    for old in tasks_dir.glob("*.json"):
        old.unlink()
    option = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    (folder / SUITE_FILE).write_bytes(orjson.dumps(manifest.model_dump(mode="json"), option=option))
    data = _suite_data(manifest.kind)
    shared = data.write(folder, tasks) if data is not None else [set[str]() for _ in tasks]
    for task, left_out in zip(tasks, shared, strict=True):
        record = {k: v for k, v in task_record(task).items() if k not in left_out}
        (tasks_dir / f"{task.id}.json").write_bytes(orjson.dumps(record, option=option))
    return folder
