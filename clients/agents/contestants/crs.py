"""A text-only conversational recommender (CRS) as a contestant, over the iEvaLM / CRS
Arena HTTP protocol, at the URL given (`--crs-url`), called exactly as given:

    GET  URL                                   -> 200 (health check)
    POST URL {"context": [texts], "message": str} -> {"response": str}

The CRS Arena model servers (KBRD, BARCOR, UniCRS, ChatCRS) answer at their root, so
`--crs-url http://HOST:PORT/` reaches them as they are; a server on another route is
given with its path. `context` is the dialogue so far (the user's opening first; there
is no locally made welcome), `message` the user's latest words. Those servers keep their
state in a session cookie: each episode has its own HTTP client, so its cookies are its
own and no two episodes share a session. Each reply goes to the simulated user through
send_message; the titles it names are resolved to catalog items by the catalog's title
matcher (catalog.mentions.TitleMatcher: articles, years, a title shared by two items
left ambiguous). When the user accepts a title, as the simulated user itself decided it
(the server, a harness's server, reports the accepted item: ServerSettings.
report_acceptance; the user's words are never read), and the CRS named that title
unambiguously in this reply or an earlier one, the harness commits it (recommend): the
CRS cannot call tools, so the user's acceptance is its commitment. An acceptance of a
title the CRS did not name unambiguously commits nothing: the harness notes it in the log
(an undelivered aside) and the dialogue goes on. The episode also ends when the user
leaves or the turns run out. A CRS that cannot be reached, errs, answers without a
`response`, too late or too much (the limits of bounded_http.py) ends the episode as
agent_error, and so does a server that does not report acceptances.

`dialogue="usersimcrs"` (`--crs-dialogue usersimcrs`) runs a CRS dialogue as UserSimCRS
does: the harness commits nothing, and the dialogue goes on until the user stops or the
turns run out; SR, SRRR, RDL and turns are read from the whole dialogue (pass^k, which
needs a commit, is 0 there).
"""

from __future__ import annotations

from typing import Any, Final

import anyio
import httpx

from taurec.catalog.mentions import TitleMatcher
from taurec.clients.agents.base import AgentSettings, Episode, EpisodeEndedError, outcome_of
from taurec.clients.agents.contestants import bounded_http as limits
from taurec.clients.agents.contestants.bounded_http import (
    ResponseTooLarge,
    contestant_client,
    failure_detail,
    one_line,
)
from taurec.tasks.suite import load_suite


class CrsError(Exception):
    """The CRS failed to answer (unreachable, an HTTP error, or no `response` field)."""


def endpoint(url: str) -> str:
    """The URL a CRS is called at: `url` as given, surrounding blanks aside (a path in it
    is kept, and `/` is the root)."""
    return url.strip()


def health_check(url: str) -> None:
    """GET `url` must answer 200 within limits.STARTUP_TIMEOUT in all; CrsError (one line
    naming the URL, what happened and what was expected) otherwise. Only the status is
    read: a body that never ends cannot hold the run before it starts, and headers that
    never end are cut off by the deadline."""
    where = endpoint(url)
    expected = f"GET {where} must answer HTTP 200 within {limits.STARTUP_TIMEOUT:g} s"
    try:
        status = anyio.run(_health_status, where)
    except (TimeoutError, httpx.ReadTimeout):
        raise CrsError(
            f"the CRS at {where} did not answer its health check in time ({expected})"
        ) from None
    except httpx.HTTPError as exc:
        raise CrsError(f"no CRS answers at {where} ({failure_detail(exc)})") from None
    if status != 200:
        raise CrsError(
            f"the CRS at {where} failed its health check: GET {where} answered HTTP "
            f"{status}, expected 200 (is the URL the CRS's own, with its path if it has one?)"
        )


async def _health_status(where: str) -> int:
    with anyio.fail_after(limits.STARTUP_TIMEOUT):
        client = contestant_client(
            read_timeout=limits.STARTUP_TIMEOUT, max_bytes=limits.MAX_REPLY_BYTES
        )
        async with client as http, http.stream("GET", where) as response:
            return response.status_code


def response_text(response: httpx.Response) -> str:
    """The `response` field of a CRS's answer; CrsError when it has none."""
    if response.status_code != 200:
        raise CrsError(f"the CRS answered HTTP {response.status_code}: {one_line(response.text)}")
    try:
        body = response.json()
    except ValueError:
        raise CrsError(f"the CRS answered non-JSON text: {one_line(repr(response.text))}") from None
    text = body.get("response") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise CrsError('the CRS answer has no "response" string (expected {"response": ...})')
    return text


#: How a CRS dialogue is run: the harness commits what the user accepts ("taurec"), or
#: nothing is committed and the dialogue goes on, as UserSimCRS runs one ("usersimcrs").
DIALOGUES: Final = ("taurec", "usersimcrs")


class CrsAgent:
    """Relays the dialogue between a CRS and the simulated user (see the module docstring)."""

    def __init__(
        self, url: str, matcher: TitleMatcher, label: str = "crs", dialogue: str = "taurec"
    ) -> None:
        if dialogue not in DIALOGUES:
            raise ValueError(
                f"--crs-dialogue: expected one of {', '.join(DIALOGUES)}, got {dialogue!r}"
            )
        self.url = endpoint(url)
        self.matcher = matcher
        self.label = label
        self.commits = dialogue == "taurec"

    async def run(self, episode: Episode) -> None:
        if self.commits and not await _reports_acceptance(episode):
            await _abort(episode, NO_ACCEPTANCE)
            return
        context: list[str] = []
        message = episode.opening
        named: dict[str, str] = {}  # item id -> title, of what the CRS named unambiguously
        client = contestant_client(
            read_timeout=limits.CRS_REPLY_TIMEOUT, max_bytes=limits.MAX_REPLY_BYTES
        )
        async with client as http:
            try:
                while True:
                    try:
                        reply = await self._ask(http, context, message)
                    except CrsError as exc:
                        await _abort(episode, str(exc))
                        return
                    if not reply.strip():
                        await _abort(episode, "the CRS answered an empty response")
                        return
                    for mention in self.matcher.find_written(reply):
                        if mention.item_id is not None:  # one item: not ambiguous, not unknown
                            named.setdefault(mention.item_id, mention.title)
                    try:
                        turn = await episode.say(reply)
                    except ValueError as exc:  # the server refused the message
                        await _abort(episode, f"the CRS reply was refused: {exc}")
                        return
                    if turn.ended:
                        return
                    context += [message, reply]
                    message = turn.text
                    if not self.commits or turn.accepted is None:
                        continue
                    if turn.accepted in named:
                        await episode.recommend(turn.accepted)
                        return
                    episode.note_aside(unnamed_acceptance(turn.accepted))
            except EpisodeEndedError:
                return

    async def _ask(self, http: httpx.AsyncClient, context: list[str], message: str) -> str:
        return await ask(http, self.url, context, message)


async def ask(http: httpx.AsyncClient, url: str, context: list[str], message: str) -> str:
    """The CRS's reply to `message`; CrsError when it does not answer within
    limits.CRS_REPLY_TIMEOUT in all (httpx's timeout bounds each read only: a CRS dribbling
    bytes never trips it), or answers more than limits.MAX_REPLY_BYTES (reading stops
    there, here and in contestant_client's transport)."""
    cap = limits.MAX_REPLY_BYTES
    too_large = f"the CRS at {url} answered more than {cap} bytes (a reply may hold at most {cap})"
    try:
        with anyio.fail_after(limits.CRS_REPLY_TIMEOUT):
            async with http.stream("POST", url, json={"context": context, "message": message}) as r:
                body = bytearray()
                async for chunk in r.aiter_bytes():
                    body += chunk
                    if len(body) > cap:
                        raise CrsError(too_large)
    except TimeoutError:
        raise CrsError(
            f"the CRS at {url} did not answer within {limits.CRS_REPLY_TIMEOUT:g} s"
        ) from None
    except ResponseTooLarge:
        raise CrsError(too_large) from None
    except httpx.HTTPError as exc:
        raise CrsError(f"the CRS at {url} did not answer ({failure_detail(exc)})") from None
    content_type = {"content-type": r.headers.get("content-type", "application/json")}
    return response_text(httpx.Response(r.status_code, content=bytes(body), headers=content_type))


#: Why a CRS episode cannot be played on a server that does not report acceptances.
NO_ACCEPTANCE = (
    "this server does not report which title the simulated user accepts (start it with "
    "taurec serve --report-acceptance), so the harness cannot commit for a text-only CRS"
)


def unnamed_acceptance(item_id: str) -> str:
    """The harness's note when the user accepts a title the CRS did not name unambiguously."""
    return (
        f"harness: the user accepted {item_id}, which the CRS did not name unambiguously "
        "(not named, or its title is shared by other items and no year told them apart); "
        "nothing was committed"
    )


async def _reports_acceptance(episode: Episode) -> bool:
    """Whether the server names the title the user accepts (ServerInfo.reports_acceptance)."""
    outcome = outcome_of(await episode.client.call_tool("server_info", {}))
    return not outcome.is_error and bool(outcome.data.get("reports_acceptance"))


async def _abort(episode: Episode, detail: str) -> None:
    if not episode.ended:
        await episode.call("abort_episode", reason="agent_error", detail=detail[:2000])


def make_crs_agent(settings: AgentSettings) -> CrsAgent:
    """The CRS at settings.options["crs_url"], after its health check. Raises CrsError
    when it does not answer, KeyError when no URL is given."""
    url: Any = settings.options["crs_url"]
    dialogue = str(settings.options.get("crs_dialogue") or "taurec")
    health_check(str(url))
    catalog = load_suite(settings.suite).catalog
    return CrsAgent(str(url), TitleMatcher(catalog.items), settings.label or "crs", dialogue)
