"""MovieLens in its published layouts: `u.data` + `u.item` (100K) and `ratings.csv` +
`movies.csv` (the later releases), read from a folder; and the copy of MovieLens-100K
that the `recbole` wheel ships (atomic files `ml-100k.inter` / `ml-100k.item`), read with
importlib.resources when recbole is installed. Its licence forbids redistribution: the
project ships none of it. Items keep MovieLens ids (prefixed `ml`) and titles.
"""

from __future__ import annotations

import csv
import importlib.resources
import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, ItemInfo

#: The genre flags of u.item, in file order.
U_ITEM_GENRES = (
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
    "Romance", "Sci-Fi", "Thriller", "War", "Western",
)  # fmt: skip
RATINGS_COLUMNS = ("userId", "movieId", "rating", "timestamp")
MOVIES_COLUMNS = ("movieId", "title", "genres")


def _int(value: str, source: Path | str, line: int, column: str) -> int:
    try:
        return int(float(value))
    except ValueError:
        raise DataError(
            f"line {line}: column {column!r} is {value!r}; expected a number", source=source
        ) from None


def _build(
    source: str,
    items: dict[str, ItemInfo],
    rows: Iterable[tuple[str, str, float, int]],
) -> Interactions:
    users: dict[str, int] = {}
    order = list(items)
    index = {k: i for i, k in enumerate(order)}
    u_col, i_col, r_col, t_col = [], [], [], []
    for user, item, rating, t in rows:
        if item not in index:
            raise DataError(
                f"rating of item {item!r}, which the item file does not list", source=source
            )
        u_col.append(users.setdefault(user, len(users)))
        i_col.append(index[item])
        r_col.append(rating)
        t_col.append(t)
    return Interactions.build(
        source,
        [items[k] for k in order],
        list(users),
        np.array(u_col, dtype=np.int32),
        np.array(i_col, dtype=np.int32),
        np.array(r_col, dtype=np.float32),
        np.array(t_col, dtype=np.int64),
    )


def _year(title: str) -> dict[str, str]:
    tail = title.rstrip()[-6:]
    return {"Year": tail[1:5]} if tail.startswith("(") and tail[1:5].isdigit() else {}


def read_u_files(data: str, item: str, source: str) -> Interactions:
    """The 100K layout: tab-separated u.data, pipe-separated latin-1 u.item."""
    items: dict[str, ItemInfo] = {}
    for n, line in enumerate(item.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split("|")
        if len(cols) != 5 + len(U_ITEM_GENRES):
            raise DataError(
                f"line {n}: {len(cols)} '|'-separated columns; expected 24 (movie id | title | "
                "release date | video release date | IMDb URL | 19 genre flags)",
                source=f"{source}/u.item",
            )
        flags = [g for g, f in zip(U_ITEM_GENRES, cols[5:], strict=True) if f.strip() == "1"]
        mid = f"ml{_int(cols[0], f'{source}/u.item', n, 'movie id')}"
        items[mid] = ItemInfo(
            id=mid, title=cols[1] or mid, categories=flags, attributes=_year(cols[1])
        )

    def rows() -> Iterable[tuple[str, str, float, int]]:
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            cols = line.split("\t")
            where = f"{source}/u.data"
            if len(cols) != 4:
                raise DataError(
                    f"line {n}: {len(cols)} tab-separated columns; expected 4 (user id, item id, "
                    "rating, timestamp)",
                    source=where,
                )
            yield (
                str(_int(cols[0], where, n, "user id")),
                f"ml{_int(cols[1], where, n, 'item id')}",
                float(_int(cols[2], where, n, "rating")),
                _int(cols[3], where, n, "timestamp"),
            )

    return _build(f"movielens:{source}", items, rows())


def _csv(text: str, expected: tuple[str, ...], source: Path) -> csv.DictReader[str]:
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    missing = [c for c in expected if c not in header]
    if missing:
        raise DataError(
            f"has no column {missing[0]!r} (header: {', '.join(header) or 'empty'}); expected "
            f"the columns {', '.join(expected)}",
            source=source,
        )
    return reader


def read_csv_files(folder: Path) -> Interactions:
    """The later layout: ratings.csv (userId,movieId,rating,timestamp) and movies.csv
    (movieId,title,genres with '|' between genres)."""
    movies, ratings = folder / "movies.csv", folder / "ratings.csv"
    items: dict[str, ItemInfo] = {}
    for n, row in enumerate(_csv(movies.read_text(encoding="utf-8"), MOVIES_COLUMNS, movies), 2):
        mid = f"ml{_int(row['movieId'], movies, n, 'movieId')}"
        genres = [g for g in (row["genres"] or "").split("|") if g and g != "(no genres listed)"]
        title = row["title"] or mid
        items[mid] = ItemInfo(id=mid, title=title, categories=genres, attributes=_year(title))
    reader = _csv(ratings.read_text(encoding="utf-8"), RATINGS_COLUMNS, ratings)

    def rows() -> Iterable[tuple[str, str, float, int]]:
        for n, row in enumerate(reader, 2):
            try:
                rating = float(row["rating"])
            except ValueError:
                raise DataError(
                    f"line {n}: column 'rating' is {row['rating']!r}; expected a number",
                    source=ratings,
                ) from None
            yield (
                row["userId"],
                f"ml{_int(row['movieId'], ratings, n, 'movieId')}",
                rating,
                _int(row["timestamp"], ratings, n, "timestamp"),
            )

    return _build(f"movielens:{folder}", items, rows())


def read_movielens(path: str | Path) -> Interactions:
    """A MovieLens folder in either layout, or "recbole" for the copy in the recbole wheel."""
    if str(path) == "recbole":
        return read_recbole()
    folder = Path(path)
    if (folder / "u.data").is_file():
        return read_u_files(
            (folder / "u.data").read_text(encoding="latin-1"),
            (folder / "u.item").read_text(encoding="latin-1")
            if (folder / "u.item").is_file()
            else _missing(folder / "u.item"),
            str(folder),
        )
    if (folder / "ratings.csv").is_file():
        if not (folder / "movies.csv").is_file():
            _missing(folder / "movies.csv")
        return read_csv_files(folder)
    raise DataError(
        "holds neither u.data + u.item nor ratings.csv + movies.csv; expected a MovieLens "
        "folder (or 'recbole' for the copy in the recbole package)",
        source=folder,
    )


def _missing(path: Path) -> str:
    raise DataError("no such file; expected it next to the ratings", source=path)


def read_recbole() -> Interactions:
    """MovieLens-100K as the recbole wheel ships it (`pip install --no-deps recbole`)."""
    try:
        root = importlib.resources.files("recbole") / "dataset_example" / "ml-100k"
    except ModuleNotFoundError:
        raise DataError(
            "the recbole package is not installed; expected `pip install --no-deps recbole` "
            "(it ships MovieLens-100K) or a MovieLens folder path",
            source="movielens:recbole",
        ) from None
    inter = (root / "ml-100k.inter").read_text(encoding="utf-8").splitlines()
    item_lines = (root / "ml-100k.item").read_text(encoding="utf-8").splitlines()
    head = item_lines[0].split("\t")
    col = {name.split(":")[0]: k for k, name in enumerate(head)}
    items: dict[str, ItemInfo] = {}
    for line in item_lines[1:]:
        cols = line.split("\t")
        mid = f"ml{cols[col['item_id']]}"
        year = cols[col["release_year"]] if "release_year" in col else ""
        genres = cols[col["class"]].split() if "class" in col else []
        items[mid] = ItemInfo(
            id=mid,
            title=cols[col["movie_title"]] or mid,
            categories=genres,
            attributes={"Year": year} if year else {},
        )
    head = inter[0].split("\t")
    ic = {name.split(":")[0]: k for k, name in enumerate(head)}

    def rows() -> Iterable[tuple[str, str, float, int]]:
        for line in inter[1:]:
            c = line.split("\t")
            yield (
                c[ic["user_id"]],
                f"ml{c[ic['item_id']]}",
                float(c[ic["rating"]]),
                int(float(c[ic["timestamp"]])),
            )

    return _build("movielens:recbole", items, rows())
