"""Hostile contestant endpoints: a card or a reply that never ends, headers that never
come, an answer larger than the cap. Each stops the run (exit 2, one line) before it
starts, or ends the episode as agent_error, with a bounded read (bounded_http.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from google.protobuf.json_format import MessageToJson
from support.hang_guard import HANG_GUARD_S
from support.loopback import serve_factory
from typer.testing import CliRunner

from taurec.clients.agents.contestants import bounded_http
from taurec.clients.agents.contestants.a2a_demo import a2a_app, agent_card
from taurec.clients.agents.contestants.bounded_http import ResponseTooLarge, contestant_client
from taurec.clients.cli.main import app
from taurec.tasks.trajectory.reader import read_log

runner = CliRunner()
CHUNK = 64 * 1024
#: Kernel socket buffers hold a few MB between the server's writes and the client's
#: reads; an unbounded read would go far past this within the test.
SLACK_BYTES = 32 * 1024 * 1024


@dataclass
class Hostile:
    """What a hostile server saw: the bytes it managed to send, and the client hanging up."""

    url: str = ""
    sent: int = 0
    hung_up: threading.Event = field(default_factory=threading.Event)


Answer = Callable[[bytes, asyncio.StreamReader, asyncio.StreamWriter, Hostile], Awaitable[None]]


@contextmanager
def hostile_server(answer: Answer) -> Iterator[Hostile]:
    """A raw HTTP/1.1 server on 127.0.0.1 (its own event loop, in a thread) that hands
    each request's head to `answer`."""
    state = Hostile()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: one connection may carry several requests
                head = await reader.readuntil(b"\r\n\r\n")
                await answer(head, reader, writer, state)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            state.hung_up.set()
            writer.close()

    async def start() -> asyncio.Server:
        return await asyncio.start_server(handle, "127.0.0.1", 0)

    server = asyncio.run_coroutine_threadsafe(start(), loop).result(HANG_GUARD_S)
    state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        yield state
    finally:

        async def stop() -> None:
            server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(HANG_GUARD_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(HANG_GUARD_S)
        loop.close()


async def _send(writer: asyncio.StreamWriter, state: Hostile, data: bytes) -> None:
    writer.write(data)
    await writer.drain()
    state.sent += len(data)


async def endless_body(head: bytes, reader, writer, state: Hostile) -> None:
    """200, then a chunked body that never ends, as fast as the client reads."""
    await _send(writer, state, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (CHUNK, b"[" * CHUNK)
    while True:
        await _send(writer, state, chunk)


async def dribbled_headers(head: bytes, reader, writer, state: Hostile) -> None:
    """A status line, then a header line now and then, forever: each read is quick, the
    headers never end."""
    await _send(writer, state, b"HTTP/1.1 200 OK\r\n")
    while True:
        await asyncio.sleep(0.05)
        await _send(writer, state, b"X-Slow: a\r\n")


async def silence(head: bytes, reader, writer, state: Hostile) -> None:
    """Reads the request and never answers."""
    while await reader.read(CHUNK):
        pass
    raise ConnectionError


async def dribbled_body(head: bytes, reader, writer, state: Hostile) -> None:
    """200 and a body that comes a byte now and then, forever."""
    await _send(writer, state, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    while True:
        await asyncio.sleep(0.05)
        await _send(writer, state, b"1\r\n[\r\n")


async def _answer(writer, state: Hostile, body: bytes, content_type: bytes) -> None:
    await _send(
        writer,
        state,
        b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s"
        % (content_type, len(body), body),
    )


def well_behaved_until_a_message(then: Answer) -> Answer:
    """An A2A agent (or a CRS) that serves a valid card (or health check) to GET and
    answers each POST with `then`."""

    async def answer(head: bytes, reader, writer, state: Hostile) -> None:
        if head.startswith(b"GET "):
            card = MessageToJson(agent_card(state.url)).encode()
            await _answer(writer, state, card, b"application/json")
            return
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.lower().split(b"\r\n")
            if line.startswith(b"content-length:")
        )
        await reader.readexactly(length)
        await then(head, reader, writer, state)

    return answer


def _run(*args: str, out: Path):
    return runner.invoke(app, ["run", *args, "--tasks", "t001", "--trials", "1", "--out", str(out)])


def _one_line_exit_2(result, *phrases: str) -> None:
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())  # rich wraps the line at the terminal width
    for phrase in phrases:
        assert phrase in message, result.output


def _end(out: Path) -> dict:
    (log,) = out.rglob("*.jsonl")
    return read_log(log).events[-1]


# --- reading stops at the cap --------------------------------------------------------------


async def test_a_body_past_the_cap_is_not_read_further() -> None:
    produced = 0

    async def endless():
        nonlocal produced
        while True:
            produced += CHUNK
            yield b"x" * CHUNK

    inner = httpx.MockTransport(lambda request: httpx.Response(200, content=endless()))
    async with contestant_client(read_timeout=5, max_bytes=100_000, inner=inner) as http:
        with pytest.raises(ResponseTooLarge, match="larger than 100000 bytes"):
            await http.get("http://agent.test/.well-known/agent-card.json")
    assert produced <= 100_000 + CHUNK


async def test_a_compressed_answer_is_refused_so_the_cap_counts_what_is_held() -> None:
    def gzipped(request: httpx.Request) -> httpx.Response:
        assert request.headers["accept-encoding"] == "identity"
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=b"\x1f\x8b")

    async with contestant_client(
        read_timeout=5, max_bytes=100_000, inner=httpx.MockTransport(gzipped)
    ) as http:
        with pytest.raises(httpx.ReadError, match="'gzip'-encoded body"):
            await http.get("http://agent.test/")


# --- before the run starts: exit 2 -----------------------------------------------------------


def test_an_endless_agent_card_stops_the_run_with_exit_2_after_at_most_the_cap(
    tmp_path: Path,
) -> None:
    with hostile_server(endless_body) as hostile:
        result = _run("--agent", "a2a", "--a2a-url", hostile.url, out=tmp_path)
        assert hostile.hung_up.wait(HANG_GUARD_S)
    card_url = f"{hostile.url}/.well-known/agent-card.json"
    _one_line_exit_2(result, card_url, f"larger than {bounded_http.MAX_CARD_BYTES} bytes")
    assert hostile.sent <= bounded_http.MAX_CARD_BYTES + SLACK_BYTES


@pytest.mark.parametrize("answer", [silence, dribbled_headers, dribbled_body])
def test_an_agent_card_that_never_arrives_stops_the_run_within_the_startup_timeout(
    answer: Answer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded_http, "STARTUP_TIMEOUT", 0.5)
    with hostile_server(answer) as hostile:
        result = _run("--agent", "a2a", "--a2a-url", hostile.url, out=tmp_path)
    card_url = f"{hostile.url}/.well-known/agent-card.json"
    _one_line_exit_2(result, card_url, "did not arrive in time", "within 0.5 s")


@pytest.mark.parametrize("answer", [silence, dribbled_headers])
def test_a_crs_health_check_that_never_answers_stops_the_run_within_the_startup_timeout(
    answer: Answer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded_http, "STARTUP_TIMEOUT", 0.5)
    with hostile_server(answer) as hostile:
        result = _run("--agent", "crs", "--crs-url", hostile.url, out=tmp_path)
    _one_line_exit_2(result, hostile.url, "did not answer its health check in time", "0.5 s")


# --- during an episode: agent_error ----------------------------------------------------------


class Verbose(AgentExecutor):
    """An A2A agent whose one reply is a byte longer than the cap."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        reply = "x" * (bounded_http.MAX_REPLY_BYTES + 1)
        await event_queue.enqueue_event(new_text_message(reply))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def test_an_a2a_reply_over_the_cap_ends_the_episode_as_agent_error(tmp_path: Path) -> None:
    with serve_factory(lambda url: a2a_app(url, Verbose())) as url:
        result = _run("--agent", "a2a", "--a2a-url", url, out=tmp_path)
    assert result.exit_code == 1, result.output  # its one episode errored
    end = _end(tmp_path)
    assert end["reason"] == "agent_error"
    assert f"larger than {bounded_http.MAX_REPLY_BYTES} bytes" in end["detail"]
    assert "\n" not in end["detail"]


def test_an_endless_a2a_reply_ends_the_episode_as_agent_error_after_at_most_the_cap(
    tmp_path: Path,
) -> None:
    with hostile_server(well_behaved_until_a_message(endless_body)) as hostile:
        result = _run("--agent", "a2a", "--a2a-url", hostile.url, out=tmp_path)
        assert hostile.hung_up.wait(HANG_GUARD_S)
    assert result.exit_code == 1, result.output  # its one episode errored
    end = _end(tmp_path)
    assert end["reason"] == "agent_error"
    assert f"larger than {bounded_http.MAX_REPLY_BYTES} bytes" in end["detail"]
    assert hostile.sent <= bounded_http.MAX_CARD_BYTES + bounded_http.MAX_REPLY_BYTES + SLACK_BYTES


def test_an_a2a_reply_that_never_ends_is_cut_off_at_the_episode_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded_http, "A2A_EPISODE_TIMEOUT", 0.5)
    with hostile_server(well_behaved_until_a_message(dribbled_body)) as hostile:
        result = _run("--agent", "a2a", "--a2a-url", hostile.url, out=tmp_path)
    assert result.exit_code == 1, result.output  # its one episode errored
    end = _end(tmp_path)
    assert end["reason"] == "agent_error" and "did not answer within 0.5 s" in end["detail"]


def test_an_endless_crs_reply_ends_the_episode_as_agent_error(tmp_path: Path) -> None:
    with hostile_server(well_behaved_until_a_message(endless_body)) as hostile:
        result = _run("--agent", "crs", "--crs-url", hostile.url, out=tmp_path)
    assert result.exit_code == 1, result.output  # its one episode errored
    end = _end(tmp_path)
    assert end["reason"] == "agent_error"
    assert f"answered more than {bounded_http.MAX_REPLY_BYTES} bytes" in end["detail"]
