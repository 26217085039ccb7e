"""Streaming-service names: one canonical spelling per service, many accepted aliases.

"Prime Video", "amazon prime video" and "Amazon  Prime" all mean one service; so do
"HBO Max" and "Max". Matching is case-, spacing- and punctuation-insensitive.
"""

from __future__ import annotations

import re
from functools import lru_cache

# canonical name -> aliases (the canonical name itself is always accepted)
SERVICE_ALIASES: dict[str, tuple[str, ...]] = {
    "Netflix": ("netflix standard with ads", "netflix basic", "netflix kids"),
    "Amazon Prime Video": ("prime video", "amazon prime", "amazon video", "prime"),
    "Hulu": ("hulu with ads", "hulu no ads"),
    "HBO Max": ("max", "hbo", "hbomax", "max amazon channel", "hbo max amazon channel"),
    "Disney+": ("disney plus", "disney"),
    "Apple TV+": ("apple tv plus", "apple tv", "appletv+"),
    "Paramount+": ("paramount plus", "paramount+ with showtime", "paramount plus premium"),
    "Peacock": ("peacock premium", "peacock premium plus"),
    "Starz": ("starz amazon channel",),
    "AMC+": ("amc plus", "amc+ amazon channel"),
    "MGM+": ("mgm plus", "epix"),
    "Shudder": ("shudder amazon channel",),
    "MUBI": ("mubi amazon channel",),
    "Criterion Channel": ("the criterion channel", "criterion"),
    "Philo": (),
    "fuboTV": ("fubo", "fubo tv"),
    "Sundance Now": (),
    "Tubi": ("tubi tv",),
    "Pluto TV": ("pluto",),
    "Kanopy": (),
    "Crunchyroll": (),
    "BritBox": ("brit box",),
    "Angel Studios": (),
}


def _key(name: str) -> str:
    # "+" is meaningful ("Disney+"), so it is spelled out before punctuation is dropped.
    s = name.casefold().replace("+", " plus ").replace("&", " and ")
    return re.sub(r"[^0-9a-z]+", "", s)


@lru_cache(maxsize=1)
def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for canonical, aliases in SERVICE_ALIASES.items():
        for alias in (canonical, *aliases):
            table[_key(alias)] = canonical
    return table


@lru_cache(maxsize=4096)
def canonical_service(name: str) -> str:
    """The canonical spelling of a service name; an unknown name comes back trimmed.

    Unknown services are kept (catalogs from other sources name services we have never
    heard of) but still compare case- and spacing-insensitively through `service_key`.
    """
    return _alias_table().get(_key(name), " ".join(name.split()))


@lru_cache(maxsize=4096)
def service_key(name: str) -> str:
    """A comparison key: equal keys mean the same service."""
    return _key(canonical_service(name))


def known_service(name: str) -> bool:
    return _key(name) in _alias_table()
