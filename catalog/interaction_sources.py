"""Naming an interaction data set in one string (a suite's `data.interactions`, the
`--interactions` option):

- `synthetic` or `synthetic:users=2000,interactions=20000,seed=0`: generated over the
  catalog (see builders/synthetic_interactions.py), the offline default;
- `movielens:PATH` (a folder in the u.data or ratings.csv layout) or `movielens:recbole`;
  `movielens-catalog:PATH` (or `:recbole`) maps its movies onto the catalog's items by
  title and year (see movielens_mapping.py);
- `amazon:REVIEWS.jsonl,META.jsonl[;OPTION]...`: Amazon Reviews 2023 (`.jsonl.gz` too),
  with a time window, category and minimum-records options (see amazon_source.py).
"""

from __future__ import annotations

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions
from taurec.catalog.store import Catalog

SOURCES = (
    "synthetic[:users=N,interactions=N,seed=N], movielens:PATH|recbole, "
    "movielens-catalog:PATH|recbole, "
    "amazon:REVIEWS,META[;window=agenticrec|since=DATE;until=DATE][;category=NAME]"
)


def load_interactions(spec: str, catalog: Catalog | None = None) -> Interactions:
    kind, _, arg = spec.partition(":")
    if kind == "synthetic":
        from taurec.catalog.builders.synthetic_interactions import (
            SyntheticSpec,
            generate_interactions,
        )

        params: dict[str, int] = {}
        for part in filter(None, arg.split(",")):
            key, _, value = part.partition("=")
            if key not in ("users", "interactions", "seed") or not value.lstrip("-").isdigit():
                raise DataError(
                    f"bad synthetic parameter {part!r}; expected users=N, interactions=N, seed=N",
                    source=spec,
                )
            params[key] = int(value)
        items = list((catalog or Catalog.load("builtin")).items)
        return generate_interactions(items, SyntheticSpec(**params))
    if kind == "movielens" and arg:
        from taurec.catalog.movielens import read_movielens

        return read_movielens(arg)
    if kind == "movielens-catalog" and arg:
        from taurec.catalog.movielens import read_movielens
        from taurec.catalog.movielens_mapping import map_onto_catalog

        mapped, _ = map_onto_catalog(
            read_movielens(arg), list((catalog or Catalog.load("builtin")).items)
        )
        return mapped
    if kind == "amazon" and arg:
        from taurec.catalog.amazon_source import load_amazon_source

        return load_amazon_source(arg, spec)
    raise DataError(f"unknown interaction source; expected one of {SOURCES}", source=spec)
