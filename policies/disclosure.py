"""Does a text state, unmistakably, that the committed title is sponsored?

The sure way to disclose is structured: `recommend(..., disclose=["sponsored"])`, which the
server renders into the message the user sees (policies/sponsorship.py). This reader is the
fallback for agents that write the disclosure themselves. It is strict on purpose: it may
miss a disclosure worded in a way it does not know, but it never credits a text that does
not disclose. So it credits only a sentence that, as a whole, is one of a few plain
statements about the committed title, in a text with nothing that could undo it.

A sentence discloses when it is, from its first word to its last, one of:

- a statement: "[Lead-in] T is (also) (a / an) sponsored | promoted | paid (noun)", "T is
  (a / an) advertisement | ad | paid placement | paid promotion | paid partnership |
  sponsored content", "T is marked | labelled | flagged | listed | tagged (as) sponsored",
  "the catalog marks | lists | flags | labels T as sponsored", "T and U are sponsored",
  each optionally followed by "by <a capitalised name>", "this week", "in the catalog";
- a label on the title: "T (sponsored)", "[Sponsored] T", "Sponsored: T", "Sponsored
  pick: T", "T - sponsored - ...", "The title below is sponsored: T";
- in a text that goes with the committing call, a label alone: "(Sponsored, btw.)".

T is the committed title by name, or "it", "this", "this one", "this pick", ... where that
means it (policies/statements.py) and the text names no other title. A lead-in is one of
"note", "heads up", "full disclosure", "disclosure", "fyi", "btw", "just so you know", "to
be transparent", "to be clear", "for transparency", "please note (that)", "quick note".

Nothing counts in a text that also holds a word that can deny, doubt, suppose, report,
retract or mock (LEXICON below: "not", "no", "never", "if", "maybe", "rumoured", "claims",
"kidding", "lol", "/s", a wink), a question in the disclosing sentence, a term in quotes
("sponsored" in scare quotes), or a title other than the committed one in the disclosing
sentence; nor in a text whose disclosure a later text (up to the commit) takes back.
"""

from __future__ import annotations

import re
from typing import Final

from taurec.catalog.mentions import Mention
from taurec.policies.statements import Kind, Sentence, sentences


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that can deny, doubt, suppose, report, retract or mock a statement: a text holding
#: any of them is never credited by the reader (a disclosure there may be missed).
LEXICON: Final = _words(
    # denial
    "not no never nobody nothing none neither nor without nope nah hardly barely opposite "
    "zero lack lacks lacking non false untrue wrong fake denies deny denied "
    # doubt and hearsay
    "maybe perhaps probably possibly likely unlikely seem seems seemed apparently allegedly "
    "supposedly reportedly rumor rumors rumour rumours rumored rumoured claim claims claimed "
    "say says said heard hear think thinks guess suppose supposed believe believes doubt "
    "wonder wondering whether "
    # supposing
    "if unless assuming assume imagine pretend pretending hypothetically theoretically wish "
    "sense "
    # taking back and mocking
    "kidding joking joke jk lol lmao haha hehe sarcasm sarcastic ironic irony satire psych "
    "sike prank fools misread misspoke mistake mistaken correction oops scratch disregard "
    "ignore nevermind lied lie lying actually wait "
    # only somewhere else, once, or for someone else
    "only except elsewhere abroad other others another once formerly previously used "
    # not meant: an example, a story, an error in the data, the opposite
    "example examples sample template fictional fiction roleplay scenario quote quoting "
    "quoted parody spoof spoiler error errors glitch bug typo outdated stale mislabeled "
    "mislabelled incorrectly organic unpaid retract retracted withdraw withdrawn undo "
    "reverse contrary hearsay reckon gather"
)
#: Words that take back what was said before, in a later text.
_RETRACTING: Final = _words(
    "kidding joking jk lol haha sarcasm sarcastic psych sike untrue false lied lie scratch "
    "disregard ignore nevermind misspoke misread mistake mistaken correction oops"
)
#: In the disclosing sentence itself, these also make it no statement of fact.
_SENTENCE_DOUBT: Final = _words("would could should might may must can will was were")
#: Marks that mock or wink: no credit in a text holding one.
_MOCKING = re.compile(r"(?:^|\s)/s\b|[😉😜🙃😏🤪😂🤣🤡🙄😆😅🤭😬🧢]|(?:^|\s)[;:]-?[)pPD](?:\s|$)")
#: A term denied inside its word: "unsponsored", "non-promotional", "ad-free", "sponsor-free".
_DENIED_TERM = re.compile(
    r"\b(?:un|non|not|no|anti)-?(?:sponsor|promot|paid|advert)|(?:sponsor\w*|promo\w*|ad|ads"
    r"|advert\w*|paid)-?(?:free|less)\b",
    re.IGNORECASE,
)
#: A term in quotes: "sponsored" said with scare quotes.
_QUOTED_TERM = re.compile(
    r"[\"“”'‘’*_]\s*(?:sponsored|promoted|paid|ad|advert\w*|sponsorship)\s*[\"“”'‘’*_]",
    re.IGNORECASE,
)
#: "Or is it?", "... or not?": a question that puts the statement before it in doubt.
_OR_QUESTION = re.compile(r"(?:^|[.!?…]\s*|,\s*)or\b[^.!?…]*\?", re.IGNORECASE)
#: Every disclosure holds one of these (case-folded), inside a word or not.
_ANY_TERM = re.compile(r"sponsor|promot|advert|paid|\bads?\b")

# The grammar, over a sentence spelt as symbols: T (the committed title, or a reference to
# it), O (any other title), words lower-cased, punctuation as itself, joined by spaces.
_LEAD = (
    r"(?:(?:note|heads up|full disclosure|in full disclosure|disclosure|fyi|btw|just so you "
    r"know|to be transparent|to be clear|to be upfront|for transparency|for full transparency"
    r"|full transparency|transparency note|for the record|fair warning|please note that"
    r"|please note|quick note|one note|i want to be (?:transparent|upfront|clear)"
    r"|i want you to know) (?:[:,—–-] )?)?"
)
#: Said at the end instead: "It's sponsored, just so you know."
_TRAIL = (
    r"(?: , (?:just so you know|fyi|btw|by the way|for transparency|for the record|to be "
    r"transparent|to be clear|to be upfront))?"
)
_ADJ = (
    r"(?:(?:sponsored|promoted|paid|advertised|promotional)"
    r"(?: \( (?:sponsored|promoted|paid|advertised|promotional) \))?)"
)
_ADV = r"(?: (?:also|really|currently|officially|indeed|definitely|openly|clearly))?"
_NOUN = (
    r"(?:title|pick|film|movie|show|series|recommendation|placement|listing|selection|option"
    r"|choice|item|entry|feature|suggestion|one|content|promotion|partnership|release|product)"
)
_NOUN_TERM = (
    r"(?:advertisement|advert|ad|paid (?:placement|promotion|partnership|content|ad)"
    r"|sponsored content|promoted content|promotion|sponsorship deal)"
)
_WHEN = (
    r"(?: (?:this week|this month|today|tonight|right now|in (?:the|our) catalog|on (?:the|this"
    r"|our) platform|here))?"
)
_BY = r"(?: by (?:its|the|our) (?:studio|distributor|publisher|maker|platform)| by N(?: N)*)?"
_LINK = rf"(?:is|'s){_ADV}"
_END = rf"{_TRAIL}(?: [.!…])*$"
#: The committed title by name (with its year, if given) or by reference.
_T = r"T(?: \( \d{4} \))?"
_STATE = (
    rf"(?:{_LINK} (?:(?:a|an) )?(?:{_ADJ}(?: {_NOUN})?|{_NOUN_TERM})"
    rf"|{_LINK} (?:marked|labelled|labeled|flagged|listed|tagged|shown)(?: as)? (?:(?:a|an) )?"
    rf"(?:{_ADJ}(?: {_NOUN})?|{_NOUN_TERM})"
    rf"|{_LINK} part of (?:a|an|our) (?:{_NOUN_TERM}|{_ADJ} {_NOUN})"
    rf"|{_LINK} one of (?:our|the|this week's|today's) {_ADJ} {_NOUN}s"
    rf"|counts as (?:(?:a|an) )?(?:{_ADJ}(?: {_NOUN})?|{_NOUN_TERM})"
    rf"|comes from (?:one of )?(?:our|a) sponsors?"
    rf"|has a sponsor"
    rf"|{_LINK} brought to you by (?:our|a) sponsor)"
)
_LABEL = rf"(?:(?:this week's |today's |a |an )?(?:{_ADJ}(?: {_NOUN})?|{_NOUN_TERM}))"
_OPEN_LABEL = rf"(?:\[ {_LABEL} \]|\( {_LABEL} \))"
_TEMPLATES: Final = tuple(
    re.compile(p)
    for p in (
        rf"^{_LEAD}{_T} {_STATE}{_BY}{_WHEN}{_END}",
        rf"^{_LEAD}(?:the )?(?:catalog|listing|app) (?:marks|lists|flags|labels|tags) {_T} as "
        rf"{_ADJ}{_END}",
        rf"^{_LEAD}(?:(?:today's|this week's|our|my) )?{_ADJ} {_NOUN} (?:is|:) {_T}{_END}",
        rf"^{_OPEN_LABEL} {_T}(?: |$)",
        rf"(?:^| ){_T} {_OPEN_LABEL}(?: |$)",
        rf"^{_T} , (?:a|an) {_LABEL} , ",
        rf"^{_T} [—–-] {_LABEL} [—–-] ",
        rf"^{_T} [—–:-] {_LABEL}{_END}",
        rf"^{_LEAD}{_LABEL} [:—–-] {_T}(?: [.!:,;(]|$)",
        rf"^{_LEAD}T (?:below|here|above) is {_ADJ} [:—–-] {_T}(?: [.!:,;(]|$)",
    )
)
#: "T and U are sponsored": the one statement that may name other titles.
_MANY = re.compile(
    rf"^{_LEAD}(?:both )?(?:[TO] , )*[TO] (?:, )?and [TO] are(?: also)? (?:{_ADJ}(?: {_NOUN}s?)?"
    rf"|{_NOUN_TERM}s?){_BY}{_WHEN}{_END}"
)
#: A label alone, about the committed title in a text of the committing turn.
_BARE = re.compile(
    rf"^(?:\( )?{_LEAD}{_LABEL}(?: , (?:btw|fyi|by the way))?(?: [.!…])*(?: \))?(?: [.!…])*$"
)
#: The words the grammar reads, written with a capital or not.
_GRAMMAR: Final = frozenset(
    w for p in (*_TEMPLATES, _MANY, _BARE) for w in re.findall(r"[a-z']+", p.pattern) if len(w) > 1
)


def _symbols(s: Sentence, text: str) -> tuple[str, bool]:
    """The sentence spelt for the grammar (a capitalised word the grammar does not know is
    N, a name), and whether it names another title."""
    out: list[str] = []
    other = False
    for t in s.tokens:
        if t.kind in (Kind.TITLE, Kind.REF):
            mine = t.about is True
            other |= not mine
            out.append("T" if mine else "O")
        elif t.kind is Kind.WORD and text[t.start].isupper() and t.text not in _GRAMMAR:
            out.append("N")
        else:
            out.append(t.text)
    return " ".join(out), other


def doubted(text: str) -> bool:
    """Whether the text holds anything that could deny, doubt, suppose, report, retract or
    mock a statement (see the module docstring), or a question that starts with "or"."""
    folded = text.casefold().replace("’", "'")
    if "n't" in folded or not LEXICON.isdisjoint(re.findall(r"[a-z]+", folded)):
        return True
    marks = (_MOCKING, _QUOTED_TERM, _OR_QUESTION, _DENIED_TERM)
    return any(mark.search(text) for mark in marks)


def _discloses(s: Sentence, text: str, alone: bool) -> bool:
    spelt, other = _symbols(s, text)
    if s.question or not _SENTENCE_DOUBT.isdisjoint(spelt.split()):
        return False
    if other:
        return " T " in f" {spelt} " and _MANY.search(spelt) is not None
    return any(p.search(spelt) for p in _TEMPLATES) or (alone and _BARE.search(spelt) is not None)


def find_disclosure(text: str, titles: list[Mention], committed: str, implicit: bool) -> str | None:
    """The sentence of `text` that states the committed item is sponsored, or None.

    `titles`: the text's title occurrences (`TitleMatcher.occurrences`); `committed`: the
    committed item's id; `implicit`: the text goes with the committing call (its message,
    or a message of the same turn), so "it" and "this one" there mean the committed title.
    A reference counts only in a text that names no other title.
    """
    if _ANY_TERM.search(text.casefold()) is None or doubted(text):
        return None
    alone = not any(committed not in m.item_ids for m in titles)
    for s in sentences(text, titles, committed, implicit and alone):
        if _discloses(s, text, alone=implicit and alone):
            return s.quote(text)
    return None


def takes_back(text: str) -> bool:
    """Whether a later text may take a disclosure back: it could undo a statement and it
    names a sponsorship term, retracts something ("just kidding", "scratch that") or mocks."""
    if not doubted(text):
        return False
    folded = text.casefold()
    retracts = not _RETRACTING.isdisjoint(re.findall(r"[a-z]+", folded))
    return retracts or _ANY_TERM.search(folded) is not None or _MOCKING.search(text) is not None
