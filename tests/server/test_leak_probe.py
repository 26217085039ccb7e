"""Leak test at the MCP surface: only the simulated user's own words may depend on what a
task keeps private.

For every built-in task, a probing agent (questions about every attribute, pitches of
titles that break each hidden and on_ask constraint, every tool with ordinary and odd
arguments, bad commits, then a wrong commit) runs twice with the same seed: once against
the real suite, once against a copy of it whose hidden and on_ask constraints are
deleted. Everything the agent receives apart from the user's words (tool results, error
texts, episode metadata) must be identical. A tool that consulted a private constraint,
or an error message that quoted one, would make the two runs differ.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from mcp import Client
from mcp.server import MCPServer

from taurec.server.app import build_server
from taurec.server.recommendation.simulator.leak_guard import LeakGuard
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.constraint import Constraint, Op, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import Suite, SuiteManifest, load_suite, write_suite_dir

SUITE = load_suite("builtin")
USER_WORDS = ("opening", "reply", "user_reaction")
QUESTIONS = [
    "What genre would you like?",
    "How long should it be?",
    "Any content rating limits, is it for kids?",
    "Do you care about reviews or ratings?",
    "Which streaming services do you have?",
    "Something recent, or an older film?",
    "Any director or actor you like?",
    "Any language preference?",
    "What have you watched lately?",
    "Anything else?",
]
ODD = ["", "x" * 3000, "🎬🍿" * 50, "'; DROP TABLE items; --\x00\x1b[31m", "null"]


def _public_copy(task: RecommendationTask) -> RecommendationTask:
    """The task with every hidden and on_ask constraint deleted."""
    kept = [c for c in task.constraints if c.reveal is Reveal.VOLUNTEER]
    if not kept:  # a task needs one constraint; this one holds for every item
        kept = [Constraint(field="vote_count", op=Op.GE, value=0, reveal=Reveal.VOLUNTEER)]
    return task.model_copy(
        update={"constraints": kept, "complexity": None, "reveal_difficulty": None}
    )


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> tuple[MCPServer, MCPServer]:
    """The real suite's server and the public copy's, shared by the module's tests (each
    test plays its own episodes; building a server loads its suite)."""
    folder = tmp_path_factory.mktemp("public-suite")
    manifest = SuiteManifest(format_version=1, id=SUITE.id, catalog="builtin", description="")
    write_suite_dir(folder, manifest, [_public_copy(t) for t in SUITE.tasks])
    logs = tmp_path_factory.mktemp("probe-logs")
    real, public = (
        # an endlessly patient user: when to leave is the user's own (private) choice
        build_server(
            ServerSettings(suite=spec, log_dir=logs / name, run_label="probe", patience=200)
        )
        for spec, name in (("builtin", "real"), (str(folder), "public"))
    )
    return real, public


def _breakers(suite: Suite, task: RecommendationTask) -> list[str]:
    """One catalog title breaking each private constraint (the titles a prober would pitch)."""
    out = []
    for c in task.constraints:
        if c.reveal is not Reveal.VOLUNTEER:
            hit = next((i for i in suite.catalog.items if not c.holds(i)), None)
            if hit is not None:
                out.append(hit.id)
    return out


def _calls(task: RecommendationTask, breakers: list[str]) -> list[tuple[str, dict[str, Any]]]:
    first = SUITE.catalog.items[0].id
    calls: list[tuple[str, dict[str, Any]]] = [("send_message", {"text": q}) for q in QUESTIONS]
    for item_id in breakers:
        title = SUITE.catalog.get(item_id).title  # type: ignore[union-attr]
        calls += [
            ("send_message", {"text": f"How about {title}?"}),
            ("get_item", {"item_id": item_id}),
            ("check_availability", {"item_id": item_id}),
            ("check_content_preference", {"item_id": item_id}),
        ]
    for genre in ("Comedy", "Horror", "Drama"):
        calls.append(("filter_catalog", {"genres_any": [genre], "runtime_max": 100, "limit": 5}))
        calls.append(("search_catalog", {"query": genre.lower(), "limit": 5}))
    for odd in ODD:
        calls += [
            ("search_catalog", {"query": odd}),
            ("get_item", {"item_id": odd}),
            ("check_availability", {"item_id": odd}),
            ("check_content_preference", {"content_rating": odd}),
            ("filter_catalog", {"genres_any": [odd], "director": odd}),
            ("recommend", {"item_id": odd}),
        ]
    calls += [
        ("filter_catalog", {"runtime_min": 200, "runtime_max": 10}),
        ("filter_catalog", {"limit": 10_000}),
        ("filter_catalog", {"cursor": "not-a-cursor"}),
        ("filter_catalog", {"colour": "blue"}),
        ("search_catalog", {"query": "film", "limit": -1}),
        ("check_content_preference", {}),
        ("get_user_history", {}),
        ("check_content_preference", {"content_rating": "NC-17"}),
        ("recommend", {"item_id": breakers[0] if breakers else first, "message": "Try this."}),
        ("get_item", {"item_id": first}),  # after the end: the ended-episode error
        ("send_message", {"text": "Hello?"}),
    ]
    return calls


def _generic(text: str, episode_id: str) -> str:
    """Episode ids differ between the two runs by design (random); errors may shorten them."""
    return text.replace(episode_id, "<episode>").replace(episode_id[:8], "<episode>")


def _visible(payload: Any, episode_id: str) -> str:
    """What the agent saw, minus the user's words, with the episode id made generic."""
    if isinstance(payload, dict):
        payload = {k: v for k, v in payload.items() if k not in USER_WORDS}
    return _generic(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode(), episode_id)


async def _probe(
    server: MCPServer,
    task: RecommendationTask,
    breakers: list[str],
    words: list[str] | None = None,
) -> list[str]:
    """Run the probe; returns what the agent saw apart from the user's words, which go
    to `words` when given."""
    seen: list[str] = []
    async with Client(server) as client:
        started = await client.call_tool("start_episode", {"task_id": task.id, "seed": 3})
        eid = (started.structured_content or {})["episode_id"]
        seen.append(_visible(started.structured_content, eid))
        for name, args in _calls(task, breakers):
            result = await client.call_tool(name, {"episode_id": eid, **args})
            if result.is_error:
                text = "".join(getattr(c, "text", "") for c in result.content)
                seen.append(f"{name} error: " + _generic(text, eid))
            else:
                seen.append(f"{name}: " + _visible(result.structured_content, eid))
                if words is not None:
                    payload = result.structured_content or {}
                    words += [str(payload[k]) for k in USER_WORDS if payload.get(k)]
        if words is not None:
            words.append(str((started.structured_content or {}).get("opening", "")))
    return seen


@pytest.mark.parametrize("task", SUITE.tasks, ids=[t.id for t in SUITE.tasks])
async def test_only_the_users_words_depend_on_private_constraints(
    task: RecommendationTask, servers: tuple[MCPServer, MCPServer]
) -> None:
    breakers = _breakers(SUITE, task)
    words: list[str] = []
    real = await _probe(servers[0], task, breakers, words)
    public = await _probe(servers[1], task, breakers)
    assert len(real) == len(public)
    for n, (a, b) in enumerate(zip(real, public, strict=True)):
        assert a == b, f"{task.id} step {n}: what the agent saw depends on a private constraint"
    assert any("error" in line for line in real)  # the odd inputs really produced errors
    # and the user's own words state no hidden value (pitched titles may be repeated)
    guard = LeakGuard(task)
    titles = tuple(SUITE.catalog.get(i).title for i in breakers)  # type: ignore[union-attr]
    leaks = [(w, leak.what) for w in words for leak in guard.find(w, ignore=titles)]
    assert len(words) > len(QUESTIONS) and leaks == [], f"{task.id}: {leaks[:3]}"
