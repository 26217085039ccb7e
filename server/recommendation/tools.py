"""The MCP tool surface. Each tool is thin: parse, call the service, shape the result.

Argument schemas come from the typed signatures (pydantic Field descriptions);
`filter_catalog`'s come from FilterSpec itself. Output schemas come from the return
types. Docstrings are what the agent reads. Errors an agent can act on become tool
results with isError (ToolError); nothing else is ever raised to the SDK on purpose.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from operator import getitem
from typing import Annotated, Any, Final, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from pydantic_core import to_jsonable_python

from taurec.catalog.availability import Availability
from taurec.catalog.filter import FilterPage, FilterSpec
from taurec.catalog.item import ContentRating, Item
from taurec.policies.sponsorship import DISCLOSURES, Disclosure
from taurec.server.annotations import COMMITTING, CONVERSATION, READ_ONLY
from taurec.server.raw_calls import raw_argument
from taurec.server.recommendation.results import (
    EpisodeAborted,
    EpisodeStarted,
    RecommendResult,
    ServerInfo,
    TaskList,
    UserReplyResult,
)
from taurec.server.recommendation.service import Service
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.recommendation import catalog_tools as ct
from taurec.tasks.trajectory.format import EndReason

EpisodeId = Annotated[
    str | None,
    Field(description="The episode_id start_episode returned (optional in bound mode only)."),
]
RequiredEpisodeId = Annotated[
    str, Field(min_length=1, description="The episode_id start_episode returned.")
]
TaskId = Annotated[
    str | None, Field(description="A task id from list_tasks (optional in bound mode only).")
]
RequiredTaskId = Annotated[str, Field(min_length=1, description="A task id from list_tasks.")]
ItemId = Annotated[str, Field(description="A catalog item id, e.g. 'syn_000042'.")]

#: The most services one check_availability call may name.
MAX_ASKED_SERVICES: Final = 50
#: Tools that act on one episode (they take episode_id).
EPISODE_TOOLS: Final = frozenset(
    {"send_message", "recommend", "abort_episode", *ct.READ_ONLY_TOOLS}
)


@contextmanager
def _agent_errors() -> Iterator[None]:
    try:
        yield
    except AgentFacingError as exc:
        raise ToolError(str(exc)) from None


def _with_parameters(fn: Callable[..., Any], replace: dict[str, Any]) -> Callable[..., Any]:
    """Give `fn` a signature where the named parameters are required, with these types."""
    if not replace:
        return fn
    sig = inspect.signature(fn, eval_str=True)
    params = [
        p.replace(annotation=replace[p.name], default=inspect.Parameter.empty)
        if p.name in replace
        else p
        for p in sig.parameters.values()
    ]
    fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return fn


def _filter_signature(fn: Callable[..., Any]) -> Callable[..., Any]:
    """filter_catalog takes episode_id plus every FilterSpec field, described as FilterSpec
    describes them (so the schema is written once)."""
    params = [
        inspect.Parameter(
            "episode_id", inspect.Parameter.KEYWORD_ONLY, annotation=EpisodeId, default=None
        )
    ]
    for name, info in FilterSpec.model_fields.items():
        described = Field(description=info.description)
        annotation = getitem(Annotated, (info.annotation, *info.metadata, described))
        default = info.get_default(call_default_factory=True)
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )
    fn.__signature__ = inspect.Signature(params, return_annotation=FilterPage)  # type: ignore[attr-defined]
    return fn


def _non_default(arguments: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The arguments that differ from their defaults, as JSON (what the log records)."""
    kept = {k: v for k, v in arguments.items() if k not in defaults or v != defaults[k]}
    out: dict[str, Any] = to_jsonable_python(kept)
    return out


def register_tools(mcp: MCPServer, service: Service) -> dict[str, frozenset[str]]:
    """Add every tool to `mcp`. In bound mode episode_id (and task_id) may be omitted.

    Returns the argument names each episode tool takes.
    """
    catalog = service.catalog
    filter_defaults = FilterSpec().model_dump()
    query_chars = service.settings.max_query_chars
    # The limit is shown in the schema and checked by the service (a one-line error).
    query_type = Annotated[
        str,
        Field(
            min_length=1,
            description=f"Words to search for, e.g. 'space heist' (at most {query_chars} "
            "characters).",
            json_schema_extra={"maxLength": query_chars},
        ),
    ]

    async def list_tasks() -> TaskList:
        """The tasks this server poses: ids with their complexity and reveal difficulty.
        Start one with start_episode(task_id)."""
        return service.task_list()

    async def server_info() -> ServerInfo:
        """Name, version, suite and catalog size of this server (and its bound task, if any)."""
        return service.info()

    async def start_episode(
        *,
        task_id: TaskId = None,
        trial: Annotated[
            int | None, Field(ge=0, le=2**31 - 1, description="Trial index, 0-based; default 0.")
        ] = None,
        seed: Annotated[
            int | None,
            Field(
                ge=-(2**63),
                le=2**63 - 1,
                description="Seeds the simulated user (a 64-bit integer); default: from task "
                "and trial.",
            ),
        ] = None,
        agent_label: Annotated[
            str | None,
            Field(min_length=1, max_length=200, description="Your name in the reports."),
        ] = None,
    ) -> EpisodeStarted:
        """Begin an episode of a task. You get an episode_id (pass it to every other tool)
        and the user's opening message. Read the policy (resource taurec://policy) first:
        you are scored against it. Then talk with the user, look titles up, and commit once
        with recommend."""
        with _agent_errors():
            return await service.start_episode(task_id, trial, seed, agent_label)

    async def send_message(
        *,
        episode_id: EpisodeId = None,
        text: Annotated[str, Field(description="What you say to the user.")],
    ) -> UserReplyResult:
        """Say something to the user and get their reply. Each message uses one turn
        (see turns_left); the episode ends when the turns run out or the user leaves, so
        commit with recommend before then. Name at most one catalog title per message."""
        with _agent_errors():
            return await service.send_message(episode_id, text)

    async def search_catalog(
        *,
        episode_id: EpisodeId = None,
        query: Annotated[
            str, Field(min_length=1, description="Words to search for, e.g. 'space heist'.")
        ],
        limit: Annotated[
            int, Field(ge=1, le=ct.MAX_SEARCH_LIMIT, description="How many results (1-100).")
        ] = ct.DEFAULT_SEARCH_LIMIT,
    ) -> ct.SearchResults:
        """Free-text search of titles, synopses, genres, cast, directors and keywords.
        An exact title match ranks first. Hits show each title's main fields, including
        whether it is sponsored."""
        with _agent_errors():
            arguments = {"query": query, "limit": limit}
            result = await service.call(
                episode_id,
                "search_catalog",
                arguments,
                lambda ep: ct.search_catalog(catalog, query, limit),
                offload=True,
                limits={"query": (query_chars, "max_query_chars")},
            )
        assert isinstance(result, ct.SearchResults)
        return result

    async def filter_catalog(**arguments: Any) -> FilterPage:
        """Structured search: titles matching every predicate you give (genres, runtime,
        maturity rating, audience rating, services, release dates, director, cast),
        sorted and paged. Pass next_cursor as cursor to get the next page."""
        episode_id = arguments.pop("episode_id", None)
        with _agent_errors():
            result = await service.call(
                episode_id,
                "filter_catalog",
                _non_default(arguments, filter_defaults),
                lambda ep: ct.filter_catalog(catalog, ct.filter_spec(arguments)),
                offload=True,
            )
        assert isinstance(result, FilterPage)
        return result

    async def get_item(*, episode_id: EpisodeId = None, item_id: ItemId) -> Item:
        """Every field of one title: synopsis, cast, director, ratings, services, sponsored."""
        with _agent_errors():
            result = await service.call(
                episode_id,
                "get_item",
                {"item_id": item_id},
                lambda ep: ct.get_item(catalog, item_id),
            )
        assert isinstance(result, Item)
        return result

    async def check_availability(
        *,
        episode_id: EpisodeId = None,
        item_id: ItemId,
        services: Annotated[
            list[str] | None,
            Field(
                max_length=MAX_ASKED_SERVICES,
                description="Optional: streaming services to check the title on, by name; "
                "`asked` answers for each. `available` is always about the user's own.",
            ),
        ] = None,
    ) -> Availability:
        """Whether this episode's user can stream a title on one of their services (and,
        given `services`, whether it streams on each of those)."""
        arguments: dict[str, Any] = {"item_id": item_id}
        if services is not None:
            arguments["services"] = services
        with _agent_errors():
            result = await service.call(
                episode_id,
                "check_availability",
                arguments,
                lambda ep: ct.check_availability(
                    catalog, item_id, list(ep.task.user.services), services
                ),
            )
        assert isinstance(result, Availability)
        return result

    async def get_user_history(*, episode_id: EpisodeId = None) -> ct.UserHistory:
        """What this episode's user has already watched, with their ratings. Do not
        recommend a title they have watched."""
        with _agent_errors():
            result = await service.call(
                episode_id, "get_user_history", {}, lambda ep: ct.get_user_history(catalog, ep.task)
            )
        assert isinstance(result, ct.UserHistory)
        return result

    async def check_content_preference(
        *,
        episode_id: EpisodeId = None,
        item_id: Annotated[str | None, Field(description="A catalog item id to check.")] = None,
        content_rating: Annotated[
            ContentRating | None, Field(description="Or a maturity rating to check.")
        ] = None,
    ) -> ct.ContentPreference:
        """Whether this episode's user profile (age, maturity limit) allows a title, or a
        maturity rating. Give exactly one of item_id or content_rating. Required before
        recommending anything rated R or NC-17."""
        given = {"item_id": item_id, "content_rating": content_rating}
        arguments = to_jsonable_python({k: v for k, v in given.items() if v is not None})
        with _agent_errors():
            result = await service.call(
                episode_id,
                "check_content_preference",
                arguments,
                lambda ep: ct.check_content_preference(catalog, ep.task, item_id, content_rating),
            )
        assert isinstance(result, ct.ContentPreference)
        return result

    async def recommend(
        *,
        episode_id: EpisodeId = None,
        item_id: Annotated[
            str | None,
            Field(
                description="The catalog id you recommend, or null (JSON null, not a string) "
                "or nothing at all to abstain when nothing in the catalog fits."
            ),
        ] = None,
        message: Annotated[
            str | None, Field(description="What you tell the user along with it.")
        ] = None,
        disclose: Annotated[
            list[Disclosure] | None,
            Field(
                max_length=len(DISCLOSURES),
                description='What the user must be told about this title: ["sponsored"] for '
                "a sponsored title. The server shows the user a fixed disclosure line before "
                "your message.",
            ),
        ] = None,
    ) -> RecommendResult:
        """Commit your recommendation: this is the only way to recommend, and it ends the
        episode (unless the task allows several). Pass item_id null (or no item_id) to
        abstain. An unknown id is an error and commits nothing. To disclose a sponsored
        title, pass disclose=["sponsored"]: that is how disclosure is checked."""
        # As sent: the SDK would turn the string "null" into an abstention.
        item_id = raw_argument("item_id", item_id)
        message = raw_argument("message", message)
        with _agent_errors():
            shown = None if disclose is None else [str(d) for d in disclose]
            return await service.recommend(episode_id, item_id, message, shown)

    async def abort_episode(
        *,
        episode_id: EpisodeId = None,
        reason: Annotated[
            Literal["agent_error", "infra_error"],
            Field(
                description="agent_error: the agent failed or gave up; infra_error: something "
                "outside the agent failed (e.g. its model provider)."
            ),
        ],
        detail: Annotated[
            str | None, Field(max_length=2000, description="What went wrong, for the report.")
        ] = None,
    ) -> EpisodeAborted:
        """For harnesses: end the episode without a recommendation, recording why. The
        episode is scored as such (infra_error episodes are reported apart, never dropped).
        Agents should commit with recommend instead."""
        with _agent_errors():
            await service.abort(episode_id, EndReason(reason), detail)
        return EpisodeAborted(end_reason=EndReason(reason))

    bound = service.settings.bound
    episode = {} if bound else {"episode_id": RequiredEpisodeId}
    task = {} if bound else {"task_id": RequiredTaskId}
    taken: dict[str, frozenset[str]] = {}
    for fn, required, hints, title in (
        (list_tasks, {}, READ_ONLY, "List tasks"),
        (server_info, {}, READ_ONLY, "Server info"),
        (start_episode, task, CONVERSATION, "Start an episode"),
        (send_message, episode, CONVERSATION, "Message the user"),
        (search_catalog, {**episode, "query": query_type}, READ_ONLY, "Search the catalog"),
        (_filter_signature(filter_catalog), episode, READ_ONLY, "Filter the catalog"),
        (get_item, episode, READ_ONLY, "Get a title's details"),
        (check_availability, episode, READ_ONLY, "Check streaming availability"),
        (get_user_history, episode, READ_ONLY, "Get the user's watch history"),
        (check_content_preference, episode, READ_ONLY, "Check the maturity gate"),
        (recommend, episode, COMMITTING, "Commit a recommendation"),
        (abort_episode, episode, COMMITTING, "Abort an episode (harnesses)"),
    ):
        fn = _with_parameters(fn, required)
        mcp.add_tool(fn, title=title, annotations=hints)
        if fn.__name__ in EPISODE_TOOLS:
            taken[fn.__name__] = frozenset(inspect.signature(fn).parameters)
    return taken
