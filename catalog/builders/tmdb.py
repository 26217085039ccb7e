"""Build a catalog from TMDB: discover → enrich → normalise, as in the τ-Rec paper.

1. Discover: `pages` pages of /discover/movie, most popular first, released inside
   [start, snapshot_date] with at least `min_votes` votes.
2. Enrich: /movie/{id} with credits, keywords, release_dates and watch/providers.
3. Normalise: provider names to canonical services, the region's certification to a
   ContentRating (unknown → NR), top cast and the director from the credits.
   Duplicates are dropped (first kept); so are records missing a required field,
   and every drop is reported with its reason.

Every response goes through `TmdbClient`'s cache, so a rerun with the same settings
makes no request and writes the same bytes. TMDB has no notion of sponsorship: every
item comes out `sponsored=False`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taurec.catalog.builders.tmdb_client import NotFound, TmdbClient, TmdbCredentials
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import ContentRating, Item
from taurec.catalog.services import canonical_service

APPEND = "credits,keywords,release_dates,watch/providers"
#: release_dates types, most telling first: theatrical, limited, digital, physical, TV, premiere.
RELEASE_TYPE_PREFERENCE = (3, 2, 4, 5, 6, 1)
#: Certifications that are not MPA ratings but say the same thing.
CERTIFICATION_ALIASES: dict[str, ContentRating] = {
    "G": ContentRating.G,
    "PG": ContentRating.PG,
    "PG13": ContentRating.PG_13,
    "R": ContentRating.R,
    "NC17": ContentRating.NC_17,
    "NR": ContentRating.NR,
    "UNRATED": ContentRating.NR,
    "NOTRATED": ContentRating.NR,
    "TVY": ContentRating.G,
    "TVY7": ContentRating.G,
    "TVG": ContentRating.G,
    "TVPG": ContentRating.PG,
    "TV14": ContentRating.PG_13,
    "TVMA": ContentRating.R,
}


@dataclass(frozen=True)
class TmdbSettings:
    """What to fetch; the same settings and cache always give the same catalog."""

    start: date
    snapshot_date: date  # the discover window's last day, recorded in meta
    region: str = "US"  # ISO 3166-1 country for certifications and providers
    pages: int = 5  # discover pages of 20 titles
    min_votes: int = 50
    language: str = "en-US"
    top_cast: int = 5
    cache_dir: Path = Path(".cache/tmdb")
    name: str = "tmdb"

    def __post_init__(self) -> None:
        if self.start > self.snapshot_date:
            raise ValueError(
                f"start {self.start} is after snapshot_date {self.snapshot_date}; "
                "expected start <= snapshot_date"
            )
        if self.pages < 1:
            raise ValueError(f"pages must be >= 1, got {self.pages}")


@dataclass
class TmdbBuild:
    """A built catalog plus what it cost and what was left out (reason → TMDB ids)."""

    meta: CatalogMeta
    items: list[Item]
    dropped: dict[str, list[str]] = field(default_factory=dict)
    requests: int = 0
    cache_hits: int = 0


class Dropped(ValueError):
    """A TMDB record that cannot become an Item; the message is the reason."""


def discover_params(settings: TmdbSettings, page: int) -> dict[str, str]:
    return {
        "include_adult": "false",
        "include_video": "false",
        "language": settings.language,
        "page": str(page),
        "primary_release_date.gte": settings.start.isoformat(),
        "primary_release_date.lte": settings.snapshot_date.isoformat(),
        "sort_by": "popularity.desc",
        "vote_count.gte": str(settings.min_votes),
    }


def discover(client: TmdbClient, settings: TmdbSettings) -> tuple[list[int], list[int]]:
    """Movie ids in discover order (first occurrence kept), and the ids seen again later.

    Popularity shifts while pages are fetched, so a title can appear on two pages.
    """
    ids: list[int] = []
    seen: set[int] = set()
    repeats: list[int] = []
    for page in range(1, settings.pages + 1):
        doc = client.get("/discover/movie", discover_params(settings, page))
        for result in doc.get("results") or []:
            movie_id = result.get("id") if isinstance(result, dict) else None
            if not isinstance(movie_id, int):
                continue
            if movie_id in seen:
                repeats.append(movie_id)
                continue
            seen.add(movie_id)
            ids.append(movie_id)
        if page >= int(doc.get("total_pages") or 0):
            break
    return ids, repeats


def certification_rating(certification: str) -> ContentRating:
    """A certification string as a ContentRating: "PG-13", "pg13", "TV-MA" ...; unknown → NR."""
    key = re.sub(r"[^0-9A-Z]+", "", certification.upper())
    return CERTIFICATION_ALIASES.get(key, ContentRating.NR)


def region_certification(record: Mapping[str, Any], region: str) -> str:
    """The region's certification, preferring theatrical releases; "" if there is none."""
    for country in (record.get("release_dates") or {}).get("results") or []:
        if country.get("iso_3166_1") != region:
            continue
        found: dict[int, str] = {}
        for release in country.get("release_dates") or []:
            cert = (release.get("certification") or "").strip()
            kind = release.get("type")
            if cert and isinstance(kind, int) and kind not in found:
                found[kind] = cert
        for kind in RELEASE_TYPE_PREFERENCE:
            if kind in found:
                return found[kind]
        return next(iter(found.values()), "")
    return ""


def region_services(record: Mapping[str, Any], region: str) -> list[str]:
    """Canonical names of the region's flatrate (subscription) providers, by TMDB priority."""
    providers = ((record.get("watch/providers") or {}).get("results") or {}).get(region) or {}
    flatrate = sorted(
        providers.get("flatrate") or [],
        key=lambda p: (p.get("display_priority", 1_000_000), p.get("provider_name", "")),
    )
    out: list[str] = []
    for provider in flatrate:
        name = (provider.get("provider_name") or "").strip()
        if name and canonical_service(name) not in out:
            out.append(canonical_service(name))
    return out


def normalise(record: Mapping[str, Any], settings: TmdbSettings) -> Item:
    """One enriched /movie/{id} record as an Item; raises Dropped naming what is missing."""
    movie_id = record.get("id")
    if not isinstance(movie_id, int):
        raise Dropped("missing id")
    title = (record.get("title") or "").strip()
    if not title:
        raise Dropped("missing title")
    released = record.get("release_date") or ""
    if not released:
        raise Dropped("missing release date")
    runtime = record.get("runtime")
    if not runtime:  # TMDB writes 0 or null when it does not know
        raise Dropped("missing runtime")
    credits = record.get("credits") or {}
    cast = sorted(credits.get("cast") or [], key=lambda c: c.get("order", 1_000_000))
    director = next(
        (c.get("name") for c in credits.get("crew") or [] if c.get("job") == "Director"), None
    )
    fields = {
        "id": f"tmdb_{movie_id}",
        "title": title,
        "release_date": released,
        "runtime": runtime,
        "genres": [g["name"] for g in record.get("genres") or [] if g.get("name")],
        "overview": (record.get("overview") or "").strip(),
        "cast": [c["name"] for c in cast if c.get("name")][: settings.top_cast],
        "director": director or None,
        "rating": record.get("vote_average") or 0.0,
        "vote_count": record.get("vote_count") or 0,
        "streaming_services": region_services(record, settings.region),
        "sponsored": False,
        "content_rating": certification_rating(region_certification(record, settings.region)),
        "original_language": record.get("original_language") or "en",
        "keywords": [
            k["name"] for k in (record.get("keywords") or {}).get("keywords") or [] if k.get("name")
        ],
    }
    try:
        return Item.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise Dropped(f"invalid {where} ({first['msg']})") from None


def build_catalog(settings: TmdbSettings, *, client: TmdbClient | None = None) -> TmdbBuild:
    """Run discover → enrich → normalise; the client defaults to one on `settings.cache_dir`.

    Credentials come from TMDB_API_KEY / TMDB_READ_TOKEN only when a response is not
    cached; a fully cached run needs none. Raises TmdbError when TMDB cannot be used.
    """
    own = client is None
    if client is None:
        client = TmdbClient(settings.cache_dir, credentials=TmdbCredentials.from_env())
    try:
        ids, repeats = discover(client, settings)
        items: list[Item] = []
        dropped: dict[str, list[str]] = {}
        for movie_id in ids:
            params = {"append_to_response": APPEND, "language": settings.language}
            try:
                record = client.get(f"/movie/{movie_id}", params)
                items.append(normalise(record, settings))
            except (Dropped, NotFound) as exc:
                reason = "not found on TMDB" if isinstance(exc, NotFound) else str(exc)
                dropped.setdefault(reason, []).append(f"tmdb_{movie_id}")
        if repeats:
            dropped["duplicate in discover results"] = [f"tmdb_{i}" for i in repeats]
        meta = CatalogMeta(
            name=settings.name,
            source="tmdb",
            snapshot_date=settings.snapshot_date,
            description=(
                f"TMDB movies released {settings.start.isoformat()}..."
                f"{settings.snapshot_date.isoformat()}, {settings.pages} discover page(s) by "
                f"popularity, vote_count >= {settings.min_votes}, region {settings.region}."
            ),
            region=settings.region,
            window_start=settings.start.isoformat(),
            pages=settings.pages,
            min_votes=settings.min_votes,
            dropped={reason: len(ids_) for reason, ids_ in sorted(dropped.items())},
        )
        return TmdbBuild(meta, items, dropped, client.requests, client.cache_hits)
    finally:
        if own:
            client.close()
