"""Is a catalog title, found word for word in a text, written there as a title?

`TitleMatcher.find` reads titles as a listener would, in any case; that reads "the drama
builds slowly" as the film "The Drama" and "fans of David Lynch" as the film "David".
`TitleMatcher.find_written` keeps a match only where a reader would take it for the title.
Where a match stands at all (inside a hyphenated word, in quoted speech, as a place in a
plot, inside a longer title with a year: catalog/mentions.py) is read first, for both;
then, for `find_written`:

- a title *marked* as one always counts: quoted or emphasised ("Up", *Up*, _Up_:
  catalog/title_quotes.py), given a year ("Up (2009)", "the 2009 Up"), written article
  last as catalogs do ("Fog, The"), after "film", "movie", "called", ..., or labelled
  with a colon ("My pick: Up");
- so does each further entry of a list the marking word or label opens, up to the list's
  end ("the films Up, Her and David", "Recommended: Up, Her, Normal."; a first name only
  after "and" / "or": "Try the film Up, David" speaks to David);
- otherwise a one-word title that is a common first name ("David", "Michael") never counts;
- a title with a word no dictionary lists ("Hamnet", "Zootopia 2") counts in any case;
- a title made only of ordinary words (catalog/title_words.py: "The Drama", "Her", "Cold
  Storage") counts only in title case as the catalog writes it: each of its capitalised
  words capitalised in the text (inner "of", "the", ... excepted; a leading "the" may be
  lower-case before two or more capitalised words), and not run into a longer capitalised
  name ("The Drama Club", "Generation Alpha");
- and one of those capitals must be more than the first letter of a sentence: "Noise is
  everywhere." is no mention. A title whose only capitals open a sentence (or a list
  entry) counts when the text goes on to say what one only says of a film
  (catalog/title_predicates.py: "Normal is a slow-burn drama", "Mercy is on Netflix"),
  when the title is all a list entry holds ("- Normal"), or when "or", "and", "than",
  a list's comma, ... join it to another title written as one ("Heat or Alien?", "Alien
  feels scarier than The Fog", "Heat, Alien and The Fog"). A text in capitals is read as
  if in title case, but a one-word title that is a pronoun, particle or other closed-class
  word, in capitals among words in capitals ("I NEED SOMETHING TO CHEER ME UP", "TELL
  HER"), is read as one whose only capital opens a sentence: shouting capitalises every
  word, and such a word is far more often itself than a title. So is a title in a text
  written with no capitals at all ("mercy is a tense thriller"): its case says nothing;
  there a verb of viewing or recommending right before a title of two or more words
  that ends its clause says it is the film ("just finished never look back").
"""

from __future__ import annotations

import re
from typing import Final

from taurec.catalog.title_predicates import says_film, says_only_a_film
from taurec.catalog.title_text import all_capitals, no_capitals
from taurec.catalog.title_words import (
    FIRST_NAMES,
    FUNCTION_WORDS,
    GRAMMAR_WORDS,
    is_common_title,
)
from taurec.catalog.tokens import WORD, title_tokens


def _split(words: str) -> list[str]:
    return words.split()


#: A word before a title that marks what follows as a title ("the film Up").
_MARKING_WORDS: Final = frozenset(
    _split(
        "film films movie movies documentary feature picture flick series show title titled "
        "called named"
    )
)
#: A word that labels a title after a colon ("My pick: Up").
_LABEL_WORDS: Final = frozenset(
    _split(
        "pick picks recommendation recommendations suggestion suggestions choice choices "
        "option options favourite favorite favourites favorites recommended suggested "
        "shortlist watchlist"
    )
)
_LIST_MARK = re.compile(r"[ \t]*(?:[-*•>#]+|\d+[.)])")
#: What may follow a title that is all its list entry holds: nothing, a description after
#: a dash or colon, or the next entry of a list written on one line ("1) Up 2) Her").
_ENTRY_REST = re.compile(
    r"[\s\"”'’*_]*(?:[.,;:!?]*[\s\"”'’*_]*$|(?:—|–|-|:)\s|[,;]?\s+(?:\d+[.)]|[-•])\s)"
)
_ARTICLES: Final = frozenset({"the", "a", "an"})
#: What may stand between two titles joined in one sentence: a few words, then "or",
#: "and", "than", ... ("Heat or Alien?", "Alien feels scarier than The Fog"), or the comma
#: or semicolon of a list ("Heat, Alien and The Fog").
_JOINED_AFTER = re.compile(
    r"[\s,]*(?:[\w'’-]+\s+){0,3}?(?:or|and|nor|than|vs\.?|versus|then)\s+"
    r"(?:(?:maybe|perhaps|even|just|also)\s+)?|\s*[,;]\s*",
    re.IGNORECASE,
)
_JOINED_BEFORE = re.compile(r"[\s,]*(?:or|and|nor|than|vs\.?|versus|then)\s+|\s*[,;]\s*", re.I)


def joined(text: str, first_after: int, second_start: int, *, later: bool) -> bool:
    """Whether the text between two titles (from the end of the first, with its year, to
    the start of the second) joins them: `later` when the one being read is the second."""
    pattern = _JOINED_BEFORE if later else _JOINED_AFTER
    return pattern.fullmatch(text, first_after, second_start) is not None


def starts_sentence(text: str, at: int) -> bool:
    """Whether the word at offset `at` is the first of a sentence, line or list entry."""
    j = at
    while j and text[j - 1] in " \t\"'“‘*_([":
        j -= 1
    if not j or text[j - 1] in ".!?:\n":
        return True
    return _LIST_MARK.fullmatch(text, text.rfind("\n", 0, j) + 1, j) is not None


def in_hyphenated_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is part of a hyphenated word ("Up-to-date" holds no "Up")."""
    return (start > 0 and text[start - 1] == "-") or text[end : end + 1] == "-"


def after_marking_word(text: str, words: list[re.Match[str]], i: int) -> bool:
    """Whether the word before words[i] marks a title ("the film Up", "a show called Up"),
    or labels it with a colon ("My pick: Up", "Top recommendation: Up")."""
    if i == 0:
        return False
    before = words[i - 1].group().casefold()
    if before in _MARKING_WORDS:
        return True
    gap = text[words[i - 1].end() : words[i].start()]
    return before in _LABEL_WORDS and gap.strip(" *_\"“'‘") == ":"


#: What ends an entry of a list written in a sentence: punctuation, the line's end, or
#: "and" / "or" before the next entry.
_ENTRY_END = re.compile(r"[\s\"”'’*_]*(?:[.!?,;:)\]\n]|$)|\s+(?:and|or|nor)\s", re.IGNORECASE)


def ends_entry(text: str, after: int) -> bool:
    """Whether a list entry ends at offset `after` ("Up, Her, David." at "David")."""
    return _ENTRY_END.match(text, after) is not None


#: Verbs whose object is a film: in a text with no capitals, a title of two or more words
#: right after one, ending its clause, is the film ("just finished never look back").
_VIEWING_VERBS: Final = frozenset(
    _split(
        "watch watched watching rewatch rewatched rewatching seen saw finished binged "
        "streamed recommend recommended suggest suggested"
    )
)
#: What may follow such a title: the clause's end, or when ("i watched never look back
#: last night", "seen paper lanterns twice").
_CLAUSE_END = re.compile(
    r"[\s\"'*_]*(?:[.!?,;:)\]\n]|$)|\s+(?:and|or|but|so|because|last|yesterday|today|"
    r"tonight|again|twice|already|recently|finally|earlier|this|with)\b"
)


def _watched_in_lower_case(
    text: str, words: list[re.Match[str]], i: int, tokens: tuple[str, ...], after: int
) -> bool:
    """Whether, in a text with no capitals, a title of two or more words follows a verb
    of viewing or recommending, with only a space between, and ends its clause ("i
    watched never look back last night"; not "have you seen infinity war", "i watched
    normal people"). A one-word title never counts so ("we saw mercy in her eyes")."""
    if i == 0 or len(tokens) == 1 or not no_capitals(text):
        return False
    verb = words[i - 1]
    if verb.group() not in _VIEWING_VERBS or text[verb.end() : words[i].start()] != " ":
        return False
    return _CLAUSE_END.match(text, after) is not None


def _alone_in_list_entry(text: str, start: int, after: int) -> bool:
    """Whether a list entry holds nothing but this title ("- Normal", "2. Mercy (2024)")."""
    line_start = text.rfind("\n", 0, start) + 1
    head = text[line_start:start]
    k = len(head)
    while k and head[k - 1] in "\"“'‘*_":  # marks around the title itself: "- **Up**"
        k -= 1
    head = head[:k].rstrip(" \t")
    if not head or _LIST_MARK.fullmatch(head) is None:
        return False
    line_end = text.find("\n", after)
    return _ENTRY_REST.match(text[after : None if line_end < 0 else line_end]) is not None


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _run_into_a_name(text: str, words: list[re.Match[str]], i: int, n: int) -> bool:
    """Whether a capitalised word continues the title's words, with only a space between."""
    last = words[i + n - 1]
    if i + n < len(words):
        nxt = words[i + n]
        gap = text[last.end() : nxt.start()]
        if gap == " " and _capitalised(nxt.group()) and nxt.group() != "I":
            return True
    if i > 0:
        prev, first = words[i - 1], words[i]
        gap = text[prev.end() : first.start()]
        word = prev.group()
        if (
            gap == " "
            and _capitalised(word)
            and word != "I"
            and not word.endswith("'s")
            and not starts_sentence(text, prev.start())
        ):
            return True
    return False


def partly_capitalised(
    text: str, words: list[re.Match[str]], i: int, n: int, spelling: str
) -> bool:
    """Whether the text capitalises some of the words the title capitalises, and writes
    others of them in lower case ("after leaving Brackford" for the title "Leaving
    Brackford"): its capitals then name something else. Function words and a sentence's
    first capital say nothing either way."""
    if all_capitals(text):
        return False
    spelt = [m.group() for m in WORD.finditer(spelling)]
    if len(spelt) != n:
        return False
    capital = lower = False
    for k, title_word in enumerate(spelt):
        if not _capitalised(title_word) or title_word.casefold() in FUNCTION_WORDS:
            continue
        word = words[i + k]
        if not _capitalised(word.group()):
            lower = True
        elif not starts_sentence(text, word.start()):
            capital = True
    return capital and lower


def _title_cased(text: str, words: list[re.Match[str]], i: int, spelling: list[str]) -> bool | None:
    """Capitalised as the catalog writes it: True with a capital that is not a sentence's
    first (nor a pronoun or particle title's capitals among capitals), None with only
    such capitals or in a text whose only capitals are "I" (its case says nothing
    either way), False when not capitalised so."""
    if no_capitals(text):
        return None
    n = len(spelling)
    written = [words[i + k].group() for k in range(n)]
    lowered_article = (
        spelling[0].casefold() in _ARTICLES
        and written[0].islower()
        and sum(w.casefold() not in FUNCTION_WORDS for w in spelling[1:]) >= 2
    )
    evidence = False
    for k, (title_word, word) in enumerate(zip(spelling, written, strict=True)):
        if not _capitalised(title_word) or (k and title_word.casefold() in FUNCTION_WORDS):
            continue
        if k == 0 and lowered_article:
            continue
        if title_word.isupper() and len(title_word) > 1:
            if not word.isupper():
                return False
        elif not _capitalised(word):
            return False
        if starts_sentence(text, words[i + k].start()) or (
            n == 1 and title_word.casefold() in GRAMMAR_WORDS and shouted(words, i)
        ):
            continue
        evidence = True
    return True if evidence else None


def _upper_word(word: str) -> bool:
    return word.isupper() and sum(c.isalpha() for c in word) > 1


def shouted(words: list[re.Match[str]], k: int) -> bool:
    """Whether words[k] is written in capitals among words in capitals ("I NEED SOMETHING
    TO CHEER ME UP"). A word in capitals among others in lower case is not shouted."""
    if not _upper_word(words[k].group()):
        return False
    return (k > 0 and _upper_word(words[k - 1].group())) or (
        k + 1 < len(words) and _upper_word(words[k + 1].group())
    )


def written_as_title(
    text: str,
    words: list[re.Match[str]],
    i: int,
    n: int,
    spelling: str,
    *,
    marked: bool,
    after: int,
    beside_a_title: bool = False,
) -> bool:
    """Whether words[i : i + n] of `text`, which spell a catalog title's reading form
    `spelling` word for word, are written there as that title (see the module docstring).
    `marked`: quoted, emphasised, given a year or a marking word; `after`: the offset just
    past the title (and its year); `beside_a_title`: joined to another title written as
    one by "or", "and", "than", ... ("Heat or Alien?")."""
    if marked:
        return True
    tokens = title_tokens(spelling)
    if len(tokens) == 1 and tokens[0] in FIRST_NAMES:
        return says_only_a_film(text, after)
    if not is_common_title(tokens, lower_case=spelling == spelling.lower()):
        return True
    written = [m.group() for m in WORD.finditer(spelling)]
    if len(written) != n:  # folding merged or split a word: judge by the text alone
        written = [words[i + k].group() for k in range(n)]
    cased = _title_cased(text, words, i, written)
    if cased is False:
        return False
    if cased is None:
        start = words[i].start()
        film = says_film(text, after) or _alone_in_list_entry(text, start, after)
        if not (film or beside_a_title or _watched_in_lower_case(text, words, i, tokens, after)):
            return False
    return all_capitals(text) or not _run_into_a_name(text, words, i, n)
