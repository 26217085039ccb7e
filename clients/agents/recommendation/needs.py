"""What an agent has learned about the user's needs, and which titles meet them.

`Needs` holds hard requirements as the agent understood them (from the user's words,
see reading.py, and from rejected pitches), turns them into `filter_catalog` arguments,
and checks a full item (a `get_item` result) against everything, including what the
filter cannot express (language, excluded people, keywords, sponsorship).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Final

from taurec.catalog.services import service_key

#: Maturity ratings from mildest to strongest (NR: unrated, treated as adult).
RATING_ORDER: Final = ("G", "PG", "PG-13", "R", "NC-17", "NR")
AGE_RESTRICTED: Final = frozenset({"R", "NC-17"})


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


@dataclass
class Needs:
    """Hard requirements (None / empty: no requirement known)."""

    genre_sets: list[set[str]] = field(default_factory=list)  # each: has one of these
    genres_none: set[str] = field(default_factory=set)
    runtime_min: int | None = None
    runtime_max: int | None = None
    ratings: set[str] | None = None  # allowed maturity ratings
    ratings_none: set[str] = field(default_factory=set)
    min_rating: float | None = None
    max_rating: float | None = None
    min_votes: int | None = None
    max_votes: int | None = None
    released_after: date | None = None
    released_before: date | None = None
    services_any: set[str] = field(default_factory=set)  # a stated streaming requirement
    services_none: set[str] = field(default_factory=set)
    services_other_than: list[set[str]] = field(default_factory=list)  # learned from hints
    directors: set[str] = field(default_factory=set)  # directed by one of these
    directors_none: set[str] = field(default_factory=set)
    cast: set[str] = field(default_factory=set)  # every one of these is in it
    cast_none: set[str] = field(default_factory=set)
    languages: set[str] | None = None  # ISO codes
    languages_none: set[str] = field(default_factory=set)
    keywords: set[str] = field(default_factory=set)
    keywords_none: set[str] = field(default_factory=set)
    sponsored: bool | None = None
    genres_missing_from: list[set[str]] = field(default_factory=list)  # learned from hints
    user_services: set[str] = field(default_factory=set)  # what the user subscribes to

    # --- updating -------------------------------------------------------------------------

    def add_genres(self, genres: set[str]) -> None:
        folded = {_fold(g) for g in genres}
        if folded and folded not in self.genre_sets:
            self.genre_sets.append(folded)

    def cap_runtime(self, value: int) -> None:
        self.runtime_max = value if self.runtime_max is None else min(self.runtime_max, value)

    def floor_runtime(self, value: int) -> None:
        self.runtime_min = value if self.runtime_min is None else max(self.runtime_min, value)

    def floor_rating(self, value: float) -> None:
        self.min_rating = value if self.min_rating is None else max(self.min_rating, value)

    def cap_rating(self, value: float) -> None:
        self.max_rating = value if self.max_rating is None else min(self.max_rating, value)

    def after(self, value: date) -> None:
        if self.released_after is None or value > self.released_after:
            self.released_after = value

    def before(self, value: date) -> None:
        if self.released_before is None or value < self.released_before:
            self.released_before = value

    def allow_ratings(self, codes: set[str]) -> None:
        self.ratings = set(codes) if self.ratings is None else self.ratings & codes

    def allow_languages(self, codes: set[str]) -> None:
        self.languages = set(codes) if self.languages is None else self.languages & codes

    # --- querying -------------------------------------------------------------------------

    def filter_arguments(self) -> dict[str, Any]:
        """The requirements `filter_catalog` can express (the rest: `fits`)."""
        args: dict[str, Any] = {}
        singles = sorted(next(iter(s)) for s in self.genre_sets if len(s) == 1)
        multi = [s for s in self.genre_sets if len(s) > 1]
        if singles:
            args["genres_all"] = singles
        if multi:
            args["genres_any"] = sorted(multi[0])
        none = sorted(self.genres_none - set(singles))
        if none and not (multi and set(multi[0]) <= set(none)):
            args["genres_none"] = none
        if self.runtime_min is not None:
            args["runtime_min"] = self.runtime_min
        if self.runtime_max is not None:
            args["runtime_max"] = self.runtime_max
        allowed = self.allowed_ratings()
        if allowed is not None:
            args["content_ratings"] = sorted(allowed, key=RATING_ORDER.index)
        if self.min_rating is not None:
            args["min_rating"] = min(self.min_rating, 10.0)
        if self.min_votes is not None:
            args["min_votes"] = self.min_votes
        if self.services_any:
            args["services_any"] = sorted(self.services_any)
        if self.released_after is not None:
            args["released_after"] = self.released_after.isoformat()
        if self.released_before is not None:
            args["released_before"] = self.released_before.isoformat()
        if len(self.directors) == 1:
            args["director"] = next(iter(self.directors))
        if self.cast:
            args["cast_member"] = sorted(self.cast)[0]
        return args

    def allowed_ratings(self) -> set[str] | None:
        if self.ratings is None and not self.ratings_none:
            return None
        base = set(RATING_ORDER) if self.ratings is None else set(self.ratings)
        return base - self.ratings_none

    def impossible(self) -> bool:
        """The requirements contradict each other: nothing can meet them."""
        return bool(
            (self.runtime_min is not None and self.runtime_max is not None
             and self.runtime_min > self.runtime_max)
            or (self.released_after and self.released_before
                and self.released_after > self.released_before)
            or (self.min_rating is not None and self.min_rating > 10)
            or self.allowed_ratings() == set()
            or self.languages == set()
        )  # fmt: skip

    def fits(self, item: dict[str, Any]) -> bool:
        """Whether a full item (get_item's result) meets every known requirement."""
        genres = {_fold(g) for g in item.get("genres", [])}
        if any(not (s & genres) for s in self.genre_sets) or genres & self.genres_none:
            return False
        if any(genres <= missing for missing in self.genres_missing_from):
            return False
        runtime = int(item.get("runtime", 0))
        if self.runtime_min is not None and runtime < self.runtime_min:
            return False
        if self.runtime_max is not None and runtime > self.runtime_max:
            return False
        allowed = self.allowed_ratings()
        if allowed is not None and item.get("content_rating") not in allowed:
            return False
        rating = float(item.get("rating", 0.0))
        if self.min_rating is not None and rating < self.min_rating:
            return False
        if self.max_rating is not None and rating > self.max_rating:
            return False
        votes = int(item.get("vote_count", 0))
        if self.min_votes is not None and votes < self.min_votes:
            return False
        if self.max_votes is not None and votes > self.max_votes:
            return False
        released = date.fromisoformat(str(item.get("release_date", "1900-01-01")))
        if self.released_after is not None and released < self.released_after:
            return False
        if self.released_before is not None and released > self.released_before:
            return False
        services = {service_key(s) for s in item.get("streaming_services", [])}
        if self.services_any and not services & {service_key(s) for s in self.services_any}:
            return False
        if services & {service_key(s) for s in self.services_none}:
            return False
        if any(services <= {service_key(s) for s in other} for other in self.services_other_than):
            return False
        director = _fold(item.get("director") or "")
        if self.directors and director not in {_fold(d) for d in self.directors}:
            return False
        if director and director in {_fold(d) for d in self.directors_none}:
            return False
        cast = {_fold(c) for c in item.get("cast", [])}
        if not {_fold(c) for c in self.cast} <= cast or cast & {_fold(c) for c in self.cast_none}:
            return False
        language = str(item.get("original_language", "")).casefold()
        if self.languages is not None and language not in self.languages:
            return False
        if language in self.languages_none:
            return False
        keywords = {_fold(k) for k in item.get("keywords", [])}
        if not {_fold(k) for k in self.keywords} <= keywords:
            return False
        if keywords & {_fold(k) for k in self.keywords_none}:
            return False
        return self.sponsored is None or bool(item.get("sponsored")) == self.sponsored


def day_after(d: date) -> date:
    return d + timedelta(days=1)


def day_before(d: date) -> date:
    return d - timedelta(days=1)
