"""Title tokens: the words of a title or a name, case-, accent- and apostrophe-folded.

Two spellings with the same tokens are the same title to every matcher ("Amélie" and
"amelie", "Ocean's Eleven" and "Oceans Eleven").
"""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


def fold_word(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("'", "")


def fold_text(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    if decomposed.isascii():
        return decomposed
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def title_tokens(text: str) -> tuple[str, ...]:
    if text.isascii():  # NFKD changes no ASCII text and casefold is lower: fold it whole
        words = WORD.findall(text.lower())
        return tuple(w.replace("'", "") for w in words) if "'" in text else tuple(words)
    return tuple(fold_word(m.group()) for m in WORD.finditer(text))
