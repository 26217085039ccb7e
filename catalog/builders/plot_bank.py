"""How a genre's plot sentences are written down (plots.py): three banks of sentences,
one per line, a line not ending a sentence continuing on the next."""

from __future__ import annotations


class PlotBank:
    """Three sentence lists for one genre."""

    __slots__ = ("setups", "stakes", "turns")

    def __init__(self, setups: str, turns: str, stakes: str) -> None:
        self.setups = _lines(setups)
        self.turns = _lines(turns)
        self.stakes = _lines(stakes)


def _lines(text: str) -> tuple[str, ...]:
    """One sentence per line; a line not ending in '.', '!' or '?' continues on the next."""
    sentences: list[str] = []
    pending = ""
    for line in text.split("\n"):
        pending = f"{pending} {line.strip()}".strip()
        if pending.endswith((".", "!", "?")):
            sentences.append(pending)
            pending = ""
    if pending:
        raise ValueError(f"plot sentence must end in '.', '!' or '?': {pending!r}")
    return tuple(sentences)
