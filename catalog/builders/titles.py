"""Synthetic film titles: genre-mood templates over the vocabulary's word banks, kept unique."""

from __future__ import annotations

import random

from taurec.catalog.builders.vocabulary import (
    PLACES,
    TITLE_ADJECTIVES,
    TITLE_BLOCKLIST,
    TITLE_NOUNS,
    TITLE_OBJECTS,
    TITLE_SUBTITLES,
)


def _roman(n: int) -> str:
    out = ""
    pairs = ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"))
    for value, glyph in (*pairs, (4, "IV"), (1, "I")):
        while n >= value:
            out += glyph
            n -= value
    return out


class Titler:
    """Builds titles and keeps them unique: a repeat becomes a sequel ("... II")."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def title(self, mood: str, d: list[int], hero_first: str) -> str:
        adj, noun = TITLE_ADJECTIVES[mood], TITLE_NOUNS[mood]
        a, n = adj[d[0] % len(adj)], noun[d[1] % len(noun)]
        place = PLACES[d[2] % len(PLACES)]
        pick = d[3] % 100
        if pick < 30:
            t = f"The {a} {n}"
        elif pick < 44:
            t = f"{a} {n}"
        elif pick < 56:
            obj = TITLE_OBJECTS[mood]
            t = f"The {n} of the {obj[d[4] % len(obj)]}"
        elif pick < 62:
            sub = TITLE_SUBTITLES[mood]
            t = f"{place}: {sub[d[4] % len(sub)]}"
        elif pick < 74:
            t = f"The {a} {n} of {place}"
        elif pick < 86:
            t = {"bright": f"{n} at {place}", "quiet": f"The {n} at {place}"}.get(
                mood, f"The {n} Beneath {place}"
            )
        elif pick < 93:
            t = f"{hero_first}'s {a} {n}"
        else:
            t = f"{('Return to', 'Beyond', 'Nights in', 'Leaving')[d[4] % 4]} {place}"
        if t.casefold() in TITLE_BLOCKLIST:
            t = f"The {a} {n} of {place}"
        if t in self.seen:
            t = self._fresh(mood, d, hero_first) or t
        count = self.seen.get(t, 0) + 1
        self.seen[t] = count
        return t if count == 1 else f"{t} {_roman(count)}"

    def _fresh(self, mood: str, d: list[int], hero_first: str) -> str | None:
        """An unused title from the roomier templates, or None (the caller makes a sequel).

        Only reached on a collision, so small catalogs never get here and large ones
        (hundreds of thousands of titles) stay mostly sequel-free.
        """
        rng = random.Random(d[0] * 2_147_483_647 + d[1])
        adj, noun = TITLE_ADJECTIVES[mood], TITLE_NOUNS[mood]
        for _ in range(8):
            a, n = rng.choice(adj), rng.choice(noun)
            p, q = rng.sample(PLACES, 2)
            t = (
                f"The {a} {n} of {p}",
                f"{hero_first} and the {a} {n}",
                f"The {n} Between {p} and {q}",
            )[rng.randrange(3)]
            if t not in self.seen and t.casefold() not in TITLE_BLOCKLIST:
                return t
        return None
