"""Streams over MCP: one session per stream, feedback after each recommendation, one log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from mcp import Client
from mcp.server import MCPServer
from support.results import error_text, ok

from taurec.evaluator.logs import Resolver, score_file, score_log
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.stream.protocol import FeedbackMode, StreamProtocol, StreamRules
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = "stream:builtin"


def server(tmp_path: Path, protocol: StreamProtocol | None = None) -> MCPServer:
    return build_server(
        ServerSettings(
            suite=SUITE,
            log_dir=tmp_path,
            run_label="test",
            stream_protocol=protocol or StreamProtocol(),
        )
    )


def first_task() -> Any:
    return next(t for t in load_suite(SUITE).tasks if t.feedback.value == "regret")


async def start(client: Client, task_id: str) -> dict[str, Any]:
    return ok(await client.call_tool("start_stream", {"task_id": task_id}))


async def play_best(client: Client, stream: str, task: Any, upto: int | None = None) -> None:
    for n, ep in enumerate(task.episodes[:upto]):
        ok(
            await client.call_tool(
                "recommend_item", {"episode_id": stream, "item_id": ep.ranked()[0]}
            )
        )
        if n < len(task.episodes) - 1:
            ok(await client.call_tool("next_episode", {"episode_id": stream}))


async def test_start_stream_shows_the_first_choice_set_and_no_utilities(tmp_path: Path) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        started = await start(client, task.id)
    assert [i["id"] for i in started["current"]["items"]] == task.episodes[0].item_ids
    assert started["max_turns"] == task.budget
    assert "utilit" not in orjson.dumps(started).decode()


async def test_a_recommendation_returns_the_regret_feedback(tmp_path: Path) -> None:
    task = first_task()
    spec = task.episodes[0]
    worst = spec.ranked()[-1]
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        result = ok(
            await client.call_tool("recommend_item", {"episode_id": stream, "item_id": worst})
        )
    regret = spec.best - spec.utilities[worst]
    assert result["feedback"] == (
        f"Recommendation feedback: Chosen score: {spec.utilities[worst]:.1f}, "
        f"Best possible: {spec.best:.1f}, Regret: {regret:.1f}"
    )


async def test_under_taurecs_rules_an_item_outside_the_set_is_a_clear_error(
    tmp_path: Path,
) -> None:
    task = first_task()
    outsider = next(i.id for i in task.items if i.id not in task.episodes[0].utilities)
    async with Client(server(tmp_path, StreamProtocol(rules=StreamRules.TAUREC))) as client:
        stream = (await start(client, task.id))["episode_id"]
        result = await client.call_tool(
            "recommend_item", {"episode_id": stream, "item_id": outsider}
        )
    assert f"item '{outsider}' is not in episode 1's choice set" in error_text(result)


async def test_under_biels_rules_an_item_outside_the_set_costs_a_question_and_replays(
    tmp_path: Path,
) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        result = ok(
            await client.call_tool("recommend_item", {"episode_id": stream, "item_id": "nope"})
        )
        await play_best(client, stream, task)
    assert result["counted_as_question"] and result["questions_left"] == task.budget - 1
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.header is not None
    assert log.header.simulator.settings["protocol"] == {
        "feedback": "task",
        "rules": "biel",
        "shuffle_order": False,
        "customer_knows": "tastes",
        "labelled_control": False,
    }
    score = score_log(log, Resolver(suite=SUITE))
    assert score.replay_mismatches == 0 and score.problems == []
    assert score.metrics["questions@1"] == 1.0 and score.metrics["regret@1"] == 0.0


async def test_a_control_run_logs_its_protocol_and_scores_under_its_own_label(
    tmp_path: Path,
) -> None:
    task = first_task()
    protocol = StreamProtocol(feedback=FeedbackMode.SHUFFLED, shuffle_order=True)
    async with Client(server(tmp_path, protocol)) as client:
        started = await start(client, task.id)
        stream = started["episode_id"]
        heard = []
        for n in range(len(task.episodes)):
            view = ok(await client.call_tool("current_episode", {"episode_id": stream}))
            item = view["items"][0]["id"]
            ok(
                await client.call_tool(
                    "interim_recommendation",
                    {"episode_id": stream, "item_id": item, "confidence": {"favorite": 0.2}},
                )
            )
            result = ok(
                await client.call_tool(
                    "recommend_item",
                    {"episode_id": stream, "item_id": item, "confidence": {"top5": 0.5}},
                )
            )
            heard.append(result["feedback"])
            if n < len(task.episodes) - 1:
                ok(await client.call_tool("next_episode", {"episode_id": stream}))
    (path,) = tmp_path.rglob("*.jsonl")
    score = score_log(read_log(path), Resolver(suite=SUITE))
    assert score.replay_mismatches == 0 and score.problems == []
    assert score.label.endswith(" (shuffled order, feedback shuffled)")
    assert score.metrics["feedback:shuffled"] == 1.0
    assert all(f"interim@{k}@0" in score.metrics for k in range(1, 11))
    assert score.metrics["conf@1.1:favorite"] == 0.2 and score.metrics["conf@1.2:top5"] == 0.5
    assert all(text and text.startswith("Recommendation feedback:") for text in heard)


async def test_questions_are_answered_within_the_budget(tmp_path: Path) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        answer = ok(
            await client.call_tool(
                "ask_question", {"episode_id": stream, "question": "What do you like?"}
            )
        )
    assert answer["questions_left"] == task.budget - 1
    assert answer["answer"]


async def test_the_last_recommendation_ends_the_stream_and_its_log(tmp_path: Path) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        await play_best(client, stream, task)
        after = await client.call_tool("next_episode", {"episode_id": stream})
    assert "has ended (recommended)" in error_text(after)
    (path,) = tmp_path.rglob("*.jsonl")
    log = read_log(path)
    assert log.header is not None and log.header.kind == "stream"
    assert log.events[-1]["type"] == "end" and log.events[-1]["reason"] == "recommended"


async def test_a_stream_log_verifies_and_replays_to_regret_0(tmp_path: Path) -> None:
    from taurec.tasks.trajectory.signing import load_log_key

    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        await client.call_tool("ask_question", {"episode_id": stream, "question": "Long or short?"})
        await play_best(client, stream, task)
    (path,) = tmp_path.rglob("*.jsonl")
    score = score_file(path, Resolver(suite=SUITE, verify_key=load_log_key(create=False)))
    assert score.verification is None
    assert score.problems == []
    assert score.replay_mismatches == 0
    assert [score.metrics[f"regret@{k}"] for k in range(1, 11)] == [0.0] * 10
    assert score.metrics["questions@1"] == 1.0


async def test_an_edited_feedback_fails_the_replay_and_the_verification(tmp_path: Path) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        await play_best(client, stream, task)
    (path,) = tmp_path.rglob("*.jsonl")
    text = path.read_text()
    edited = text.replace("Chosen score: ", "Chosen score: 1", 1)
    path.write_text(edited)
    score = score_log(read_log(path), Resolver(suite=SUITE))
    assert score.replay_mismatches == 1
    assert score_file(path, Resolver(suite=SUITE)).verification is not None


async def test_a_stream_stopped_mid_way_scores_the_missing_episodes_as_regret_best(
    tmp_path: Path,
) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        await play_best(client, stream, task, upto=3)
        ok(await client.call_tool("abort_episode", {"episode_id": stream, "reason": "agent_error"}))
    (path,) = tmp_path.rglob("*.jsonl")
    score = score_log(read_log(path), Resolver(suite=SUITE))
    assert score.end_reason == "agent_error"
    assert score.metrics["regret@3"] == 0.0
    assert score.metrics["regret@4"] == task.episodes[3].best


async def test_a_log_without_a_recorded_protocol_replays_its_choices_not_its_words(
    tmp_path: Path,
) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        await play_best(client, stream, task)
    (path,) = tmp_path.rglob("*.jsonl")
    lines = path.read_text().splitlines()
    header = orjson.loads(lines[0])
    del header["simulator"]["settings"]["protocol"]  # as logs written before it was recorded
    edited = [orjson.dumps(header).decode(), *lines[1:]]
    path.write_text("\n".join(edited).replace("Chosen score: ", "Chosen score: 1", 1) + "\n")
    score = score_log(read_log(path), Resolver(suite=SUITE))
    assert score.replay_mismatches == 0
    assert [score.metrics[f"regret@{k}"] for k in range(1, 11)] == [0.0] * 10


def test_a_simulator_of_another_kind_is_refused_for_a_stream_suite(tmp_path: Path) -> None:
    import pytest

    from taurec.catalog.errors import DataError

    settings = ServerSettings(suite=SUITE, log_dir=tmp_path, simulator="abus")
    with pytest.raises(DataError, match="simulator 'abus' does not apply to stream suites"):
        build_server(settings)


async def test_a_stream_stopped_after_a_recommendation_counts_no_questions_after_it(
    tmp_path: Path,
) -> None:
    task = first_task()
    async with Client(server(tmp_path)) as client:
        stream = (await start(client, task.id))["episode_id"]
        for question in ("Long or short?", "Old or new?"):
            ok(await client.call_tool("ask_question", {"episode_id": stream, "question": question}))
        item = task.episodes[0].item_ids[0]
        ok(await client.call_tool("recommend_item", {"episode_id": stream, "item_id": item}))
        ok(await client.call_tool("abort_episode", {"episode_id": stream, "reason": "agent_error"}))
    (path,) = tmp_path.rglob("*.jsonl")
    score = score_log(read_log(path), Resolver(suite=SUITE))
    assert (score.metrics["questions@1"], score.metrics["questions@2"]) == (2.0, 0.0)
