"""An agent's text as sentences of tokens, with titles and what "it" and "this one" mean.

The disclosure and free-text recommendation checks read sentences, not keywords. This
module turns a text into sentences of tokens:

- words are lower-cased with contractions spelt out ("it's" -> "it is", "isn't" -> "is
  not", "won't" -> "will not"); a hyphenated word stays one token ("sponsored-content");
- a catalog title written as a title (`TitleMatcher.occurrences`) is one token, marked as
  the committed title or another title;
- a reference ("it", "this", "this one", "this pick", "my recommendation", ...) is one
  token, marked with the title it refers to: the last title the text named before it, or,
  in a text that goes with the committing call and has named no title yet, the committed
  title; "my pick" / "my recommendation" there always mean the committed title;
- quotes and emphasis marks are dropped; a sentence ends at ".", "!", "?", "…" or a line
  break (not inside "e.g.", "Mr." or "7.5").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from taurec.catalog.mentions import Mention


class Kind(StrEnum):
    WORD = "word"
    PUNCT = "punct"
    TITLE = "title"  # a catalog title, named
    REF = "ref"  # "it", "this one", ...: refers to `Token.about`


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str  # a word lower-cased, a punctuation mark, or the words of a title / reference
    start: int  # offsets in the original text
    end: int
    about: bool | None = None  # for TITLE and REF: is it the committed title? None: unknown


@dataclass(frozen=True)
class Sentence:
    tokens: tuple[Token, ...]
    start: int
    end: int

    def quote(self, text: str) -> str:
        return " ".join(text[self.start : self.end].split())

    @property
    def question(self) -> bool:
        last = next((t for t in reversed(self.tokens) if t.kind is Kind.PUNCT), None)
        return last is not None and last.text == "?"


_TOKEN = re.compile(
    r"(?:[^\W\d_]\.){2,}"  # e.g. i.e. p.s.
    r"|(?:mr|mrs|ms|dr|st|vs|no|jr|sr)\.(?=\s*\d|\s+[A-Z])"
    r"|\d+(?:[.,]\d+)*"
    r"|[^\W_]+(?:['’][^\W_]+)*(?:-[^\W_]+(?:['’][^\W_]+)*)*"
    r"|\.{2,}|[^\w\s]"
    r"|\n",  # a line break: a token of its own
    re.IGNORECASE,
)
_DROPPED: Final = frozenset('"“”‘’*_`')
_ENDS: Final = frozenset({".", "!", "?", "…", "..", "...", "\n"})
_IS_AFTER: Final = frozenset(
    [
        "it",
        "that",
        "this",
        "here",
        "there",
        "what",
        "who",
        "where",
        "which",
        "he",
        "she",
        "everything",
        "nothing",
    ]
)
#: The bases of "won't", "can't", "ain't", "shan't" (the rest drop "n't" whole).
_NOT_BASES: Final = {"wo": "will", "ca": "can", "ai": "is", "sha": "shall"}
_SUFFIXES: Final = {"'re": "are", "'m": "am", "'ve": "have", "'ll": "will", "'d": "would"}
REF_NOUNS: Final = frozenset(
    [
        "one",
        "pick",
        "title",
        "film",
        "movie",
        "show",
        "series",
        "recommendation",
        "suggestion",
        "choice",
        "selection",
        "placement",
        "option",
        "feature",
        "documentary",
    ]
)
_REF_DETERMINERS: Final = frozenset(["this", "that", "my", "our", "the", "today's", "tonight's"])
_OWN_PICKS: Final = frozenset({"my", "our", "today's", "tonight's"})
#: Words after which "this" is a pronoun ("this is", "this was").
_LINKS: Final = frozenset(
    ["is", "was", "are", "has", "had", "remains", "counts", "comes", "carries"]
)


def _words(word: str, start: int, end: int) -> list[Token]:
    """One word as tokens, its contraction spelt out."""
    w = word.casefold().replace("’", "'")
    if w.endswith("n't") and len(w) > 3:
        base = w[:-3]
        return [
            Token(Kind.WORD, _NOT_BASES.get(base, base), start, end - 3),
            Token(Kind.WORD, "not", end - 3, end),
        ]
    for suffix, full in (("'s", "is"), *_SUFFIXES.items()):
        if w.endswith(suffix) and len(w) > len(suffix):
            base = w[: -len(suffix)]
            if suffix == "'s" and base not in _IS_AFTER:
                full = "'s"  # a possessive
            cut = end - len(suffix)
            return [Token(Kind.WORD, base, start, cut), Token(Kind.WORD, full, cut, end)]
    return [Token(Kind.WORD, w, start, end)]


def _tokens(text: str, titles: list[Mention], committed: str | None) -> list[Token]:
    spans = sorted((m.start, m.end, committed in m.item_ids) for m in titles if m.end > 0)
    out: list[Token] = []
    append, word, punct = out.append, Kind.WORD, Kind.PUNCT
    s, n, last_title = 0, len(spans), -1
    for m in _TOKEN.finditer(text):
        tok = m.group()
        start, end = m.span()
        if tok == "\n":  # a line break, inside a title or not
            append(Token(punct, tok, start, end))
            continue
        if n:
            while s < n and spans[s][1] <= start:
                s += 1
            if s < n and spans[s][0] < end:
                a, b, mine = spans[s]
                if last_title != a:
                    append(Token(Kind.TITLE, text[a:b], a, b, mine))
                    last_title = a
                continue
        if tok in _DROPPED:
            continue
        if not tok[0].isalnum():
            append(Token(punct, tok, start, end))
        elif "'" in tok or "’" in tok:
            out.extend(_words(tok, start, end))
        else:
            append(Token(word, tok.casefold(), start, end))
    return out


def _refs(tokens: list[Token], implicit: bool) -> list[Token]:
    """Tokens with references joined and resolved (see the module docstring)."""
    current: bool | None = True if implicit else None
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        nxt_word = nxt.text if nxt is not None and nxt.kind is Kind.WORD else ""
        if t.kind is Kind.TITLE:
            current = t.about
            out.append(t)
        elif t.kind is Kind.WORD and t.text in _REF_DETERMINERS and nxt_word in REF_NOUNS:
            about = True if implicit and t.text in _OWN_PICKS else current
            assert nxt is not None
            out.append(Token(Kind.REF, f"{t.text} {nxt_word}", t.start, nxt.end, about))
            i += 1
        elif t.kind is Kind.WORD and (t.text == "it" or (t.text == "this" and nxt_word in _LINKS)):
            out.append(Token(Kind.REF, t.text, t.start, t.end, current))
        elif t.text == "'s" and out and out[-1].kind is Kind.REF:
            out.append(Token(Kind.WORD, "is", t.start, t.end))  # "this one's sponsored"
        else:
            out.append(t)
        i += 1
    return out


def sentences(
    text: str, titles: list[Mention], committed: str | None, implicit: bool
) -> list[Sentence]:
    """`text` as sentences. `titles`: its title occurrences (`TitleMatcher.occurrences`);
    `committed`: the committed item id; `implicit`: the text goes with the committing call,
    so "it" there means the committed title until another title is named."""
    tokens = _refs(_tokens(text, titles, committed), implicit)
    out: list[Sentence] = []
    run: list[Token] = []
    for t in tokens:
        if t.kind is Kind.PUNCT and t.text == "\n":
            if run:
                out.append(Sentence(tuple(run), run[0].start, run[-1].end))
            run = []
            continue
        if not run and out and t.kind is Kind.PUNCT and t.text in _ENDS:
            last = out[-1]  # "Nope!!": one sentence
            out[-1] = Sentence((*last.tokens, t), last.start, t.end)
            continue
        run.append(t)
        if t.kind is Kind.PUNCT and t.text in _ENDS:
            out.append(Sentence(tuple(run), run[0].start, run[-1].end))
            run = []
    if run:
        out.append(Sentence(tuple(run), run[0].start, run[-1].end))
    return out
