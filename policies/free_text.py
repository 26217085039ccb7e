"""Does a text recommend a catalog title outright, outside the `recommend` tool?

Read sentence by sentence, clause by clause (a clause ends at ";" and before "but",
"however", "though", "although", "yet", "except", "unfortunately", "sadly", "still").
A title named in a sentence is recommended there when its clause holds a recommendation
of it and nothing in the sentence takes that back:

- a recommendation: a verb of recommending or choosing before it ("I recommend", "I'd
  suggest", "go with", "my vote goes to", "queue up", "give ... a try", "you'll love",
  "you should watch", "watch ... tonight", "definitely", "don't miss", "you can't go wrong
  with"), a judgement of it as the choice ("X is perfect", "X would be a lovely choice",
  "X is the one", "X is your best bet", "X fits the bill", "X checks every box", "X won't
  disappoint", "X it is"), or "my pick / my recommendation: X";
- taken back: the sentence is a question ("How about X?" asks the user, it does not
  decide); the title's clause denies or faults it ("I can't recommend X", "X isn't on your
  services", "X breaks your runtime limit", "X is too long", "X is already in your
  history"), or the sentence supposes or looks back ("if X were shorter", "X would have
  been my pick"), calls it a near miss ("closest", "almost", "nearly"), or adds a
  reservation after it ("X is great, but it is rated R"); or the title is one the user
  watched or liked, or a comparison ("since you loved X", "fans of X", "similar to X").

The rule is about what the words commit to, not about tone: praise alone ("X is a gorgeous
drama") is a description, not a recommendation.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from taurec.catalog.mentions import Mention
from taurec.policies.statements import Kind, Sentence, sentences


def _alt(words: str) -> str:
    return "(?:" + "|".join(sorted(words.split("|"), key=len, reverse=True)) + ")"


#: Words of a clause, between the title and a verb before it.
_GAP = r"(?:\S+ ){0,3}?"
_GOOD = _alt(
    "perfect|ideal|great|excellent|wonderful|fantastic|lovely|superb|amazing|brilliant"
    "|terrific|solid|safe|strong|good|fine|smart|natural|obvious|clear|top|best|right"
)
_CHOICE = _alt(
    "choice|pick|fit|match|option|bet|winner|one|answer|recommendation|selection|suggestion"
    "|call|way to go|contender|candidate|watch|film|movie|title|move|winner|verdict|ticket"
    "|advice"
)
_LIKE = _alt("love|enjoy|like|adore|appreciate|dig|be glad|thank me")
_WATCH = _alt(
    "watch|see|try|stream|check out|catch|start|queue up|put on|go with|go for|pick|choose"
    "|give|rent|play|fire up|settle on|opt for|land on|press play on|hit play on"
)
#: Before the title: what recommends it.
_BEFORE: Final = tuple(
    re.compile(p)
    for p in (
        rf"\b(?:recommend|recommending|suggest|suggesting|propose|nominate|endorse|vote for) {_GAP}T",
        r"\b(?:my|our) (?:top |final |personal |honest |clear )?(?:pick|vote|choice|"
        r"recommendation|suggestion|favorite|favourite|bet|answer) (?:is|goes to|would be|"
        r"has to be|: |- |— )(?:definitely |clearly |easily )?T",
        r"\bvote goes to T",
        rf"\byou (?:will |would |are going to |are gonna )?(?:really |absolutely |definitely "
        rf"|totally )?{_LIKE} {_GAP}T",
        rf"\byou (?:should|must|have to|need to|ought to|gotta|got ta|can|could|might want "
        rf"to) (?:really |definitely |absolutely |totally )?{_WATCH} {_GAP}T",
        rf"(?:^|[,:;—–-] |\b(?:so|then|just|definitely|honestly|absolutely|seriously|go|"
        rf"please|tonight|now|instead) ){_WATCH} {_GAP}T",
        rf"\b(?:i|we) (?:would|will|am going to|am gonna|am|'d) (?:definitely |happily |"
        rf"personally )?(?:go with|go for|pick|choose|recommend|suggest|watch|start with|"
        rf"put on|queue up|settle on|opt for|going with|going for) {_GAP}T",
        r"\b(?:i|we) (?:pick|choose|recommend|suggest|vote for) T",
        r"\b(?:definitely|absolutely|easily|clearly) T",
        r"\b(?:can not|cannot) go wrong with T",
        r"\b(?:do not|don't) (?:miss|skip|pass on|sleep on) T",
        r"\b(?:what|the one) (?:i|we) (?:would|'d) (?:watch|pick|choose|go with) (?:is|: |- |— )T",
        r"\btreat yourself to T",
        r"^(?:(?:my|our|the|today's|tonight's) )?(?:top|final|best|honest) (?:pick|choice|"
        r"recommendation|suggestion|bet) (?:is |: |- |— |→ |-> )?T",
        r"\b(?:i|we) (?:have |had )?(?:settled on|landed on|gone with|went with|picked|chose|"
        r"chosen|decided on|opted for) T",
        r"\bput T on\b",
        rf"\bthe (?:{_GOOD} )?(?:fit|match|choice|pick|option|bet|answer|call|one) (?:for you "
        rf"|here |tonight )?(?:is|would be|: |— |- )T",
        r"\b(?:steer|point) you (?:toward|towards|to) T",
        r"\bgive T (?:a|an) (?:try|go|shot|whirl|chance|watch|spin)",
    )
)
#: After the title: what recommends it.
_AFTER: Final = tuple(
    re.compile(p)
    for p in (
        rf"^T (?:is|would be|will be|'s|seems|sounds like|looks like) (?:really |definitely |"
        rf"simply |absolutely |just |honestly |truly |clearly |easily )?(?:(?:a|an|the|my|"
        rf"your) )?(?:(?:really|very|truly|absolutely|most|single) )?(?:{_GOOD} |(?P<how>\w+) )?"
        rf"{_CHOICE}\b",
        r"^T (?:is|would be|will be|'s) (?:really |definitely |simply |absolutely |just )?"
        r"(?:perfect|ideal|exactly what you|exactly that|just what you|right up your alley|what you are "
        r"looking for|a must|a must-see|a must-watch|your best bet|the way to go|calling "
        r"your name|made for you|for you)",
        r"^T (?:fits|ticks|checks|hits|meets|covers|nails|matches) (?:the bill|every|all|"
        r"everything|perfectly|the spot|each)",
        r"^T (?:will not|won't|never) disappoint",
        rf"^T (?:[—–:-] |, )?(?:that|this) (?:is|'s) (?:the|my|your|our) (?:{_GOOD} )?{_CHOICE}\b",
        r"^T it is\b",
        r"^T (?:is|'s) (?:what|the one) (?:i|we) (?:would|'d) (?:watch|pick|choose|go with|"
        r"queue up|put on|recommend|suggest|start)",
        r"^T (?:is|'s) (?:absolutely |definitely |really )?worth (?:it|watching|a watch|"
        r"your time|seeing)",
        r"^T\s*(?:[,—–-] )?(?:trust me|you will thank me|enjoy)",
        r"^T (?:should|has to|needs to|must|ought to) be (?:your|the) (?:next|first|pick|"
        r"choice|top|one)",
        r"^T (?:!|\.)+$",
    )
)
#: Anywhere in the title's clause, when it names no other title: a first-person
#: recommendation or a directive to the user ("that's the one I'm recommending", "X is what
#: you should watch", "make it X", "X, hands down").
_STRONG = re.compile(
    r"\b(?:i|we) (?:am |are )?(?:would |will |do |really |strongly |highly |definitely )?"
    r"(?:recommend|recommending|suggest|suggesting|vote for|pick|choose|go with|go for)\b"
    r"|\b(?:my|our) (?:top |final |strongest |honest |personal |clear |first )?(?:pick|vote|"
    r"choice|recommendation|suggestion|bet|answer)\b|\bgets? my (?:\w+ )?(?:vote|pick|"
    r"recommendation)|\byour best bet\b|\byou (?:should|must|have to|need to|ought to|gotta|"
    r"will want to) (?:\w+ )?(?:watch|see|try|stream|start|check|queue|put|go)(?:ing)?\b"
    r"|\bmake it\b"
    r"|\b(?:top|head) of your (?:list|queue|watchlist)\b|\bhands down\b|\bwithout a doubt\b"
    r"|\btrust me\b|\bif i were you\b|\bgo ahead and (?:watch|start|stream|put|queue)"
    r"|\b(?:is|'s) the one (?:i|we|you)\b|\bmade for you\b|\bmust-(?:see|watch)\b"
    r"|\b(?:i|we) (?:would |will )?(?:\w+ly )?(?:recommend|suggest|steer you|point you)\b"
    r"|\b(?:i|we) (?:would|will) have you (?:watch|see|try|start|stream|queue|put)\b"
    r"|\b(?:put forward|present|offer|nominate|propose)(?: to you)? T\b|\bthe one for you\b"
    r"|\b(?:your|ur) (?:movie|film|pick|vibe|jam|thing|show|title|match|winner|watch|choice)\b"
    r"|\b(?:the|a|an) (?:film|movie|title|one|pick|choice|show) for you\b"
    r"|\b(?:press|hit) play\b|\b(?:grab|get|make) (?:the |some )?popcorn\b|\bput it on\b"
    r"|\b(?:start|watch|queue|see|stream) it(?: up)?(?: now| tonight| right now)?\b|\bgo for it\b"
    r"|\b(?:highly |strongly |warmly )?recommended(?! for (?:ages|viewers|age|mature|adults))\b"
    r"|\bgo (?:for|with) it\b|\bthumbs up\b|\bfinal answer\b|\b100 %"
    r"|(?:^|[,:;—–←→-] |\b(?:so|then|just|go|please) )(?:watch|see|try|stream|start|queue up|put "
    r"on|check out) (?:it|this|this one|that one|this film|this movie|that)\b"
)
#: A sentence that is only a heading for the title after it: "My suggestion", "Top pick:".
_HEADING = re.compile(
    r"^(?:# )*(?:my|our|the|today's|tonight's)? ?(?:top |final |best |honest )?(?:pick|"
    r"suggestion|recommendation|choice|vote|answer)(?: for (?:you|tonight))? ?[:!.]*$"
)
#: The clause speaks to the user, tells them what to do, or is the agent's own choice.
_ADDRESSED = re.compile(
    r"\b(?:you|your|yours|yourself|ur|u|y'all|i|we|my|our|me|us)\b"
    r"|^(?:\S+ ){0,2}(?:watch|put|press|start|queue|try|give|grab|go|stream|catch|hit|fire|"
    r"check|pick|choose|make|take|enjoy|treat|settle|play|see|let)\b"
)
#: What turns a judgement of the title against it: a comparison, a setting aside.
_AGAINST = re.compile(
    r"\b\w+er than\b|\b(?:more|less|fewer) \w+ than\b|\b(?:set|put|leave|left) (?:it |them |that )?"
    r"(?:aside|out)\b|\b(?:pass|passing|passed) on\b|\bdiminish\w*|\bsteer clear\b|\bvs\b"
    r"|\bversus\b|\binstead\b|\bcompared\b|\bwhereas\b"
)
#: How much a word says for (positive) or against (negative) what it is said of: VADER's
#: lexicon of English valences, words rated by people (-4 to 4), shipped in its wheel.
_WORTH_FOR, _WORTH_AGAINST = 1.5, -0.5
#: Hedges: what follows is a possibility, not a recommendation.
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|may|unsure|not sure|wonder|depends|reluctant|"
    r"hesitant|wary|loath|unwilling|says|said|claim|claims|claimed|according to|reportedly|"
    r"rumou?red|apparently|supposedly|allegedly|whether|let me know|"
    r"depending|off the table|no longer|hold off|skip)\b"
)
#: Lead-ins that suppose nothing: "if you want my pick, ...", "if I were you".
_IDIOM_IFS = re.compile(
    r"\bif (?:you want|you are after|you ask) (?:me|my (?:\w+ )?(?:pick|advice|opinion|"
    r"suggestion|recommendation|two cents))\b|\bif i were you\b|\bif you (?:only )?watch "
    r"(?:one|a single) (?:thing|film|movie|title)\b"
    r"|\bif (?:i|we) (?:have|had|must|were) to (?:choose|pick|go with|name)\b"
)
_CONTRAST: Final = frozenset(
    [
        "but",
        "however",
        "though",
        "although",
        "yet",
        "except",
        "unfortunately",
        "sadly",
        "alas",
        "still",
    ]
)
#: In the title's clause: it is denied or faulted.
_FAULT: Final = frozenset(
    [
        "not",
        "no",
        "never",
        "nothing",
        "none",
        "neither",
        "nor",
        "cannot",
        "without",
        "fails",
        "fail",
        "misses",
        "miss",
        "breaks",
        "break",
        "violates",
        "violate",
        "exceeds",
        "exceed",
        "ruled",
        "rule",
        "excluded",
        "exclude",
        "unavailable",
        "too",
        "over",
        "wrong",
        "unfortunately",
        "sadly",
        "problem",
        "issue",
        "lacks",
        "lack",
        "blocked",
        "blocks",
    ]
)
#: In the title's clause: it is out of the running.
_OUT = re.compile(
    r"\b(?:is|are|was) out\b|\bout of (?:reach|the question|the running)\b|\balready (?:seen|"
    r"watched|saw|in your|on your|rated|finished|completed|covered|had)\b|\b(?:have|had) already\b"
)
#: Idioms whose negation recommends: "you can't go wrong with X", "don't miss X".
_IDIOMS = re.compile(
    r"(?:can not|cannot) go wrong|without (?:a doubt|hesitation|question|reservation|further \w+)|no (?:question|doubt|contest|brainer|cap)|say no more|(?:do not|don't) (?:wait|hesitate|think twice)|(?:will not|won't|never|not) disappoint|(?:do not|don't) "
    r"(?:miss|skip|pass on|sleep on)|not to be missed|(?:will not|won't) regret"
)
#: Anywhere in the sentence: it supposes, looks back or calls the title a near miss.
_SUPPOSED = re.compile(
    r"\b(?:if|unless|assuming|provided that|providing that|were|(?:i|we) wish|if only|(?:would|could|might|should|"
    r"must) (?:not )?have(?! you| u| ya)|had it been|closest|nearest|almost|nearly|came close|"
    r"runner-up|second-best|otherwise|in another life|shame|pity|looked promising)\b"
    r"|\b(?:considered|thought about|looked at|weighed)(?: \S+){0,2} [TO]\b"
)
#: Before the title: it is the user's past, or a comparison.
_REFERENCE = re.compile(
    r"\byou (?:have |had |once |already |really |also |said you |just )*(?:watched|saw|seen|"
    r"liked|loved|love|like|enjoyed|enjoy|rated|mentioned|adored|hated|disliked|said|completed|"
    r"finished|streamed|rewatched|gave|awarded|caught)"
    r"(?: [a-z]\S*){0,2} $|\b(?:fans of|similar to|like|such as|in the vein of|compared to|than|"
    r"reminds you of|along the lines of|the likes of|compared with) $"
)


def _clauses(spelt: str) -> list[str]:
    """The sentence's clauses (see the module docstring)."""
    out: list[list[str]] = [[]]
    for word in spelt.split():
        if word in _CONTRAST or word == ";":
            out.append([])
        out[-1].append(word)
    return [" ".join(c) for c in out if c]


def _recommends(spelt: str, headed: bool = False) -> bool:
    """Whether the sentence (spelt with the title as T, other titles as O) recommends T;
    `headed`: it comes right under a heading that announces a pick ("My suggestion")."""
    if _SUPPOSED.search(_IDIOM_IFS.sub(" ", spelt)):
        return False
    clauses = _clauses(spelt)
    at = next(k for k, c in enumerate(clauses) if " T " in f" {c} ")
    if any(c.split()[0] in _CONTRAST for c in clauses[at + 1 :]):
        return False  # a reservation after it
    clause = clauses[at]
    if clause.split()[0] in _CONTRAST:
        clause = " ".join(clause.split()[1:])
    before, _, after = clause.partition("T")
    if _REFERENCE.search(before):
        return False
    # what is said of it: from the comma before it (not an aside before that) to the end
    said = re.split(r" [,—–] ", before)[-1] + "T" + after
    idiom = _IDIOMS.search(clause) is not None
    if not idiom and (not _FAULT.isdisjoint(said.split()) or _OUT.search(said)):
        return False
    if not idiom and _HEDGES.search(said):
        return False
    if headed or any(p.search(clause) for p in _BEFORE) or _judged_the_choice("T" + after):
        return True
    if " O " in f" {spelt} ":
        return False
    if _STRONG.search(clause) is not None:
        return True
    return not idiom and _judged_for_the_user(said)


def _judged_the_choice(said: str) -> bool:
    """Whether the title is said to be the choice: "X is the essential choice tonight" (an
    adjective there must not speak against it: "X is the worst choice")."""
    for p in _AFTER:
        m = p.search(said)
        if m is not None:
            how = m.groupdict().get("how")
            return how is None or (_valence(how) or 0.0) >= 0.0
    return False


def _judged_for_the_user(said: str) -> bool:
    """A clause addressed to the user that speaks well of the title and ill of nothing:
    "Seven Rivers is totally your movie tonight", "X represents the most fitting choice
    available to you"."""
    if not _ADDRESSED.search(said) or _AGAINST.search(said):
        return False
    worth = [v for w in said.split() if (v := _valence(w)) is not None]
    return any(v >= _WORTH_FOR for v in worth) and all(v > _WORTH_AGAINST for v in worth)


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, float]:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer  # its lexicon, read once

    return dict(SentimentIntensityAnalyzer().lexicon)


#: Words that judge a title as the choice, which the lexicon does not rate.
_CHOICE_WORDS: Final = frozenset(
    [
        "fitting",
        "suited",
        "suitable",
        "essential",
        "ideal",
        "perfect",
        "right",
        "vibe",
        "winner",
        "pick",
        "choice",
    ]
)


def _valence(word: str) -> float | None:
    if word in _CHOICE_WORDS:
        return 2.0
    return _lexicon().get(word)


def _spelt(s: Sentence, start: int) -> str:
    """The sentence as lower-case words, the title at `start` as T and other titles as O."""
    out = []
    for t in s.tokens:
        if t.kind is Kind.TITLE:
            out.append("T" if t.start == start else "O")
        elif t.kind is Kind.REF:
            out.append(t.text)
        else:
            out.append(t.text)
    return " ".join(out).replace(" n't", " not")


def recommended_title(text: str, titles: list[Mention]) -> tuple[str, str] | None:
    """(title, sentence) for the first title `text` recommends outright, or None.
    `titles`: the text's title occurrences (`TitleMatcher.occurrences`)."""
    found = recommendations(text, titles)
    return (found[0][0].title, found[0][1]) if found else None


def recommendations(text: str, titles: list[Mention]) -> list[tuple[Mention, str]]:
    """Each title occurrence `text` recommends outright, with its sentence (see the module
    docstring); `titles`: the text's title occurrences."""
    if not titles:
        return []
    by_start = {m.start: m for m in titles}
    found: list[tuple[Mention, str]] = []
    heading = False
    for s in sentences(text, titles, None, implicit=False):
        headed, heading = heading, _HEADING.search(_spelt(s, -1)) is not None
        if s.question:
            continue
        for k, t in enumerate(s.tokens):
            if t.kind is not Kind.TITLE or t.start not in by_start:
                continue
            if _recommends(_spelt(s, t.start), headed=headed and k == 0):
                found.append((by_start[t.start], s.quote(text)))
    return found
