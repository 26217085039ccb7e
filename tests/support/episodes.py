"""Hand-written episodes over a five-item catalog, shared by the policy and evaluator tests."""

from __future__ import annotations

from datetime import date
from typing import Any

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.policies.checks import CheckContext
from taurec.policies.transcript import build_transcript
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import Header, Trajectory
from taurec.tasks.trajectory.records import EVENT_RECORD


def make_item(id_: str, title: str, **kw: Any) -> Item:
    """A valid item: a 2019 PG-13 comedy of 100 minutes on Netflix, unless `kw` says otherwise."""
    base: dict[str, Any] = dict(
        release_date=date(2019, 5, 1),
        runtime=100,
        genres=["Comedy"],
        rating=7.0,
        vote_count=500,
        streaming_services=["Netflix"],
        content_rating="PG-13",
    )
    base.update(kw)
    return Item(id=id_, title=title, **base)


ITEMS = [
    make_item("m1", "Paper Lanterns"),
    make_item("m2", "The Quiet Orchard", streaming_services=["Hulu"]),
    make_item("m3", "Neon Alibi", content_rating="R", genres=["Comedy", "Crime"]),
    make_item("m4", "Saltwater Kings", sponsored=True),
    make_item("m5", "Gravel Road", genres=["Drama"], streaming_services=["Prime Video"]),
]


def make_task(**kw: Any) -> RecommendationTask:
    base: dict[str, Any] = dict(
        id="t1",
        persona="You are Ana.",
        constraints=[
            {"field": "genres", "op": "contains", "value": "Comedy", "reveal": "volunteer"}
        ],
        policy_flags=["recommend_tool"],
        user={
            "user_id": "u1",
            "services": ["Netflix", "Amazon Prime Video"],
            "watch_history": [{"item_id": "m1", "rating": 8}],
        },
    )
    base.update(kw)
    return RecommendationTask.model_validate(base)


class Episode:
    """Builds a trajectory step by step: ep.say(...).call(...).end(...)."""

    def __init__(self, episode_id: str = "ep1") -> None:
        self.episode_id = episode_id
        self.events: list[dict[str, Any]] = []
        self._calls = 0

    def _add(self, **ev: Any) -> Episode:
        self.events.append({"seq": len(self.events) + 1, "t": float(len(self.events)), **ev})
        return self

    def user(self, text: str, acts: list[dict[str, Any]] | None = None) -> Episode:
        """A user message; `acts` as the simulator logs them (intent, items, ...)."""
        if acts is None:
            return self._add(type="user_message", text=text)
        full = [{"slot": None, "value": None, "items": [], **a} for a in acts]
        return self._add(type="user_message", text=text, acts=full, acts_by="rule")

    def say(self, text: str, delivered: bool = True) -> Episode:
        return self._add(type="agent_message", text=text, delivered=delivered)

    def call(
        self,
        name: str,
        result: Any = None,
        is_error: bool = False,
        *,
        batch: str | None = None,
        refused: bool = False,
        **arguments: Any,
    ) -> Episode:
        """A call and its result; `batch` names the model response it came in, `refused`
        marks a call the server turned down (an error)."""
        self._calls += 1
        cid = f"c{self._calls}"
        call = {"batch": batch} if batch is not None else {}
        self._add(type="tool_call", call_id=cid, name=name, arguments=arguments, **call)
        done = {"refused": True, "is_error": True} if refused else {"is_error": is_error}
        return self._add(type="tool_result", call_id=cid, content=result or {}, **done)

    def recommend(
        self,
        item_id: Any,
        message: str | None = None,
        is_error: bool = False,
        *,
        batch: str | None = None,
        refused: bool = False,
        disclose: list[str] | None = None,
        shown: str | None = None,
    ) -> Episode:
        """A recommend call; `disclose` and the `shown` message as the server logs them."""
        args: dict[str, Any] = {"episode_id": self.episode_id, "item_id": item_id}
        if message is not None:
            args["message"] = message
        if disclose is not None:
            args["disclose"] = disclose
        result = None if shown is None else {"committed": item_id, "message_shown": shown}
        return self.call("recommend", result, is_error, batch=batch, refused=refused, **args)

    def end(
        self, reason: str = "recommended", item_id: str | None = None, task_id: str = "t1"
    ) -> Trajectory:
        self._add(type="end", reason=reason, item_id=item_id)
        header = Header.model_validate(
            {
                "run_id": "r",
                "episode_id": self.episode_id,
                "agent": {"label": "test"},
                "task_id": task_id,
                "task_sha256": "0" * 64,
                "suite": {"id": "test"},
                "catalog_sha256": "0" * 64,
                "trial": 0,
                "seed": 0,
                "simulator": {"kind": "rule"},
                "server_version": "test",
                "started_at": "2026-01-01T00:00:00Z",
            }
        )
        return Trajectory(
            header=header, events=[EVENT_RECORD.validate_python(e) for e in self.events]
        )


def context(task: RecommendationTask, trajectory: Trajectory, catalog: Catalog) -> CheckContext:
    return CheckContext(
        task, build_transcript(trajectory, catalog), catalog, TitleMatcher(catalog.items)
    )


def small_catalog() -> Catalog:
    return Catalog.from_items(ITEMS)
