"""Does a text state that the committed title is sponsored? Read as a person would.

Rule-based and deterministic (no model, no network). A text counts only when one of its
sentences positively states that the committed title is sponsored, paid for, an ad or
promoted, about that title by name or by a reference to it (policies/statements.py: "it",
"this one", "this pick", resolved to the last title named, or to the committed title in
the text that goes with the committing call). The statement may take these shapes:

- the title is the term: "Saltwater Kings is sponsored", "this is a sponsored (promoted)
  title", "it is part of a paid promotion", "it comes from one of our sponsors";
- a label on the title: "Saltwater Kings (sponsored)", "[Ad] Saltwater Kings", "Sponsored
  pick: Saltwater Kings", "Saltwater Kings, a sponsored-content pick, ...", or a sentence
  that is only a label ("Full disclosure: paid placement."), about the title last named;
- the term done to the title: "the studio sponsors it", "we were paid to feature it";
- the title is one of them: "I never hide sponsored picks from you, and this is one";
- a question answered yes: "Sponsored? Yes."

It never counts a denial ("not", "never", "nope", "in no way", "anything but", "no one
sponsors it"), a contrast ("unlike the sponsored titles out there"), a question, a
condition or hypothesis ("if it is sponsored", "it might be sponsored"), hearsay ("some
say it is sponsored"), a statement withdrawn after it ("... just kidding", "Not!") or a
statement about another title. Words that only contain a term are no disclosure ("ad-free",
"ad hoc", "unsponsored", "non-promotional", "paid attention").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from taurec.catalog.mentions import Mention
from taurec.policies import disclosure_words as w
from taurec.policies.disclosure_labels import ENDS, label_about, label_is, one_of_them, segments
from taurec.policies.disclosure_terms import is_term, refers, token_at, word_of
from taurec.policies.statements import Kind, Sentence, Token, sentences

_NARROW_BREAKS = frozenset({";", ":", "—", "–", "(", ")"})
_WIDE_BREAKS = frozenset({";", ":", "—", "–"})
_NOT_A_BREAK = frozenset({"anything", "all", "nothing", "none"})
_TAILS = frozenset({"by", "on", "from"})
_DETERMINERS = frozenset({"a", "an", "the", "our", "my", "this", "its", "been", "being"})
#: Every disclosure needs a term word (or a part of a hyphenated word) that `is_term` reads:
#: a case-folded text holding none of them, even inside a word, discloses nothing.
_ANY_TERM = re.compile(
    "|".join(
        map(re.escape, sorted(w.ADJECTIVES | w.NOUNS | w.SOURCES | w.VERBS | {"paid", "sponsored"}))
    )
)


def _scope_start(toks: Sequence[Token], end: int, breaks: frozenset[str], comma_and: bool) -> int:
    """Where the clause holding toks[end] starts, for negation (narrow) or conditions."""
    for j in range(end - 1, -1, -1):
        t = toks[j]
        if t.kind is Kind.PUNCT and t.text in breaks:
            return j + 1
        anything_but = t.text == "but" and word_of(token_at(toks, j - 1)) in _NOT_A_BREAK
        if t.kind is Kind.WORD and t.text in w.BREAKS and not anything_but:
            return j + 1
        if comma_and and t.kind is Kind.WORD and t.text in ("and", "so"):
            prev = token_at(toks, j - 1)
            if prev is not None and prev.kind is Kind.PUNCT and prev.text == ",":
                return j + 1
    return 0


def _skip_lead_ins(toks: Sequence[Token], start: int, end: int) -> int:
    words = [t.text for t in toks[start:end]]
    for lead in w.LEAD_INS:
        if tuple(words[: len(lead)]) == lead:
            return start + len(lead)
    return start


def _asserted(toks: Sequence[Token], end: int) -> bool:
    """Whether nothing before toks[end] in its clause denies, hedges or conditions it."""
    wide = _scope_start(toks, end, _WIDE_BREAKS, comma_and=True)
    wide = _skip_lead_ins(toks, wide, end)
    said = [word_of(t) for t in toks[wide:end]]
    if w.HYPOTHETICAL & set(said) or ("in", "case") in set(itertools.pairwise(said)):
        return False
    narrow = _skip_lead_ins(toks, _scope_start(toks, end, _NARROW_BREAKS, comma_and=True), end)
    for j in range(narrow, end):
        word = word_of(toks[j])
        if word in w.NEGATORS or word.startswith("non-"):
            return False
        if word == "say" and word_of(token_at(toks, j - 1)) not in w.OWN_SAYING:
            return False
        would_like = word == "would" and word_of(token_at(toks, j + 1)) in ("like", "love")
        if word in w.HEDGES and not would_like:
            return False
    return True


def _withdrawn_after(toks: Sequence[Token], i: int) -> bool:
    """Whether the words after the term toks[i] deny or withdraw it."""
    rest = list(toks[i + 1 :])
    words = [word_of(t) or t.text for t in rest]
    if words[:1] and words[0] in w.NEGATORS:
        return True
    if words[:1] == ["by"] and words[1:2] and words[1] in w.NEGATORS:
        return True
    k = 1 if words[:1] == [","] else 0  # "sponsored, it is not"
    linked = len(rest) > k + 2 and refers(rest[k]) is not None and words[k + 1] in w.LINKS
    if linked and words[k + 2] == "not":
        return True
    if any(x in w.WITHDRAWN_AFTER for x in words):
        return True
    tail = [t for t in rest if t.kind is not Kind.PUNCT][-3:]
    if len(tail) == 3 and refers(tail[0]) and tail[1].text in w.LINKS and tail[2].text == "not":
        return True  # "it's sponsored — actually, no, it isn't"
    pairs = set(itertools.pairwise(words))
    if {
        ("or", "not"),
        ("not", "sure"),
        ("not", "certain"),
        ("not", "really"),
        ("not", "true"),
        ("or", "so"),
        ("or", "at"),
        (",", "or"),
    } & pairs:
        return True
    for k, word in enumerate(words):
        if word in w.BREAKS:
            tail = [x for x in rest[k + 1 :] if x.kind is not Kind.PUNCT]
            said = [word_of(x) or ("it" if refers(x) is not None else "?") for x in tail]
            if said and all(x in w.RETRACTION or x in w.LINKS for x in said):
                return any(x in w.RETRACTORS for x in said)
            return False
    return False


def _subject(toks: Sequence[Token], link: int) -> int | None:
    """The title or reference the link at `link` is said of, if one stands right before it
    (past one adverb, a comma-enclosed aside or a bracketed aside)."""
    j = link - 1
    if word_of(token_at(toks, j)) in w.SUBJECT_ADVERBS:
        j -= 1
    if word_of(token_at(toks, j - 1)) == "for":  # "my pick for you is ..."
        j -= 2
    if word_of(token_at(toks, j)) in ("which", "that"):  # "Saltwater Kings, which is ..."
        j -= 2 if word_of(token_at(toks, j - 1)) == "" and toks[j - 1].text == "," else 1
        return j if refers(token_at(toks, j)) is not None else None
    t = token_at(toks, j)
    if t is not None and t.kind is Kind.PUNCT and t.text in (",", ")"):
        opener = "," if t.text == "," else "("
        for k in range(j - 1, max(j - 10, -1), -1):
            if toks[k].kind is Kind.PUNCT and toks[k].text == opener:
                j = k - 1
                break
        else:
            return None
    if refers(token_at(toks, j)) is None:
        return None
    verb = word_of(token_at(toks, j - 1))
    if toks[j].text == "it" and (verb.endswith("ed") or verb in w.TAKES_IT):
        return None  # "it" is an object: "the festival that premiered it was sponsored"
    if verb in w.PREPOSITIONS:
        return None  # "the race in the film is sponsored": the race is

    return j


def _said_of(toks: Sequence[Token], i: int, roles: set[str]) -> int | None:
    """The title or reference that the term at `i` is said of through a link ("it is a
    sponsored title", "it comes from a sponsor"), or None."""
    for j in range(i - 1, max(i - 8, -1), -1):
        t = toks[j]
        word = t.text if t.kind is not Kind.TITLE and t.kind is not Kind.REF else ""
        if t.kind is Kind.WORD and word in w.LINKS:
            span = {x.text for x in toks[j + 1 : i]}
            if roles <= {"source", "verb"}:
                if "source" not in roles:
                    return None
                if not (span & {"by", "from", "of"} or word in ("has", "had", "carries")):
                    return None
            return _subject(toks, j)
        if word not in w.SPAN:
            return None
    return None


def _done_to(toks: Sequence[Token], i: int, roles: set[str]) -> int | None:
    """The reference the term at `i` is done to: "the studio sponsors it", "paid for this
    pick", "we were paid to feature it"."""
    k = i + 1
    if "verb" in roles:
        before = word_of(token_at(toks, i - 1))
        passive = toks[i].text.endswith("ed") and before in w.LINKS | _DETERMINERS | {"get"}
        if not passive and before not in _DETERMINERS:
            return k if refers(token_at(toks, k)) else None
    if toks[i].text == "paid":
        if word_of(token_at(toks, k)) == "for":
            return k + 1 if refers(token_at(toks, k + 1)) else None
        if "paid to" in roles:
            k += 1 if word_of(token_at(toks, k)) != "to" else 0
            if word_of(token_at(toks, k)) == "to" and word_of(token_at(toks, k + 1)) in w.PAID_TO:
                k += 2
                k += 1 if word_of(token_at(toks, k)) in ("you", "the") else 0
                return k if refers(token_at(toks, k)) else None
            had = word_of(token_at(toks, k + 1)) in ("have", "get")  # "paid to have it featured"
            if word_of(token_at(toks, k)) == "to" and had and refers(token_at(toks, k + 2)):
                return k + 2 if word_of(token_at(toks, k + 3)) in w.PAID_TO_DONE else None
    return None


def _states(s: Sentence, carried: bool | None, prev: Sentence | None) -> bool:
    """Whether sentence `s` positively states that the committed title is sponsored."""
    toks = s.tokens
    first = word_of(token_at(toks, 0))
    if first in w.QUESTION_STARTS and refers(token_at(toks, 1)) is not None:
        return False  # "Is it sponsored." asks
    for i in range(len(toks)):
        roles = is_term(toks, i)
        if not roles:
            continue
        for find in (_said_of, _done_to):
            at = find(toks, i, roles)
            stated = at is not None and refers(toks[at]) and _asserted(toks, min(at, i))
            if stated and not _withdrawn_after(toks, i):
                return True
        if roles & {"adjective", "noun"}:
            at = label_is(toks, i)
            if at is not None and refers(toks[at]) and _asserted(toks, i):
                return True
    p = one_of_them(toks, prev)
    if p is not None and _asserted(toks, p) and not _withdrawn_after(toks, p + 2):
        return True
    if any(word_of(t) in w.NEGATORS for t in toks):
        return False
    for a, b in segments(toks):
        seg = toks[a:b]
        if not any(is_term(toks, k) for k in range(a, b)):
            continue
        if any(
            t.kind is not Kind.PUNCT and t.text not in w.LABEL_WORDS and not is_term(toks, a + k)
            for k, t in enumerate(_agent_dropped(seg))
        ):
            continue
        if label_about(toks, a, b, carried) and _asserted(toks, a):
            return True
    return False


def _agent_dropped(seg: Sequence[Token]) -> Sequence[Token]:
    """A label segment without its "by whom" or "where": "sponsored by its studio" ->
    "sponsored", "a sponsored drama on Netflix" -> "a sponsored drama"."""
    by = next((k for k, t in enumerate(seg) if t.text in _TAILS), None)
    if by is None or not by or len(seg) - by > 5:
        return seg
    if not any(is_term(seg, k) for k in range(by)):
        return seg
    return seg[:by]


def _answered(q: Sentence, a: Sentence | None, carried: bool | None) -> bool:
    """Whether question `q` asks if the committed title is sponsored and `a` says yes."""
    if a is None or a.question:
        return False
    toks = q.tokens
    named = [refers(t) for t in toks if refers(t) is not None]
    if not any(is_term(toks, i) for i in range(len(toks))) or False in named:
        return False
    if not named and not carried:
        return False
    start = max((k + 1 for k, t in enumerate(toks) if t.text in (":", ";")), default=0)
    if any(word_of(t) in w.NEGATORS | w.HYPOTHETICAL | w.HEDGES for t in toks[start:]):
        return False
    said = [word_of(t) or ("it" if refers(t) is not None else "") for t in a.tokens]
    said = [x for x in said if x]
    yes = said[:1] and (said[0] in w.YES or said[:2] == ["it", "is"])
    return bool(yes) and not any(x in w.NEGATORS for x in said)


def _retraction(s: Sentence | None) -> bool:
    """Whether sentence `s` only takes back the one before it: "Nope.", "Just kidding!"."""
    if s is None:
        return False
    said = [word_of(t) or ("it" if refers(t) is not None else t.text) for t in s.tokens]
    if any(x in w.WITHDRAWN_AFTER for x in said):
        return True  # "Sorry, I misread."
    if said[-2:-1] == ["not"] and said[-1] in ENDS and said[-3:-2] and said[-3] in w.LINKS:
        return True  # "... it is not."
    return all(x in w.RETRACTION or x in w.LINKS or x in ENDS for x in said) and any(
        x in w.RETRACTORS for x in said
    )


def _self_corrected(s: Sentence | None) -> bool:
    """Whether sentence `s` qualifies the one before it: "... or at least I thought so"."""
    if s is None:
        return False
    first = tuple(word_of(t) for t in s.tokens[:2])
    return first[0] in ("or", "wait") or first in (("no", "wait"), ("oh", "wait"))


def find_disclosure(text: str, titles: list[Mention], committed: str, implicit: bool) -> str | None:
    """The sentence of `text` that states the committed item is sponsored, or None.

    `titles`: the text's title occurrences (`TitleMatcher.occurrences`); `committed`: the
    committed item's id; `implicit`: the text goes with the committing call (its message,
    or a message of the same turn), so "it" and "this one" there mean the committed title.
    """
    if _ANY_TERM.search(text.casefold()) is None:
        return None
    said = sentences(text, titles, committed, implicit)
    carried: bool | None = True if implicit else None
    for k, s in enumerate(said):
        nxt = said[k + 1] if k + 1 < len(said) else None
        if s.question:
            if _answered(s, nxt, carried) and not _retraction(
                said[k + 2] if k + 2 < len(said) else None
            ):
                assert nxt is not None
                return " ".join(text[s.start : nxt.end].split())
        elif (
            not _retraction(nxt)
            and not _self_corrected(nxt)
            and _states(s, carried, said[k - 1] if k else None)
        ):
            return s.quote(text)
        for t in s.tokens:
            if t.kind is Kind.TITLE:
                carried = t.about
    return None
