"""A small reference CRS speaking the iEvaLM / CRS Arena protocol, for trying
`taurec run --agent crs` without a neural CRS (and for the tests).

Its rule: read the user's requirements from everything they said (the scripted agent's
regex reader), then pitch the best-rated catalog title that meets them and that it has not
pitched before; with nothing stated yet, ask what kind of film. It is stateless: the
`context` of each request is the whole dialogue (user, CRS, user, ...).
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.clients.agents.recommendation.needs import Needs
from taurec.clients.agents.recommendation.reading import read_needs

ASK = "Hi! What kind of film are you in the mood for?"
NOTHING_LEFT = "I'm sorry, I have nothing else that fits what you asked for."


class DemoCrs:
    """The reply rule (see the module docstring) over one catalog."""

    def __init__(self, catalog: Catalog) -> None:
        self.items = [item.model_dump(mode="json") | {"year": item.year} for item in catalog]
        self.items.sort(key=lambda i: (-i["rating"], -i["vote_count"], i["id"]))
        self.matcher = TitleMatcher(catalog.items)

    def reply(self, context: list[str], message: str) -> str:
        said = [*context[0::2], message]
        pitched = {
            item_id
            for text in context[1::2]
            for m in self.matcher.find(text)
            for item_id in m.item_ids
        }
        needs = Needs()
        stated: set[str] = set()
        for text in said:
            stated |= read_needs(text, needs)
        if not stated and not pitched:
            return ASK
        for item in self.items:
            if item["id"] not in pitched and needs.fits(item):
                return f"How about {item['title']} ({item['year']})? It is rated {item['rating']}."
        return NOTHING_LEFT


def crs_app(crs: DemoCrs) -> Starlette:
    """The HTTP app, at its root as the CRS Arena servers are, and at /receive_message
    too: GET (health: "Model is running."), POST (a reply)."""

    async def health(request: Request) -> Response:
        return PlainTextResponse("Model is running.")

    async def receive(request: Request) -> Response:
        try:
            body: Any = await request.json()
        except ValueError:
            return JSONResponse({"error": "expected a JSON body"}, status_code=400)
        context = body.get("context") if isinstance(body, dict) else None
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not (
            isinstance(context, list) and all(isinstance(t, str) for t in context)
        ):
            return JSONResponse(
                {"error": 'expected {"context": [texts], "message": text}'}, status_code=400
            )
        return JSONResponse({"response": crs.reply(context, message)})

    return Starlette(
        routes=[
            Route(path, endpoint, methods=[method])
            for path in ("/", "/receive_message")
            for method, endpoint in (("GET", health), ("POST", receive))
        ]
    )
