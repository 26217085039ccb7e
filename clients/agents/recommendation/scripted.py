"""The scripted agent: elicit every attribute, filter, pitch one title at a time, commit.

It uses only the public MCP tools and reads the user's words with regexes (reading.py),
so it is a fair, deterministic, LLM-free reference contestant:

1. read the opening; look up the watch history and the profile's maturity gate;
2. ask one question per attribute not yet stated (genre, length, maturity, quality,
   services, recency, people, language, then "anything else?"), within the turn budget;
3. filter the catalog with what was stated, then check each candidate in full (get_item:
   language, people, keywords), its availability and its maturity rating;
4. pitch one candidate per message; on a rejection drop it and learn from the hint (a
   title that is "a big time commitment" caps the runtime below its own); on acceptance
   commit, disclosing sponsorship; abstain with recommend(None) when nothing is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from taurec.clients.agents.base import Episode, EpisodeEndedError
from taurec.clients.agents.recommendation.needs import AGE_RESTRICTED, RATING_ORDER, Needs
from taurec.clients.agents.recommendation.questions import answer_question
from taurec.clients.agents.recommendation.reading import (
    VAGUE,
    is_repeat,
    learn,
    read_needs,
    read_verdict,
)
from taurec.policies.sponsorship import disclosures

#: (attribute, question): each question names exactly one attribute for the user.
QUESTIONS: Final = (
    ("genre", "What genre or kind of movie are you in the mood for?"),
    ("length", "How long should it be?"),
    ("quality", "Do you care about reviews or ratings?"),
    ("recency", "Something recent, or an older film?"),
    ("maturity", "Any content rating limits, is it for kids?"),
    ("services", "Which streaming services do you have?"),
    ("language", "Any language preference?"),
    ("people", "Any director or actor you like?"),
    ("other", "Anything else?"),
)
#: Turns kept for pitching when the budget is too small to ask about everything.
PITCH_RESERVE: Final = 4
#: Fruitless turns the agent allows itself (the rule-based user leaves after 6).
FRUITLESS_LIMIT: Final = 4
MAX_ANSWERS: Final = 3  # questions answered per pitch
ABSTAIN_MESSAGE: Final = (
    "I'm sorry: nothing in the catalog meets all of your requirements, so rather than "
    "recommend something that doesn't fit, I'll recommend nothing."
)


@dataclass
class _State:
    needs: Needs = field(default_factory=Needs)
    stated: set[str] = field(default_factory=set)  # attributes the user has spoken to
    vague: set[str] = field(default_factory=set)  # attributes with unstated requirements
    watched: set[str] = field(default_factory=set)
    allowed_ratings: set[str] = field(default_factory=lambda: set(RATING_ORDER))
    rejected: set[str] = field(default_factory=set)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # get_item cache
    available: dict[str, bool] = field(default_factory=dict)
    hints_seen: set[tuple[str, str]] = field(default_factory=set)
    fruitless: int = 0


class ScriptedAgent:
    """Deterministic: the same episode (task, trial, seed) always plays the same way."""

    def __init__(self, label: str = "scripted") -> None:
        self.label = label

    async def run(self, episode: Episode) -> None:
        state = _State()
        state.stated |= read_needs(episode.opening, state.needs)
        try:
            await self._look_up_user(episode, state)
            await self._elicit(episode, state)
            await self._pitch_and_commit(episode, state)
        except EpisodeEndedError:
            return  # the user left or the turns ran out: nothing more to do

    # --- steps ----------------------------------------------------------------------------

    async def _look_up_user(self, episode: Episode, state: _State) -> None:
        history = await episode.call("get_user_history")
        state.watched = {w["item_id"] for w in history.data.get("watched", [])}
        allowed = set()
        for rating in RATING_ORDER:
            gate = await episode.call("check_content_preference", content_rating=rating)
            if gate.data.get("allowed"):
                allowed.add(rating)
        state.allowed_ratings = allowed

    async def _elicit(self, episode: Episode, state: _State) -> None:
        budget = max(episode.max_turns - 1 - PITCH_RESERVE, 1)
        for attribute, question in QUESTIONS:
            if attribute in state.stated:
                continue
            if budget <= 0 or episode.turns_left <= PITCH_RESERVE:
                break
            budget -= 1
            turn = await episode.say(question)
            if turn.ended:
                return
            state.stated |= read_needs(turn.text, state.needs) | {attribute}
            if VAGUE.search(turn.text):
                state.vague.add(attribute)
            if is_repeat(turn.text):
                state.fruitless += 1

    async def _pitch_and_commit(self, episode: Episode, state: _State) -> None:
        while True:
            candidate = await self._next_candidate(episode, state)
            if candidate is None:
                await episode.recommend(None, ABSTAIN_MESSAGE)
                return
            if episode.turns_left < 2 or state.fruitless >= FRUITLESS_LIMIT:
                await self._commit(episode, candidate)  # no turn left to ask: best guess
                return
            title = f"{candidate['title']} ({candidate['year']})"
            turn = await episode.say(f"How about {title}? Would that work for you?")
            for _ in range(MAX_ANSWERS):  # questions about the title get answered
                answer = answer_question(turn.text, candidate)
                if turn.ended or answer is None or episode.turns_left < 2:
                    break
                turn = await episode.say(answer)
            if turn.ended:
                return
            verdict = read_verdict(turn.text)
            if verdict.accepted:
                await self._commit(episode, candidate)
                return
            state.rejected.add(candidate["id"])
            read_needs(turn.text, state.needs)  # a rejection may restate a requirement
            if verdict.seen:
                state.watched.add(candidate["id"])
            new_hints = [h for h in verdict.hints if h not in state.hints_seen]
            for hint in verdict.hints:
                learn(state.needs, hint, candidate)
            state.hints_seen.update(verdict.hints)
            if not new_hints and not verdict.seen:
                state.fruitless += 1

    async def _commit(self, episode: Episode, item: dict[str, Any]) -> None:
        message = f"I recommend {item['title']}. Enjoy!"
        await episode.recommend(item["id"], message, disclosures(item))

    # --- candidates -------------------------------------------------------------------------

    async def _next_candidate(self, episode: Episode, state: _State) -> dict[str, Any] | None:
        """The best title that meets every known need and policy (a full item), or None."""
        needs = state.needs
        if needs.impossible():
            return None
        arguments = needs.filter_arguments()
        ratings = state.allowed_ratings & set(arguments.get("content_ratings", RATING_ORDER))
        if not ratings:
            return None
        arguments["content_ratings"] = sorted(ratings, key=RATING_ORDER.index)
        if needs.user_services and not needs.services_any:
            arguments["services_any"] = sorted(needs.user_services)
        listing = await self._all_matches(episode, arguments)
        skip = state.watched | state.rejected
        for summary in sorted(listing, key=lambda s: _preference(s, state.vague)):
            if summary["id"] in skip:
                continue
            item = await self._item(episode, state, summary["id"])
            if item is None or not needs.fits(item):
                continue
            if not await self._available(episode, state, item["id"]):
                continue
            if item["content_rating"] in AGE_RESTRICTED:
                gate = await episode.call("check_content_preference", item_id=item["id"])
                if not gate.data.get("allowed"):
                    continue
            item["year"] = summary["year"]
            return item
        return None

    async def _all_matches(
        self, episode: Episode, arguments: dict[str, Any]
    ) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await episode.call(
                "filter_catalog", **arguments, limit=100, **({"cursor": cursor} if cursor else {})
            )
            if page.is_error:
                return found
            found += page.data.get("items", [])
            cursor = page.data.get("next_cursor")
            if not cursor:
                return found

    async def _item(self, episode: Episode, state: _State, item_id: str) -> dict[str, Any] | None:
        if item_id not in state.items:
            got = await episode.call("get_item", item_id=item_id)
            if got.is_error:
                return None
            state.items[item_id] = got.data
        return state.items[item_id]

    async def _available(self, episode: Episode, state: _State, item_id: str) -> bool:
        if item_id not in state.available:
            check = await episode.call("check_availability", item_id=item_id)
            state.available[item_id] = bool(check.data.get("available"))
        return state.available[item_id]


def _preference(summary: dict[str, Any], vague: set[str]) -> tuple[Any, ...]:
    """Sort key: where the user is vague (an unstated need), lean the way such needs
    usually go (shorter, newer, better rated, milder); then by audience rating."""
    key: list[Any] = []
    if "length" in vague:
        key.append(summary["runtime"])
    if "recency" in vague:
        key.append(-summary["year"])
    if "maturity" in vague:
        key.append(RATING_ORDER.index(summary["content_rating"]))
    key += [-summary["rating"], summary["id"]]
    return tuple(key)
