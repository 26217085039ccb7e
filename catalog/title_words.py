"""Which words are ordinary English words or common first names, for reading titles in text.

A title made only of ordinary words ("The Drama", "Up", "Her", "Cold Storage") is found in
free text only where it is written as a title (catalog/title_evidence.py); a title with one
word no dictionary lists ("Hamnet", "Zootopia 2") is a title however it is written.

The ordinary words are the English words pyspellchecker's frequency list (built from film
and television subtitles) counts at least `COMMON_MIN_COUNT` times: about 38,000 words,
names included ("david" is as common there as "drama"). It ships inside the package and is
read once, on first use, with no network.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final


def _split(words: str) -> list[str]:
    return words.split()


#: Subtitle-corpus count from which a word is ordinary ("dracula" 171 is not; "kraken"
#: 181 is not; "requiem" 336 and "citadel" 633 are).
COMMON_MIN_COUNT: Final = 200

#: Words that never carry a title on their own case: articles, conjunctions, prepositions.
FUNCTION_WORDS: Final = frozenset(
    _split(
        "a an the and or but nor of in on at to for with from by as into onto over under "
        "about after before than off out per via"
    )
)

#: Closed-class words: the function words, and pronouns, particles and determiners. Said
#: in capitals among capitals ("CHEER ME UP", "TELL HER"), a one-word title made of one
#: ("Up", "Her") is that word, not the title (catalog/title_evidence.py).
GRAMMAR_WORDS: Final = FUNCTION_WORDS | frozenset(
    _split(
        "up down back away around through along i me my mine you your yours he him his she "
        "her hers it its we us our ours they them their theirs this that these those who "
        "what which yes no not so too very here there now then"
    )
)

#: Common first names (folded): a one-word title that is one of these ("David", "Michael")
#: is read as a person's name unless it is marked as a title (quoted, "the film David").
FIRST_NAMES: Final = frozenset(
    _split("""
    aaron abigail adam adrian aisha alan albert alex alexander alexandra alice alicia amanda
    amelia amy ana andrea andrew angela anna anne anthony antonio arthur ashley audrey barbara
    ben benjamin beth betty bill billy bob bobby brandon brian bruce camila carl carlos carmen
    carol caroline catherine charles charlie charlotte chloe chris christian christina
    christopher claire clara daniel david deborah dennis diana diego dolly donald dorothy
    douglas dylan edward elena eli elijah elizabeth ella ellen emily emma eric ethan eva evelyn
    fatima frank gabriel gary george grace greg hannah harry heather helen henry isaac isabel
    isabella jack jacob james jane janet jason jean jennifer jeremy jessica jim jimmy joan
    joe john jonathan jordan jose joseph joshua joyce juan judith julia julie justin karen
    kate katherine kathleen keith kelly kenneth kevin kim laura lauren leo liam lily linda
    lisa lucas lucy luis luke maria marie mark martha martin mary matthew maya megan melissa
    mia michael michelle mike mohammed muhammad nancy natalie nathan nicholas nicole noah
    oliver olivia omar oscar pablo pamela patricia patrick paul peter philip rachel ralph
    raymond rebecca richard robert roger ronald rose ruth ryan sam samantha samuel sandra
    sara sarah scott sean sebastian sharon sofia sophia sophie stephanie stephen steven susan
    teresa thomas timothy tom tony victoria vincent walter william willie zoe
    """)
)


@lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(ordinary words, every word the list holds), lower-cased, read on first use."""
    from spellchecker import SpellChecker  # ~0.3 s: only when titles are read as written

    counts = SpellChecker(language="en", distance=1).word_frequency.dictionary
    return frozenset(w for w, n in counts.items() if n >= COMMON_MIN_COUNT), frozenset(counts)


def common_words() -> frozenset[str]:
    """Every ordinary English word, lower-cased (see the module docstring)."""
    return _lexicon()[0]


def is_common_title(tokens: tuple[str, ...], lower_case: bool = False) -> bool:
    """Whether every word of a (folded) title is an ordinary word, a first name or a
    number. For a title the catalog writes in lower case ("undertone"), any word the list
    holds is ordinary: nothing but quotes can tell such a title from the word."""
    common, known = _lexicon()
    words = known if lower_case else common
    return all(t.isdigit() or t in words or t in FIRST_NAMES for t in tokens)
