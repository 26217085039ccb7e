"""The Gymnasium space of taurec's text: `UnicodeText`, a `gymnasium.spaces.Text` whose
charset is every assigned Unicode character that text can hold, and `in_charset`, which
makes an observation a member of it.

Gymnasium's Text takes a finite charset, and no charset holds arbitrary Unicode (a
string may carry any of 1,114,112 code points, and Text indexes every character of its
set). The charset chosen here is what an episode's text is made of: every character of
the Unicode version Python knows (`unicodedata.unidata_version`) except control
characters (tab, newline and carriage return are kept), surrogates, private-use and
unassigned code points; about 145,000 characters, letters and emoji of every script
included. The environment shows any other character of an observation as U+FFFD (the
replacement character) so that every observation is in the space; catalog and dialogue
text almost never holds one. Actions are not filtered: `step` reads any str.

The tables are built once per process and shared by every space (plain Text would copy
them per space, ~14 MB each), and the repr names the charset instead of printing it.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from gymnasium.spaces import Text

#: Unicode general categories left out of the charset (controls, surrogates, private use,
#: unassigned).
EXCLUDED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})
#: The control characters text keeps.
KEPT_CONTROLS = "\t\n\r"
REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class _Charset:
    chars: frozenset[str]
    ordered: tuple[str, ...]
    index: Mapping[str, np.int32]
    joined: str


@functools.cache
def charset() -> _Charset:
    """The charset's tables (built on first use: ~0.3 s)."""
    chars = frozenset(KEPT_CONTROLS) | frozenset(
        c
        for c in map(chr, range(sys.maxunicode + 1))
        if unicodedata.category(c) not in EXCLUDED_CATEGORIES
    )
    ordered = tuple(sorted(chars))
    index = MappingProxyType({c: np.int32(i) for i, c in enumerate(ordered)})
    return _Charset(chars, ordered, index, "".join(ordered))


def in_charset(text: str) -> str:
    """`text` with every character outside the charset replaced by U+FFFD."""
    chars = charset().chars
    if all(map(chars.__contains__, text)):
        return text
    return "".join(c if c in chars else REPLACEMENT for c in text)


class UnicodeText(Text):
    """A Text space of 0 to `max_length` characters of the charset above."""

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 0,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        # Text builds tables for the charset it is given; a one-character stand-in keeps
        # that cheap, and the properties below answer with the shared tables.
        super().__init__(max_length, min_length=min_length, charset=" ", seed=seed)

    @property
    def character_set(self) -> frozenset[str]:
        return charset().chars

    @property
    def character_list(self) -> tuple[str, ...]:
        return charset().ordered

    def character_index(self, char: str) -> np.int32:
        return charset().index[char]

    @property
    def characters(self) -> str:
        return charset().joined

    def __repr__(self) -> str:
        n, version = len(charset().chars), unicodedata.unidata_version
        return (
            f"UnicodeText({self.min_length}, {self.max_length}, "
            f"charset=<{n} characters of Unicode {version}>)"
        )
