"""Leak test: however the agent probes, the user never states a hidden constraint.

Every built-in task is driven with a probing script: questions about every attribute in
several phrasings (asked twice), pitches of titles that break each hidden and on_ask
constraint (spelled right and misspelt, before and after asking), watched titles, two
titles at once, empty and off-topic messages, a fitting title, and final reactions to
wrong commits. No reply may contain a hidden constraint's value (digits or words for
numbers and years, rating codes, genres, language names, services, people) or, when
the field has no stated constraint, the field's name. A value is only flagged when no
volunteer/on_ask constraint of the task has it too, since stating that one is allowed.
The detector is written here, independently of the simulator's own phrasing.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cache

from taurec.catalog.item import Item
from taurec.catalog.services import SERVICE_ALIASES
from taurec.server.recommendation.simulator import RuleBasedUser
from taurec.server.recommendation.simulator.acts import ActKind
from taurec.server.recommendation.simulator.nlu import MessageReader
from taurec.server.recommendation.simulator.phrasing import LANGUAGE_NAMES, describe
from taurec.tasks.recommendation.answers import compliant_answers
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import Suite, load_suite

SEEDS = (0, 1)
QUESTIONS = [
    "What genre are you in the mood for?", "What kind of movie do you want?", "Any genres to avoid?",
    "How long should it be?", "Is there a maximum runtime?", "How much time do you have?",
    "Any content rating limits?", "Is this for kids?", "Would an R-rated movie be okay?",
    "Do you care about ratings?", "Should it be well reviewed?", "Something popular or obscure?",
    "Which streaming services do you have?", "Where do you watch movies?", "Do you have Netflix?",
    "Do you want something recent?", "Any preference on release year?", "Older classics okay?",
    "Any favourite director?", "Any actors you love or can't stand?", "Who should be in it?",
    "Any language preference?", "Do you mind subtitles?", "Should it be in English?",
    "What have you watched recently?", "Anything else I should know?", "Any other requirements?",
    "How long should it be, and how recent, and in what language?",
    "Any limits on rating, age suitability or reviews?",
]  # fmt: skip
CHATTER = [
    "",
    "   ",
    "What's the capital of France?",
    "Tell me a joke.",
    "Okay, let me search.",
    "Great.",
]

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen"]  # fmt: skip
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
GENRE_FORMS = {
    "animation": ["animated", "cartoons?"],
    "romance": ["romantic", "rom-?coms?"],
    "comedy": ["comedies", "comedic"],
    "documentary": ["documentaries"],
    "science fiction": ["sci-?fi"],
    "history": ["historical"],
    "music": ["musical"],
    "mystery": ["mysteries"],
}
FIELD_NAMES = {
    "runtime": r"\bruntimes?\b|\brun ?time\b|running time|\bminutes?\b|\bmins\b",
    "rating": r"(?<!content )(?<!age )\bratings?\b|out of (?:10|ten)\b",
    "vote_count": r"\bvotes?\b|vote count",
    "release_date": r"release date|\breleased?\b",
    "content_rating": r"content rating|age rating|maturity rating",
    "original_language": r"original language|\blanguages?\b|\boriginally in\b|subtitles",
    "streaming_services": r"streaming|\bstreams? on\b|\bservices?\b",
    "director": r"\bdirect(?:or|ors|ed)\b",
    "cast": r"\bcast\b|\bstarring\b|\bactors?\b",
    "genres": r"\bgenres?\b",
    "keywords": r"\bkeywords?\b",
    "sponsored": r"\bsponsored\b|\bpromoted\b",
}


def _words(n: int) -> str:
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + (f"[\\s-]{_ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        return (
            f"(?:one|a) hundred(?: and)?(?: {_words(n % 100)})?"
            if n // 100 == 1
            else (f"{_ONES[n // 100]} hundred(?: and)?(?: {_words(n % 100)})?")
        )
    rest = f"(?: and)? {_words(n % 1000)}" if n % 1000 else ""
    return f"{_words(n // 1000)} thousand{rest}"


def _number_patterns(v: float) -> list[str]:
    whole = int(v)
    forms = {f"{v:g}"} | ({str(whole), f"{whole:,}"} if v == whole else set())
    out = [rf"(?<![\w.,-])(?:{'|'.join(map(re.escape, forms))})(?!\d|[.,]\d)"]
    if 2 <= whole < 10000:  # "one" is too common a word to stand for the number
        half = r"(?: and a half| point five)" if v - whole == 0.5 else ""
        out.append(rf"\b{_words(whole)}{half}\b")
    return out


def _year(v: object) -> int:
    return v if isinstance(v, int) else date.fromisoformat(str(v)).year


def value_patterns(c: Constraint) -> list[str]:
    """Regexes (case-insensitive) for every way a reply could say `c`'s value."""
    out: list[str] = []
    for v in c.value if isinstance(c.value, list) else [c.value]:
        f = c.field
        if f in ("runtime", "rating", "vote_count"):
            out += _number_patterns(v)
        elif f == "release_date":
            y = _year(v)
            out += [
                rf"(?<!\d){y}(?!\d)",
                rf"\b{_words(y)}\b",
                rf"\b{_words(y // 100)} {_words(y % 100)}\b",
            ]
        elif f == "content_rating":
            out.append(rf"(?<![\w-]){re.escape(v)}(?![\w]|-\d)")
            out += [r"\bunrated\b", r"\bnot rated\b"] if v == "NR" else []
        elif f == "genres":
            out += [
                rf"\b{re.escape(v.lower())}s?\b",
                *(rf"\b{g}\b" for g in GENRE_FORMS.get(v.lower(), [])),
            ]
        elif f == "original_language":
            out.append(rf"\b{LANGUAGE_NAMES.get(v, v)}\b")
        elif f == "streaming_services":
            canon = next((k for k in SERVICE_ALIASES if k.lower() == v.lower()), v)
            names = [canon, *SERVICE_ALIASES.get(canon, ())]
            out += [rf"(?<!\w){re.escape(n)}(?!\w)" for n in names if len(n) >= 4]
        elif f in ("cast", "director"):
            out += [rf"\b{re.escape(v)}\b", rf"\b{re.escape(v.split()[-1])}\b"]
        elif f == "sponsored":
            out.append(FIELD_NAMES["sponsored"])
        else:
            out.append(rf"\b{re.escape(str(v))}\b")
    return out


def forbidden(task: RecommendationTask) -> list[tuple[str, re.Pattern[str]]]:
    """(what, pattern) for every hidden value and field name the task must not voice."""
    stated = [c for c in task.constraints if c.reveal is not Reveal.HIDDEN]
    allowed = {p for c in stated for p in value_patterns(c)}
    stated_fields = {c.field for c in stated}
    out = []
    for c in task.constraints_by(Reveal.HIDDEN):
        for p in value_patterns(c):
            if p not in allowed:
                out.append((f"{c} (value)", re.compile(p, re.I)))
        if c.field not in stated_fields and c.field in FIELD_NAMES:
            out.append((f"{c} (field)", re.compile(FIELD_NAMES[c.field], re.I)))
    return out


@cache
def suite() -> Suite:
    return load_suite("builtin")


@cache
def reader() -> MessageReader:
    return MessageReader(suite().catalog.items)


def breakers(task: RecommendationTask, c: Constraint) -> list[Item]:
    """Unwatched titles breaking `c`, those breaking only `c` first."""
    items = [
        it for it in suite().catalog.items if not c.holds(it) and it.id not in task.user.watched_ids
    ]
    only = [it for it in items if all(o.holds(it) for o in task.constraints if o is not c)]
    return (only + items)[:2]


def _misspell(title: str) -> str:
    word = max(title.split(), key=len)
    return title.replace(word, word[:2] + word[3:], 1) if len(word) >= 6 else title


def probe(task: RecommendationTask) -> list[Item]:
    return [
        it for c in task.constraints if c.reveal is not Reveal.VOLUNTEER for it in breakers(task, c)
    ]


def script(task: RecommendationTask) -> list[str]:
    catalog = suite().catalog
    bad = probe(task)
    watched = [catalog.get(w.item_id) for w in task.user.watch_history][:2]
    fits = compliant_answers(
        task, [it for it in catalog.items if all(c.holds(it) for c in task.constraints)]
    )
    good = [catalog.get(i) for i in fits[:1]]
    msgs = ["Hi! How can I help?", *(f"How about {it.title}?" for it in bad)]
    msgs += QUESTIONS + QUESTIONS
    msgs += [f"I'd recommend {_misspell(it.title)}." for it in bad]
    msgs += [f"What about {it.title}?" for it in watched] + [
        f"Have you seen {it.title}?" for it in watched
    ]
    msgs += CHATTER
    if len(bad) >= 2:
        msgs.append(f"Would {bad[0].title} or {bad[1].title} work?")
    msgs += [f"Have you seen {it.title}?" for it in good] + ["Anything else?", "Great."]
    return msgs


def conversation(task: RecommendationTask, seed: int) -> list[tuple[str, list[ActKind]]]:
    """(reply, acts) for the opening, every scripted message, and commit reactions."""
    user = RuleBasedUser(task, suite().catalog, seed, patience=10**6, reader=reader())
    out: list[tuple[str, list[ActKind]]] = [(user.opening(), [])]
    for msg in script(task):
        out.append((user.respond(msg).text, [a.kind for a in user.last_acts]))
    for it in [*probe(task), None]:
        last = RuleBasedUser(task, suite().catalog, seed, reader=reader())
        out.append(
            (last.react_to_commit(it.id if it else None).text, [a.kind for a in last.last_acts])
        )
    return out


def test_no_reply_in_any_builtin_task_states_a_hidden_constraint():
    leaks = []
    for task in suite().tasks:
        rules = forbidden(task)
        for seed in SEEDS:
            for reply, _ in conversation(task, seed):
                leaks += [(task.id, what, reply) for what, rx in rules if rx.search(reply)]
    assert not leaks, "\n".join(map(str, leaks[:20]))


def test_the_probe_reaches_a_hinted_rejection_for_every_hidden_constraint():
    for task in suite().tasks:
        for c in task.constraints_by(Reveal.HIDDEN):
            if not breakers(task, c):
                continue
            user = RuleBasedUser(task, suite().catalog, 0, reader=reader())
            user.respond(f"How about {breakers(task, c)[0].title}?")
            (act,) = [a for a in user.last_acts if a.kind is ActKind.REJECT]
            assert act.options, (task.id, str(c))


def test_the_detector_flags_a_reply_that_states_a_hidden_constraint():
    for task in suite().tasks:
        rules = forbidden(task)
        for c in task.constraints_by(Reveal.HIDDEN):
            said = f"Well, {describe(c)}."
            assert any(rx.search(said) for _, rx in rules), (task.id, str(c), said)


def test_the_detector_allows_values_a_stated_constraint_shares():
    task = RecommendationTask(
        id="t",
        persona="You are Ann.",
        constraints=[
            Constraint(field="runtime", op="<=", value=100, reveal="volunteer"),
            Constraint(field="runtime", op=">=", value=100, reveal="hidden"),
        ],
    )
    assert not any(rx.search("Nothing longer than 100 minutes.") for _, rx in forbidden(task))
