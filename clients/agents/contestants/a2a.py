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
agent_error. Needs the `a2a` extra (a2a-sdk); imported only when this agent is asked for.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

import httpx
from a2a.client import ClientConfig, create_client
from a2a.helpers import get_message_text, new_data_part, new_text_part
from a2a.types import Message, Role, SendMessageRequest

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.contestants.mcp_relay import relayed_tools, serve_relay

CARD_PATH: Final = "/.well-known/agent-card.json"
#: Seconds an A2A agent may take over one whole episode (LLM agents are slow).
EPISODE_TIMEOUT: Final = 900.0
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


def check_card(url: str) -> None:
    """The agent must serve its card at URL/.well-known/agent-card.json."""
    card_url = url.rstrip("/") + CARD_PATH
    try:
        response = httpx.get(card_url, timeout=10.0)
    except httpx.HTTPError as exc:
        raise A2AUnavailable(
            f"no A2A agent answers at {card_url} ({exc or type(exc).__name__})"
        ) from None
    if response.status_code != 200:
        raise A2AUnavailable(
            f"the A2A agent card at {card_url} answered HTTP {response.status_code}, expected 200"
        )


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
    """Hands each episode to the A2A agent at `url` (see the module docstring)."""

    def __init__(self, url: str, label: str = "a2a") -> None:
        self.url = url.rstrip("/")
        self.label = label
        self.last_reply: str | None = None  # the agent's final text of the last episode

    async def run(self, episode: Episode) -> None:
        async with serve_relay(episode) as mcp_url:
            message = Message(
                role=Role.ROLE_USER,
                message_id=uuid.uuid4().hex,
                parts=[new_text_part(INSTRUCTION), new_data_part(briefing(episode, mcp_url))],
            )
            async with httpx.AsyncClient(timeout=EPISODE_TIMEOUT) as http:
                config = ClientConfig(streaming=False, httpx_client=http)
                client = await create_client(self.url, client_config=config)
                try:
                    async for response in client.send_message(SendMessageRequest(message=message)):
                        if response.HasField("message"):
                            self.last_reply = get_message_text(response.message)
                finally:
                    await client.close()


def make_a2a_agent(settings: AgentSettings) -> A2AAgent:
    """The A2A agent at settings.options["a2a_url"], once its card answers."""
    url = str(settings.options["a2a_url"])
    check_card(url)
    return A2AAgent(url, settings.label or "a2a")
