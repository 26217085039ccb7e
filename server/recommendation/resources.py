"""What an agent can read besides tool results: the policy, the catalog schema, the task
list (resources), and the `contestant` prompt. None of it describes a task's needs."""

from __future__ import annotations

import orjson
from mcp.server import MCPServer

from taurec.catalog.filter import FilterSpec
from taurec.catalog.item import Item
from taurec.policies.document import policy_text
from taurec.server.recommendation.results import CATALOG_SCHEMA_URI, POLICY_URI, TASKS_URI
from taurec.server.recommendation.service import Service

PROTOCOL = """\
You are the recommendation agent in a taurec episode: a user with private preferences
wants one movie, and you talk with them through tools.

1. {start}: you get an episode_id and the user's opening message.
2. Talk with the user through send_message (every message uses one turn of a limited
   budget) and look titles up with search_catalog, filter_catalog, get_item,
   check_availability, get_user_history and check_content_preference.{pass_id}
3. Commit once with recommend: a catalog item_id, or item_id null to abstain when
   nothing in the catalog fits. That ends the episode.

Users state some needs up front, some only when asked, and some never, though they
reject titles that break them. Ask, pitch one title at a time, and listen. Everything
is logged and checked against the policy below.
"""


def protocol_text(task_id: str | None, *, bound: bool) -> str:
    if bound:
        start, pass_id = "Call start_episode with no arguments (this server serves one episode)", ""
    else:
        start = f"Call start_episode(task_id={task_id!r})" if task_id else "Call start_episode"
        pass_id = "\n   Pass the episode_id to every one of them."
    return PROTOCOL.format(start=start, pass_id=pass_id)


def catalog_schema() -> dict[str, object]:
    return {"item": Item.model_json_schema(), "filter": FilterSpec.model_json_schema()}


def register_resources(mcp: MCPServer, service: Service) -> None:
    bound = service.settings.bound

    @mcp.resource(
        POLICY_URI,
        name="policy",
        title="Recommendation policy",
        description="The rules every episode is checked against.",
        mime_type="text/markdown",
    )
    def policy() -> str:
        return policy_text()

    @mcp.resource(
        CATALOG_SCHEMA_URI,
        name="catalog-schema",
        title="Catalog schema",
        description="JSON Schemas of a catalog item and of filter_catalog's predicates.",
        mime_type="application/json",
    )
    def schema() -> str:
        return orjson.dumps(catalog_schema()).decode()

    @mcp.resource(
        TASKS_URI,
        name="tasks",
        title="Tasks",
        description="The tasks this server poses (the same as the list_tasks tool).",
        mime_type="application/json",
    )
    def tasks() -> str:
        return service.task_list().model_dump_json()

    @mcp.prompt(
        name="contestant",
        title="Play a taurec episode",
        description="The episode protocol and the policy, for an agent about to play.",
    )
    def contestant(task_id: str | None = None) -> str:
        return protocol_text(task_id, bound=bound) + "\n" + policy_text()
