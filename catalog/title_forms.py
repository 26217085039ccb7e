"""The spellings under which text may name a catalog title: its reading forms.

Catalogs built from MovieLens write a title as "Usual Suspects, The (1995)"; people write
"The Usual Suspects", now and then "The Usual Suspects (1995)" or "Usual Suspects, The".
Besides the title as the catalog writes it, text may name it:

- without a year in brackets at its end: "Toy Story (1995)" is named by "Toy Story" (the
  year, written after the name, is read as a year: `TitleMatcher`, catalog/mentions.py);
- with an article after a final comma moved to the front: "Usual Suspects, The" is named
  by "The Usual Suspects" (the articles of `ARTICLES`, the ones MovieLens moves: English,
  French, Italian, Spanish, German); "L'" joins the word after it: "Avventura, L'" is
  "L'Avventura";
- by a second name in brackets at its end (a year aside): "Seven (Se7en)" is also named by
  "Se7en", "Star Maker, The (Uomo delle stelle, L')" also by "L'Uomo delle stelle".

The reverse, text that puts an article last ("Usual Suspects, The") for a catalog title
that puts it first ("The Usual Suspects"), is the matcher's reading of text
(`article_first`). `title_tokens` of a title is never changed: task hashes and saved
catalog folders depend on it; these forms are extra keys beside it.
"""

from __future__ import annotations

import re
from typing import Final

from taurec.catalog.tokens import title_tokens

#: The articles a catalog may move behind a title ("Usual Suspects, The").
ARTICLES: Final = ("the", "a", "an", "les", "la", "le", "il", "el", "die", "der", "das", "l'")
#: The same articles as title tokens ("l'" is the token "l").
ARTICLE_TOKENS: Final = frozenset(a.rstrip("'") for a in ARTICLES)

_ARTICLE_ALTERNATIVES = "|".join(re.escape(a) for a in ARTICLES)
#: a year in brackets at the end of a title, "(1995)" or "(1995 film)"
_YEAR_AT_END = re.compile(
    r"\s*[(\[]\s*(?:18|19|20)\d\d(?:\s+(?:film|movie|series|miniseries|documentary))?\s*[)\]]\s*$",
    re.IGNORECASE,
)
_NAME_AT_END = re.compile(r"\s*\(([^()]*[^\W\d_][^()]*)\)\s*$")
_ARTICLE_AT_END = re.compile(rf"^(.*\S),\s*({_ARTICLE_ALTERNATIVES})\s*$", re.IGNORECASE)

Key = tuple[str, ...]


def article_first(name: str) -> str | None:
    """`name` with a final ", <article>" moved to the front ("Usual Suspects, The" is "The
    Usual Suspects", "Avventura, L'" is "L'Avventura"), or None when it ends in none."""
    found = _ARTICLE_AT_END.match(name.strip())
    if found is None:
        return None
    rest, article = found.group(1), found.group(2)
    return f"{article}{rest}" if article.endswith("'") else f"{article} {rest}"


def reading_forms(title: str) -> list[str]:
    """Every spelling text may name `title` by (the module docstring), the title first."""
    rest = title.strip()
    year = _YEAR_AT_END.search(rest)
    if year is not None and year.start() > 0:
        rest = rest[: year.start()]
    names: list[str] = []
    while (second := _NAME_AT_END.search(rest)) is not None and second.start() > 0:
        names.append(second.group(1).strip())
        rest = rest[: second.start()]
    names.insert(0, rest.strip())
    forms = [title]
    for name in names:
        fronted = article_first(name)
        forms += [name] if fronted is None else [name, fronted]
    return list(dict.fromkeys(f for f in forms if f))


def reading_keys(title: str) -> list[tuple[Key, str]]:
    """(tokens, spelling) of each reading form of `title` whose tokens differ from the
    title's own (`title_tokens(title)`, the key every catalog index already holds)."""
    if "(" not in title and "[" not in title and "," not in title:
        return []  # the common case, and the hot loop of indexing a large catalog
    own = title_tokens(title)
    keys: dict[Key, str] = {}
    for form in reading_forms(title)[1:]:
        tokens = title_tokens(form)
        if tokens and tokens != own:
            keys.setdefault(tokens, form)
    return list(keys.items())
