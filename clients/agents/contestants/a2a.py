"""An Agent2Agent-protocol agent as a contestant (`taurec run --agent a2a --a2a-url URL`).

For each episode the harness serves that episode's tools over Streamable HTTP on
loopback (mcp_relay.py) and sends the A2A agent one message: a text part saying what to
do, and a data part with everything it needs

    {"mcp_url": "http://127.0.0.1:PORT/mcp/<token>", "episode_id": ..., "task_id": ...,
     "trial": ..., "opening": "<the user's first message>", "max_turns": ...,
     "tools": [names]}

The agent talks to the user (send_message) and uses the catalog through those tools,
and commits with recommend; its final A2A reply (a message, or a task that reaches a
final state) ends its turn. An episode it leaves open is ended by the runner as
agent_error, and so is one whose reply does not come within A2A_EPISODE_TIMEOUT or is
larger than MAX_REPLY_BYTES (bounded_http.py, where every limit is set). Needs the `a2a`
extra (a2a-sdk); imported only when this agent is asked for.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Final

import anyio
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.client.errors import A2AClientError
from a2a.helpers import get_message_text, new_data_part, new_text_part
from a2a.types import AgentCard, Message, Role, SendMessageRequest
from google.protobuf.json_format import ParseError

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.contestants import bounded_http as limits
from taurec.clients.agents.contestants.bounded_http import (
    ResponseTooLarge,
    contestant_client,
    failure_detail,
    one_line,
)
from taurec.clients.agents.contestants.mcp_relay import relayed_tools, serve_relay

CARD_PATH: Final = "/.well-known/agent-card.json"
INSTRUCTION: Final = (
    "You are the recommender in a taurec episode. Connect to the MCP server at mcp_url "
    "(Streamable HTTP) and play episode episode_id: the user's opening message is given; "
    "talk to the user with send_message, look titles up with the catalog tools, and commit "
    "exactly once with recommend (item_id null to abstain). Read the resource "
    "taurec://policy first if you can: you are scored against it. Reply when the episode "
    "has ended."
)


class A2AUnavailable(Exception):
    """The A2A agent cannot be reached or has no usable agent card (one line)."""


def check_card(url: str) -> AgentCard:
    """The agent card served at URL/.well-known/agent-card.json, read within
    limits.STARTUP_TIMEOUT in all and limits.MAX_CARD_BYTES; A2AUnavailable (one line
    naming the card's URL, what happened and what was expected) otherwise."""
    card_url = url.rstrip("/") + CARD_PATH
    expected = (
        f"expected HTTP 200 and a JSON agent card of at most {limits.MAX_CARD_BYTES} bytes "
        f"within {limits.STARTUP_TIMEOUT:g} s"
    )
    try:
        status, body = anyio.run(_fetch, card_url)
    except (TimeoutError, httpx.ReadTimeout):
        raise A2AUnavailable(
            f"the A2A agent card at {card_url} did not arrive in time ({expected})"
        ) from None
    except ResponseTooLarge:
        raise A2AUnavailable(
            f"the A2A agent card at {card_url} is larger than {limits.MAX_CARD_BYTES} bytes, "
            f"reading stopped there ({expected})"
        ) from None
    except httpx.HTTPError as exc:
        raise A2AUnavailable(
            f"no A2A agent answers at {card_url} ({failure_detail(exc)})"
        ) from None
    if status != 200:
        raise A2AUnavailable(
            f"the A2A agent card at {card_url} answered HTTP {status}, expected 200"
        )
    try:
        return parse_agent_card(json.loads(body))
    except (ValueError, ParseError, RecursionError, TypeError, AttributeError) as exc:
        raise A2AUnavailable(
            f"the A2A agent card at {card_url} is not a valid agent card ({one_line(exc)})"
        ) from None


async def _fetch(card_url: str) -> tuple[int, bytes]:
    with anyio.fail_after(limits.STARTUP_TIMEOUT):
        client = contestant_client(
            read_timeout=limits.STARTUP_TIMEOUT, max_bytes=limits.MAX_CARD_BYTES
        )
        async with client as http:
            response = await http.get(card_url)
            return response.status_code, response.content


def briefing(episode: Episode, mcp_url: str) -> dict[str, Any]:
    """The data part of the message that hands an episode to the A2A agent."""
    return {
        "mcp_url": mcp_url,
        "episode_id": episode.episode_id,
        "task_id": episode.task_id,
        "trial": episode.trial,
        "opening": episode.opening,
        "max_turns": episode.max_turns,
        "tools": [t.name for t in relayed_tools(episode.tools)],
    }


class A2AAgent:
    """Hands each episode to the A2A agent at `url`, whose card was read when the agent
    was made (see the module docstring)."""

    def __init__(self, url: str, card: AgentCard, label: str = "a2a") -> None:
        self.url = url.rstrip("/")
        self.card = card
        self.label = label
        self.last_reply: str | None = None  # the agent's final text of the last episode

    async def run(self, episode: Episode) -> None:
        async with serve_relay(episode) as mcp_url:
            message = Message(
                role=Role.ROLE_USER,
                message_id=uuid.uuid4().hex,
                parts=[new_text_part(INSTRUCTION), new_data_part(briefing(episode, mcp_url))],
            )
            try:
                with anyio.fail_after(limits.A2A_EPISODE_TIMEOUT):
                    await self._send(message)
            except TimeoutError:
                await _abort(
                    episode,
                    f"the A2A agent at {self.url} did not answer within "
                    f"{limits.A2A_EPISODE_TIMEOUT:g} s",
                )
            except (A2AClientError, httpx.HTTPError) as exc:
                await _abort(episode, f"the A2A agent at {self.url} failed: {failure_detail(exc)}")

    async def _send(self, message: Message) -> None:
        client_http = contestant_client(
            read_timeout=limits.A2A_EPISODE_TIMEOUT, max_bytes=limits.MAX_REPLY_BYTES
        )
        async with client_http as http:
            config = ClientConfig(streaming=False, httpx_client=http)
            client = ClientFactory(config).create(self.card)
            try:
                async for response in client.send_message(SendMessageRequest(message=message)):
                    if response.HasField("message"):
                        self.last_reply = get_message_text(response.message)
            finally:
                await client.close()


async def _abort(episode: Episode, detail: str) -> None:
    if not episode.ended:
        await episode.call("abort_episode", reason="agent_error", detail=detail[:2000])


def make_a2a_agent(settings: AgentSettings) -> A2AAgent:
    """The A2A agent at settings.options["a2a_url"], once its card is read (A2AUnavailable
    when it cannot be)."""
    url = str(settings.options["a2a_url"])
    return A2AAgent(url, check_card(url), settings.label or "a2a")
