"""A text-only CRS as a contestant: the iEvaLM protocol, the reference CRS, full episodes
through `taurec run`, scored by `evaluator score`."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import orjson
import pytest
from support.crs_arena import ArenaStandIn
from support.hang_guard import HANG_GUARD_S
from support.http_server import free_port
from support.loopback import serve_app
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.agents.contestants import bounded_http, crs
from taurec.clients.agents.contestants.crs import CrsError, health_check, response_text
from taurec.clients.agents.contestants.crs_demo import ASK, DemoCrs, crs_app
from taurec.clients.cli.main import app
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = load_suite("builtin")
runner = CliRunner()


@pytest.fixture(scope="module")
def crs_url() -> Iterator[str]:
    with serve_app(crs_app(DemoCrs(SUITE.catalog))) as url:
        yield url


def test_the_reference_crs_answers_the_health_check(crs_url: str) -> None:
    response = httpx.get(f"{crs_url}/receive_message", timeout=HANG_GUARD_S)
    assert response.status_code == 200 and response.text == "Model is running."


def test_the_reference_crs_replies_in_the_response_field(crs_url: str) -> None:
    body = {"context": [], "message": "Hello"}
    response = httpx.post(f"{crs_url}/receive_message", json=body, timeout=HANG_GUARD_S)
    assert response.json() == {"response": ASK}


def test_the_reference_crs_refuses_a_request_without_context(crs_url: str) -> None:
    response = httpx.post(
        f"{crs_url}/receive_message", json={"message": "Hi"}, timeout=HANG_GUARD_S
    )
    assert response.status_code == 400


def test_the_reference_crs_pitches_a_title_that_meets_the_stated_genre() -> None:
    crs = DemoCrs(SUITE.catalog)
    reply = crs.reply([], "I want a Western.")
    (mention,) = crs.matcher.find(reply)
    item = SUITE.catalog.get(mention.item_ids[0])
    assert item is not None and "Western" in item.genres


def test_the_reference_crs_does_not_pitch_a_title_twice() -> None:
    crs = DemoCrs(SUITE.catalog)
    first = crs.reply([], "I want a Western.")
    second = crs.reply(["I want a Western.", first], "No, not that one.")
    assert crs.matcher.find(first) != crs.matcher.find(second)


def test_a_reply_is_read_from_the_response_field_not_the_raw_text() -> None:
    reply = httpx.Response(200, json={"response": "Try Heat."})
    assert response_text(reply) == "Try Heat."


def test_a_reply_without_a_response_field_is_an_error() -> None:
    with pytest.raises(CrsError, match='"response"'):
        response_text(httpx.Response(200, json={"text": "Try Heat."}))


def test_an_unreachable_crs_fails_the_health_check() -> None:
    with pytest.raises(CrsError, match="no CRS answers"):
        health_check(f"http://127.0.0.1:{free_port()}")


def test_run_with_an_unreachable_crs_exits_2_with_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = runner.invoke(
        app, ["run", "--agent", "crs", "--crs-url", url, "--out", str(tmp_path / "logs")]
    )
    assert result.exit_code == 2
    assert "no CRS answers at" in result.output
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").rglob("*.jsonl"))


def test_run_with_agent_crs_needs_a_url(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--agent", "crs", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--crs-url" in result.output


def test_a_crs_url_for_another_agent_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--crs-url", "http://x", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "does not apply to --agent scripted" in result.output


def test_crs_episodes_run_to_the_end_and_are_scored_by_pass_k(crs_url: str, tmp_path: Path) -> None:
    out = tmp_path / "logs"
    args = ["run", "--agent", "crs", "--crs-url", crs_url, "--tasks", "t001,t002,t003"]
    result = runner.invoke(app, [*args, "--trials", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output  # failed episodes are scores, not errors
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 6
    ends = [read_log(p).events[-1] for p in logs]
    assert all(e["type"] == "end" for e in ends)
    assert {e["reason"] for e in ends} <= {"recommended", "user_left", "max_turns"}
    (group,) = score_groups(out)
    assert group["label"] == "crs" and group["n_episodes"] == 6 and "2" in group["pass_k"]


def test_an_accepted_title_is_the_commitment(crs_url: str, tmp_path: Path) -> None:
    out = tmp_path / "logs"
    result = runner.invoke(
        app,
        ["run", "--agent", "crs", "--crs-url", crs_url, "--tasks", "t001", "--trials", "1",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (log,) = out.rglob("*.jsonl")
    events = [orjson.loads(line) for line in log.read_bytes().splitlines()]  # raw: with `accepted`
    accepted = [e["accepted"] for e in events if e["type"] == "user_message" and e.get("accepted")]
    commits = [e for e in events if e["type"] == "tool_call" and e["name"] == "recommend"]
    assert accepted and commits[0]["arguments"]["item_id"] == accepted[0]
    assert events[-1]["reason"] == "recommended"


def test_the_crs_demo_command_serves_on_the_given_port() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "taurec.clients.cli.main", "crs-demo", "--port", str(port)],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + HANG_GUARD_S  # until it listens (only a hang fails)
        while True:
            try:
                health_check(f"http://127.0.0.1:{port}")
                break
            except CrsError:
                if proc.poll() is not None:
                    pytest.fail((proc.stderr.read() if proc.stderr else b"").decode())
                if time.monotonic() > deadline:
                    pytest.fail("taurec crs-demo did not start")
                time.sleep(0.1)
        body = {"context": [], "message": "I want a comedy."}
        reply = httpx.post(
            f"http://127.0.0.1:{port}/receive_message", json=body, timeout=HANG_GUARD_S
        )
        assert reply.json()["response"].startswith("How about")
    finally:
        proc.terminate()
        proc.wait(timeout=HANG_GUARD_S)


def _dribbling_crs(request: httpx.Request) -> httpx.Response:
    async def body():  # a byte now and then, forever: each read is quick, the answer never ends
        yield b'{"response": "'
        while True:
            await anyio.sleep(0.01)
            yield b"a"

    return httpx.Response(200, content=body())


async def test_a_crs_that_never_finishes_its_answer_is_cut_off(monkeypatch) -> None:
    monkeypatch.setattr(bounded_http, "CRS_REPLY_TIMEOUT", 0.3)
    async with httpx.AsyncClient(transport=httpx.MockTransport(_dribbling_crs)) as http:
        with anyio.fail_after(HANG_GUARD_S), pytest.raises(CrsError, match=r"within 0\.3 s"):
            await crs.ask(http, "http://crs.test/receive_message", [], "Hi")


async def test_a_crs_answer_larger_than_the_limit_is_an_error() -> None:
    huge = b'{"response": "' + b"a" * (bounded_http.MAX_REPLY_BYTES + 1) + b'"}'
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=huge))
    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(CrsError, match="more than"):
            await crs.ask(http, "http://crs.test/receive_message", [], "Hi")


async def test_a_crs_answer_within_the_limit_is_its_response_field() -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"response": "Heat?"}))
    async with httpx.AsyncClient(transport=transport) as http:
        assert await crs.ask(http, "http://crs.test/receive_message", [], "Hi") == "Heat?"


async def _endless(scope, receive, send) -> None:  # an ASGI app: 200, then a body forever
    async def dribble() -> None:
        while True:
            await send({"type": "http.response.body", "body": b"x", "more_body": True})
            await anyio.sleep(0.01)

    await send({"type": "http.response.start", "status": 200, "headers": []})
    async with anyio.create_task_group() as tg:
        tg.start_soon(dribble)
        while (await receive())["type"] != "http.disconnect":
            pass  # until the client hangs up
        tg.cancel_scope.cancel()


def test_a_health_check_reads_the_status_not_an_endless_body() -> None:
    with serve_app(_endless) as url:
        health_check(url)  # returns: nothing past the status line is read


# --- a CRS Arena model server as it is (tests/support/crs_arena.py) ----------------------


@pytest.fixture
def arena() -> Iterator[tuple[ArenaStandIn, str]]:
    stand_in = ArenaStandIn(SUITE.catalog)
    with serve_app(stand_in.app()) as url:
        yield stand_in, url + "/"


def test_the_crs_url_is_called_as_given_so_a_server_at_its_root_passes_the_health_check(
    arena: tuple[ArenaStandIn, str],
) -> None:
    _, url = arena
    health_check(url)  # GET / answers "Model is running."


def test_a_health_check_on_a_route_the_server_lacks_names_the_url_and_the_status(
    arena: tuple[ArenaStandIn, str],
) -> None:
    _, url = arena
    with pytest.raises(CrsError) as caught:
        health_check(url + "receive_message")
    message = str(caught.value)
    assert "\n" not in message
    assert f"{url}receive_message" in message and "HTTP 404" in message


async def test_a_request_the_server_refuses_is_an_error_naming_the_status(
    arena: tuple[ArenaStandIn, str],
) -> None:
    _, url = arena
    async with httpx.AsyncClient(timeout=HANG_GUARD_S) as http:
        refused = await http.post(url, json={"message": "Hi"})  # no context: 400, as documented
        assert refused.status_code == 400
        with pytest.raises(CrsError, match="HTTP 400"):
            response_text(refused)


def test_each_episode_keeps_its_own_session_cookie(
    arena: tuple[ArenaStandIn, str], tmp_path: Path
) -> None:
    stand_in, url = arena
    out = tmp_path / "logs"
    result = runner.invoke(
        app,
        ["run", "--agent", "crs", "--crs-url", url, "--tasks", "t001,t002,t003", "--trials",
         "2", "--concurrency", "3", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    replies = sorted(
        sum(1 for e in read_log(p).events if e["type"] == "agent_message")
        for p in out.rglob("*.jsonl")
    )
    # one session per episode, each holding exactly that episode's exchange
    assert len(stand_in.sessions) == 6
    assert sorted(len(h) // 2 for h in stand_in.sessions.values()) == replies
