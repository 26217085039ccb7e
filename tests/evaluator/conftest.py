"""A three-task suite on disk, a writer of hand-made episode logs in trajectory v1, and
the real logs of a small sealed run (`pristine`, copied for each test as `signed_logs`)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import SuiteManifest, load_suite, write_suite_dir


def _item(id_: str, genres: list[str], **kw: Any) -> Item:
    base: dict[str, Any] = dict(
        title=f"Film {id_.upper()}",
        release_date=date(2018, 3, 1),
        runtime=95,
        rating=7.0,
        vote_count=100,
        streaming_services=["Netflix"],
        content_rating="PG-13",
    )
    base.update(kw)
    return Item(id=id_, genres=genres, **base)


ITEMS = [
    _item("c1", ["Comedy"]),
    _item("c2", ["Comedy"]),
    _item("d1", ["Drama"]),
    _item("d2", ["Drama"]),
    _item("h1", ["Horror"], runtime=150),
]


def _task(id_: str, genre: str, **kw: Any) -> RecommendationTask:
    return RecommendationTask.model_validate(
        {
            "id": id_,
            "persona": f"You are a fan of {genre}.",
            "constraints": [
                {"field": "genres", "op": "contains", "value": genre, "reveal": "volunteer"}
            ],
            "policy_flags": ["recommend_tool"],
            "user": {"services": ["Netflix"]},
            **kw,
        }
    )


TASKS = [_task("ta", "Comedy"), _task("tb", "Drama"), _task("tc", "Comedy")]


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    write_catalog_file(folder / "catalog.json", CatalogMeta(name="tiny"), ITEMS)
    manifest = SuiteManifest(format_version=1, id="tiny", catalog="catalog.json", description="")
    return write_suite_dir(folder, manifest, TASKS)


class LogWriter:
    """Writes episodes that pass (commit a matching item) or fail (commit a wrong one)."""

    def __init__(self, suite_dir: Path, out: Path) -> None:
        self.suite = load_suite(str(suite_dir))
        self.spec = str(suite_dir)
        self.out = out
        self.catalog_sha = Catalog.from_items(ITEMS).sha256()

    def header(self, task_id: str, trial: int, label: str) -> dict[str, Any]:
        task = self.suite.get(task_id)
        assert task is not None
        return {
            "type": "header",
            "format": "taurec-trajectory",
            "format_version": 1,
            "run_id": "run1",
            "episode_id": f"{label}-{task_id}-{trial}",
            "agent": {"label": label},
            "task_id": task_id,
            "task_sha256": task.sha256(),
            "suite": {"id": self.suite.id, "spec": self.spec},
            "catalog_sha256": self.catalog_sha,
            "trial": trial,
            "seed": trial,
            "simulator": {"kind": "rule"},
            "server_version": "test",
            "started_at": "2026-01-01T00:00:00Z",
        }

    def episode(
        self,
        task_id: str,
        trial: int,
        *,
        item: str | None,
        label: str = "agentA",
        calls: Sequence[tuple[str, dict[str, Any], Any, bool]] = (),
    ) -> Path:
        """An episode: greeting, optional (name, arguments, content, is_error) tool calls,
        then a recommend call committing `item`."""
        extra: list[dict[str, Any]] = []
        for n, (name, arguments, content, is_error) in enumerate(calls):
            extra.append(
                {"type": "tool_call", "call_id": f"x{n}", "name": name, "arguments": arguments}
            )
            extra.append(
                {
                    "type": "tool_result",
                    "call_id": f"x{n}",
                    "content": content,
                    "is_error": is_error,
                }
            )
        events: list[dict[str, Any]] = [
            {"type": "user_message", "seq": 1, "t": 0.0, "text": "Hi"},
            {
                "type": "agent_message",
                "seq": 2,
                "t": 0.1,
                "text": "What do you like?",
                "latency_ms": 3.0,
            },
            {
                "type": "tool_call",
                "seq": 3,
                "t": 0.2,
                "call_id": "c1",
                "name": "recommend",
                "arguments": {"item_id": item},
            },
            {
                "type": "tool_result",
                "seq": 4,
                "t": 0.3,
                "call_id": "c1",
                "content": {"committed": item},
            },
            {
                "type": "end",
                "seq": 5,
                "t": 0.3,
                "reason": "recommended" if item else "abstained",
                "item_id": item,
            },
        ]
        events = events[:2] + extra + events[2:]
        for seq, ev in enumerate(events, 1):
            ev["seq"] = seq
            ev.setdefault("t", float(seq))
        path = self.out / label / f"{task_id}-{trial}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [self.header(task_id, trial, label), *events]
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
        return path

    def run(self, successes: dict[str, int], trials: int, label: str = "agentA") -> None:
        """For each task, the first `successes[task]` trials pass and the rest fail."""
        right = {"ta": "c1", "tb": "d1", "tc": "c2"}
        for task_id, c in successes.items():
            for trial in range(trials):
                self.episode(
                    task_id, trial, item=right[task_id] if trial < c else "h1", label=label
                )


@pytest.fixture
def logs(suite_dir: Path, tmp_path: Path) -> LogWriter:
    return LogWriter(suite_dir, tmp_path / "logs")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed run of the scripted agent on t001-t003 of the built-in suite, one trial
    each: real logs, chained and signed by the server with the test session's key."""
    from taurec.clients.agents.recommendation.scripted import ScriptedAgent
    from taurec.clients.runner import run_agent

    out = tmp_path_factory.mktemp("signed")
    run_agent(ScriptedAgent(), tasks=["t001", "t002", "t003"], trials=1, out=out)
    return out


@pytest.fixture
def signed_logs(pristine: Path, tmp_path: Path) -> list[Path]:
    """A private copy of `pristine`'s three logs, sorted by task."""
    from taurec.evaluator.logs import find_logs

    shutil.copytree(pristine, tmp_path / "logs")
    return find_logs([tmp_path / "logs"])
