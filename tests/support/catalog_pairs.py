"""One catalog as a JSON file and as a catalog folder, and messages that name its titles."""

from __future__ import annotations

import random
from pathlib import Path

from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog


def json_and_folder(tmp: Path, cat: Catalog) -> tuple[Catalog, Catalog]:
    """`cat` loaded from a JSON file, and opened from a catalog folder written from it."""
    path = write_catalog_file(tmp / "cat.json", cat.meta, cat.items)
    folder = write_catalog_folder(tmp / "cat.taurec-catalog", cat.meta, cat.items)
    return Catalog.load(path), Catalog.load(folder)


def _misspelt(title: str, rng: random.Random) -> str:
    if len(title) < 6:
        return title
    at = rng.randrange(1, len(title) - 1)
    return title[:at] + title[at + 1 :]


def messages_naming_titles(items: list[Item], n: int, seed: int) -> list[str]:
    """Agent-like messages: exact, lower-cased, quoted and misspelt titles, people's names
    (with possessives), genres and questions, so every matching rule has work to do."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c = rng.choice(items), rng.choice(items), rng.choice(items)
        person = rng.choice([*a.cast, a.director or "Nobody Here"])
        genre = rng.choice(b.genres) if b.genres else "drama"
        out += [
            f"How about {a.title}? It stars {person}.",
            f'Have you seen "{_misspelt(b.title, rng)}" or {c.title.lower()}?',
            f"I found {_misspelt(c.title, rng)} and {b.title}, both {genre}. {person}'s best.",
            f"Do you like {genre} films from {a.release_date.year}? Maybe {a.title.upper()}.",
        ]
    return out
