"""Read the τ-Rec public release (catalog.json + tasks/*.json) as a suite, in place.

The release's task format differs from ours in shape, not meaning:

    constraints: [{"constraint": {"field", "op", "value"}, "reveal"}]  -> Constraint
    user_id, user_history: {uid: {"watched": [...], "ratings": {...}}},
    user_services: [...]                                              -> UserContext

The release has known defects (declared strata its reveal tags contradict, tasks with no
compliant answer, policy flags that cannot bite, ...). They are reported as warnings,
summarised per problem code, and never stop the load; only unreadable data raises
DataError. The data is third party: it is read where it lies and never copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taurec.catalog.builders.taurec_release import CATALOG_FILE, import_catalog
from taurec.catalog.errors import DataError, from_validation_error
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.recommendation.validate import PROBLEM_CODES, Vocabulary, check_task
from taurec.tasks.task_files import TASKS_DIR, check_unique_ids, read_json

#: Top-level keys of a release task; anything else is ignored with a warning.
RELEASE_TASK_KEYS = frozenset(
    {
        "id",
        "constraints",
        "persona",
        "soft_preferences",
        "policy_flags",
        "no_valid_recommendation",
        "complexity",
        "reveal_difficulty",
        "user_id",
        "user_history",
        "user_services",
    }
)
#: Our field paths -> the release's, so error messages name what is in the file.
_FIELD_NAMES = (("user.services", "user_services"), ("user.watch_history", "user_history"))
_SHOW = 8


@dataclass(frozen=True)
class Release:
    root: Path
    catalog: Catalog
    tasks: list[RecommendationTask]
    warnings: list[str]


def find_release_root(path: str | Path) -> Path:
    """The folder holding catalog.json and tasks/: `path`, its `data/`, or its parent
    (when `path` is the tasks folder)."""
    path = Path(path)
    for root in (path, path / "data", path.parent):
        if (root / CATALOG_FILE).is_file() and (root / TASKS_DIR).is_dir():
            return root
    raise DataError(
        f"is not a τ-Rec release; expected a folder holding {CATALOG_FILE} and {TASKS_DIR}/ "
        "(or its data/ or tasks/ folder)",
        source=path,
    )


def convert_task(doc: Any, *, source: Path | str) -> tuple[RecommendationTask, list[str]]:
    """One release task in our schema, plus notes on what the conversion dropped or assumed."""
    if not isinstance(doc, dict):
        raise DataError(f"expected a JSON object, got {type(doc).__name__}", source=source)
    task_id = doc.get("id")
    record = f"task {task_id!r}" if isinstance(task_id, str) else "task"
    notes: list[str] = []
    ignored = sorted(set(doc) - RELEASE_TASK_KEYS)
    if ignored:
        notes.append(f"ignored field(s) {', '.join(ignored)}: not part of the release task format")
    constraints = [
        {**c["constraint"], "reveal": c.get("reveal", "volunteer")}
        if isinstance(c, dict) and isinstance(c.get("constraint"), dict)
        else c
        for c in doc.get("constraints", [])
    ]
    user_id = doc.get("user_id", "user_1")
    histories = doc.get("user_history") or {}
    history = histories.get(user_id, {}) if isinstance(histories, dict) else histories
    if isinstance(histories, dict):
        if histories and user_id not in histories:
            notes.append(
                f"user_history has no entry for user_id {user_id!r}; history taken as empty"
            )
        others = sorted(k for k in histories if k != user_id)
        if others:
            notes.append(f"ignored the histories of other users: {', '.join(map(str, others))}")
    watched = list(history.get("watched", [])) if isinstance(history, dict) else history
    ratings = history.get("ratings", {}) if isinstance(history, dict) else {}
    if isinstance(ratings, dict) and isinstance(watched, list):
        unwatched = [k for k in ratings if k not in watched]
        if unwatched:
            notes.append(
                f"ratings for titles not in 'watched' ({', '.join(unwatched)}) count as watched"
            )
            watched.extend(unwatched)
        watch_history: Any = [{"item_id": w, "rating": ratings.get(w)} for w in watched]
    else:
        watch_history = watched
    ours = {
        k: doc[k]
        for k in (
            "id",
            "persona",
            "soft_preferences",
            "policy_flags",
            "no_valid_recommendation",
            "complexity",
            "reveal_difficulty",
        )
        if k in doc
    }
    ours["constraints"] = constraints
    ours["user"] = {
        "user_id": user_id,
        "services": doc.get("user_services", []),
        "watch_history": watch_history,
    }
    try:
        task = RecommendationTask.model_validate(ours)
    except ValidationError as exc:
        err = from_validation_error(exc, source=source, record=record)
        field = err.field or ""
        for our_name, theirs in _FIELD_NAMES:
            field = field.replace(our_name, theirs)
        raise DataError(err.detail, source=source, record=record, field=field or None) from None
    return task, notes


def read_release(path: str | Path, *, audit: bool = True) -> Release:
    """Load the release at `path`, reporting its defects as warnings (see the module doc).
    Without `audit`, the task-by-task defect check (most of the loading time) is skipped:
    scoring logs needs the tasks, not a report on them."""
    root = find_release_root(path)
    meta, items, warnings = import_catalog(root / CATALOG_FILE)
    warnings = [f"catalog: {w}" for w in warnings]
    tasks: list[RecommendationTask] = []
    for file in sorted((root / TASKS_DIR).glob("*.json")):
        task, notes = convert_task(read_json(file), source=file)
        if task.id != file.stem:
            notes.append(f"its id differs from the file name {file.name!r}")
        warnings.extend(f"{task.id}: {n}" for n in notes)
        tasks.append(task)
    if not tasks:
        raise DataError("holds no task files; expected tasks/*.json", source=root / TASKS_DIR)
    check_unique_ids(tasks, source=root / TASKS_DIR)
    tasks.sort(key=lambda t: t.id)
    catalog = Catalog.from_items(items, meta)
    if audit:
        warnings.extend(defect_summary(tasks, catalog))
    return Release(root=root, catalog=catalog, tasks=tasks, warnings=warnings)


def defect_summary(tasks: list[RecommendationTask], catalog: Catalog) -> list[str]:
    """One line per problem code found: how many tasks have it, and which."""
    vocab = Vocabulary(catalog)
    by_code: dict[str, list[str]] = {}
    for task in tasks:
        report = check_task(task, catalog, strict=False, vocab=vocab)
        for code in dict.fromkeys(p.code for p in report.warnings):
            by_code.setdefault(code, []).append(task.id)
    lines = []
    for code in PROBLEM_CODES:
        ids = by_code.get(code)
        if ids:
            shown = ", ".join(ids[:_SHOW]) + (", ..." if len(ids) > _SHOW else "")
            n = f"{len(ids)} task{'s' if len(ids) > 1 else ''}"
            lines.append(f"release defect [{code}] in {n} ({shown}): {PROBLEM_CODES[code]}")
    return lines
