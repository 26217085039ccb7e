"""A stream suite's pool: the items and personas its streams show, stored once.

A stream task holds every item it shows and every persona it names, so that a task
alone is enough to play and score it; but the streams of one suite show the same few
hundred items over and over. A stream suite folder may therefore hold `pool.json`
beside `suite.json`:

    {"format_version": 1, "items": [...], "personas": [...]}

and a task file may leave out `items`, `personas` or both. The loader rebuilds them
from the pool: the items the task's episodes show, sorted by id, and the personas they
name, in pool order (by id). That is the order the generator gives them, so the rebuilt
task is the task that was written, its sha256 included. When writing, a task keeps its
items (or personas) in full when that rebuild would give anything else (another order,
another version of an item): the pool never changes a task. A folder without pool.json
loads as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from taurec.catalog.choice_items import ChoiceItem
from taurec.catalog.errors import DataError, from_validation_error
from taurec.catalog.personas import Persona
from taurec.tasks.kinds import CompleteDoc, SuiteData
from taurec.tasks.task_files import read_json

POOL_FILE: Final = "pool.json"
#: The task fields a pool can stand in for.
POOLED: Final = ("items", "personas")


class StreamPool(BaseModel):
    """The contents of pool.json: items and personas, each sorted by id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = Field(default=1, description="Pool format version; 1.")
    items: list[ChoiceItem] = Field(default_factory=list)
    personas: list[Persona] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> StreamPool:
        for name, ids in (("items", [i.id for i in self.items]), ("personas", self.persona_ids)):
            if len(set(ids)) != len(ids):
                raise ValueError(f"{name} with distinct ids")
        return self

    @property
    def persona_ids(self) -> list[str]:
        return [p.id for p in self.personas]

    def rebuild(
        self, shown: Iterable[str], named: Iterable[str]
    ) -> tuple[list[ChoiceItem] | str, list[Persona] | str]:
        """A task's items and personas from the ids its episodes show and name; in place
        of either, the first id the pool lacks."""
        items = {i.id: i for i in self.items}
        wanted = sorted(set(shown))
        missing = next((i for i in wanted if i not in items), None)
        named = set(named)
        lacking = sorted(named - set(self.persona_ids))
        return (
            missing if missing is not None else [items[i] for i in wanted],
            lacking[0] if lacking else [p for p in self.personas if p.id in named],
        )


class _Episode(Protocol):
    @property
    def persona_id(self) -> str: ...
    @property
    def item_ids(self) -> list[str]: ...


class PooledTask(Protocol):
    """What the pool reads of a stream task."""

    @property
    def items(self) -> list[ChoiceItem]: ...
    @property
    def personas(self) -> list[Persona]: ...
    @property
    def episodes(self) -> Sequence[_Episode]: ...


def read_pool(folder: Path) -> StreamPool | None:
    """The folder's pool.json, or None when it has none."""
    path = folder / POOL_FILE
    if not path.is_file():
        return None
    doc = read_json(path)
    try:
        return StreamPool.model_validate(doc)
    except ValidationError as exc:
        raise from_validation_error(exc, source=path, record="pool") from None


def _ids(episodes: Any, key: str) -> list[str]:
    """The ids under `key` of a task document's episodes (malformed parts skipped: the
    task's own validation reports them)."""
    out: list[str] = []
    for ep in episodes if isinstance(episodes, list) else []:
        value = ep.get(key) if isinstance(ep, dict) else None
        values = value if isinstance(value, list) else [value]
        out += [v for v in values if isinstance(v, str)]
    return out


def pool_reader(folder: Path) -> CompleteDoc:
    """The function that fills a task document's missing items and personas from the
    folder's pool (the identity without pool.json)."""
    pool = read_pool(folder)
    if pool is None:
        return lambda doc: doc

    def complete(doc: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(doc, dict) or all(f in doc for f in POOLED):
            return doc
        episodes = doc.get("episodes")
        items, personas = pool.rebuild(_ids(episodes, "item_ids"), _ids(episodes, "persona_id"))
        out = dict(doc)
        for name, value, what in (("items", items, "item"), ("personas", personas, "persona")):
            if name in doc:
                continue
            if isinstance(value, str):
                raise DataError(
                    f"is left out, and the episodes name {what} {value!r}, which {POOL_FILE} "
                    f"lacks; expected the task's {name} in its file or every one in the pool",
                    field=name,
                )
            out[name] = value
        return out

    return complete


def _json(models: Sequence[BaseModel]) -> bytes:
    return orjson.dumps([m.model_dump(mode="json") for m in models])


def write_pool(folder: Path, tasks: Sequence[PooledTask]) -> list[set[str]]:
    """Write pool.json for `tasks` (the first version of each id) and return, per task,
    the fields the pool rebuilds exactly (they can be left out of its file)."""
    items: dict[str, ChoiceItem] = {}
    personas: dict[str, Persona] = {}
    for task in tasks:
        for item in task.items:
            items.setdefault(item.id, item)
        for persona in task.personas:
            personas.setdefault(persona.id, persona)
    pool = StreamPool(
        items=sorted(items.values(), key=lambda i: i.id),
        personas=sorted(personas.values(), key=lambda p: p.id),
    )
    option = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    (folder / POOL_FILE).write_bytes(orjson.dumps(pool.model_dump(mode="json"), option=option))
    out = []
    for task in tasks:
        shown = (i for e in task.episodes for i in e.item_ids)
        items_again, personas_again = pool.rebuild(shown, (e.persona_id for e in task.episodes))
        left_out: set[str] = set()
        if not isinstance(items_again, str) and _json(items_again) == _json(task.items):
            left_out.add("items")
        if not isinstance(personas_again, str) and _json(personas_again) == _json(task.personas):
            left_out.add("personas")
        out.append(left_out)
    return out


#: How stream suite folders keep their pool (registered with the stream task kind).
STREAM_POOL: Final = SuiteData(reader=pool_reader, write=write_pool)
