"""The agenda user behind the real MCP server: a request answered through send_message
is logged as the agent's `answer`, the user then accepts, and the scores show it."""

from __future__ import annotations

from pathlib import Path

import orjson
from mcp import Client

from taurec.evaluator.logs import Resolver, score_files
from taurec.server.app import build_server
from taurec.server.recommendation.simulator.item_facts import answer_terms
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
TASK = next(t for t in SUITE.tasks if not t.no_valid_recommendation)
FITS = next(
    i
    for i in SUITE.catalog.items
    if i.id not in TASK.user.watched_ids and all(c.holds(i) for c in TASK.constraints)
)


async def test_answering_every_request_gets_the_title_accepted(tmp_path: Path) -> None:
    settings = ServerSettings(log_dir=tmp_path, run_label="agenda", simulator="agenda-requests")
    async with Client(build_server(settings)) as client:
        started = await client.call_tool("start_episode", {"task_id": TASK.id})
        eid = (started.structured_content or {})["episode_id"]
        text = f'How about "{FITS.title}"?'
        for _ in range(4):
            sent = await client.call_tool("send_message", {"episode_id": eid, "text": text})
            reply = (sent.structured_content or {})["reply"]
            slot = next((s for s in _SLOTS if s in reply), None)
            if slot is None:
                break
            text = f"{FITS.title}: {answer_terms(FITS, _SLOTS[slot])[0]}."
        await client.call_tool("recommend", {"episode_id": eid, "item_id": FITS.id})
    (score,) = score_files(sorted(tmp_path.rglob("*.jsonl")), Resolver(), workers=1)
    assert score.constraint_score == 1.0 and score.simulator == "agenda-requests"
    assert score.metrics["requests"] >= 1 and score.metrics["requests_unanswered"] == 0
    assert score.metrics["sr"] == 1.0 and score.simulator_faults == []
    (log,) = tmp_path.rglob("*.jsonl")
    records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    commit = next(r["seq"] for r in records if r.get("name") == "recommend")
    intents = [
        (r["type"], a["intent"])
        for r in records[1:]  # after the header
        if r["seq"] < commit
        for a in r.get("acts") or ()
    ]
    assert ("agent_message", "answer") in intents and intents[-1] == ("user_message", "accept")


_SLOTS = {
    "directed": "director",
    "How long": "runtime",
    "come out": "release_date",
    "Who is in": "cast",
    "How well": "rating",
    "age-wise": "content_rating",
    "stream": "streaming_services",
    "language": "original_language",
}
