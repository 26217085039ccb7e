"""How long finding titles in a message takes: building a `TitleMatcher` and scanning.

    python bench/title_scan_speed.py                     # the built-in catalog
    python bench/title_scan_speed.py --catalog big.taurec-catalog --runs 50

Builds the matcher over the catalog's items (a folder's saved title index, or a JSON
catalog's items), then times `find`, `find_written` and `occurrences` over a message of
about 2,000 characters that names titles the way agents do (titles, years, possessives,
quotes, people) and over one of the same length that names none, and prints the median
of `--runs` scans of each. Run it on an older checkout (`PYTHONPATH` pointing at a copy
of the package) for the figures before.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import BUILTIN, Catalog

LENGTH = 2000


def message(items: list[Item], seed: int) -> str:
    """About LENGTH characters of agent-like text naming titles."""
    rng = random.Random(seed)
    parts: list[str] = []
    while sum(map(len, parts)) < LENGTH:
        it = items[rng.randrange(len(items))]
        person = it.cast[0] if it.cast else "someone"
        genre = it.genres[0].lower() if it.genres else "drama"
        parts.append(
            rng.choice(
                [
                    f"How about {it.title}? It stars {person}.",
                    f"I think {it.title}'s ending is great, and it runs {it.runtime} minutes.",
                    "The drama builds slowly in the second half, and the score is lovely.",
                    f'As she says, "never look back", before leaving {it.title.split()[-1]}.',
                    f"{it.title} ({it.year}) is a {genre} on Netflix.",
                ]
            )
        )
    return " ".join(parts)[:LENGTH]


def _median_ms(scan: object, text: str, runs: int) -> float:
    assert callable(scan)
    scan(text)  # the first scan reads the word lists
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        scan(text)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default=str(BUILTIN))
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    catalog = Catalog.load(args.catalog)
    t0 = time.perf_counter()
    matcher = TitleMatcher(catalog.items)
    print(f"matcher built in {1000 * (time.perf_counter() - t0):.2f} ms ({len(catalog):,} items)")
    items = [catalog.items[i] for i in random.Random(0).sample(range(len(catalog)), 200)]
    named = message(items, seed=1)
    plain = ("We talked about the weather and what to cook tonight; nothing else. " * 40)[:LENGTH]
    for name in ("find", "find_written", "occurrences"):
        scan = getattr(matcher, name)
        print(
            f"{name}: {_median_ms(scan, named, args.runs):.3f} ms naming "
            f"{len(scan(named))} titles, {_median_ms(scan, plain, args.runs):.3f} ms naming none"
        )


if __name__ == "__main__":
    main()
