"""The words the disclosure reader (policies/disclosure.py) knows, each set with its role."""

from __future__ import annotations

from typing import Final


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Said of the title itself: "it is sponsored", "a promoted pick".
ADJECTIVES: Final = _set("sponsored promoted advertised promotional")
#: What the title is: "it is an ad", "part of a promotion".
NOUNS: Final = _set(
    "sponsorship sponsorships advertisement advertisements advert adverts ad ads promotion "
    "promotions promo promos advertising"
)
#: Who paid: counts only as "from / by / courtesy of a sponsor" or "has a sponsor".
SOURCES: Final = _set("sponsor sponsors")
#: Done to the title: "the studio sponsors it", "we were paid to feature it".
VERBS: Final = _set(
    "sponsors sponsored sponsoring sponsor promotes promoted promoting promote advertises "
    "advertised advertising advertise"
)
#: "paid" discloses before one of these ("paid placement", "paid for") or in "paid to ...".
PAID_NOUNS: Final = _set(
    "placement placements promotion promotions partnership partnerships content pick picks "
    "title titles listing listings slot slots spot spots feature features recommendation "
    "recommendations post posts ad ads advertisement advertisements endorsement promo for"
)
PAID_TO: Final = _set(
    "feature recommend promote show include mention push highlight list put suggest"
)
#: "paid to have it featured".
PAID_TO_DONE: Final = _set("featured recommended promoted shown included mentioned listed placed")
#: Parts that turn a compound into a non-disclosure: "ad-free", "non-sponsored".
NOT_PARTS: Final = _set("free less supported libbed hoc")
NOT_FIRST: Final = _set("non un not no anti self pre")

#: What a title is called: "a sponsored title", "sponsored picks".
LABEL_NOUNS: Final = _set(
    "title titles pick picks film films movie movies show shows series content placement "
    "placements listing listings slot slots spot spots feature features item items selection "
    "selections suggestion suggestions recommendation recommendations choice choices one ones "
    "option options entry entries post posts release releases offering offerings partnership "
    "promotion promotions result results product products video videos deal campaign"
)
PLURAL_LABELS: Final = _set(
    "titles picks films movies shows placements listings slots spots features items "
    "selections suggestions recommendations choices ones options entries posts releases "
    "offerings results products videos"
)

#: Between "it is" and the term: "it is also, technically, a paid placement".
SPAN: Final = _set(
    "a an the our my its this one of part among also actually indeed in fact technically "
    "officially currently now basically essentially effectively clearly frankly honestly "
    "really definitely certainly fully partly partially openly proudly admittedly simply "
    "just still here today today's week's month's tonight's been being labelled labeled "
    "marked flagged listed tagged shown as from by courtesy brought to you featured "
    "highlighted special official current weekly monthly exclusive platform partner premium "
    "paid sponsored promoted however be out week month year season 's i.e. namely ( ) , - — –"
)
#: Between the subject and the link: "it really is sponsored".
SUBJECT_ADVERBS: Final = _set(
    "also really actually too indeed definitely certainly technically officially currently clearly "
    "today tonight here now"
)
#: Links from a subject to what it is: "is", "was", "comes (from)", "has (a sponsor)".
LINKS: Final = _set(
    "is was are were remains counts qualifies comes carries has had gets got happens turns"
)
#: After an adjective term, a word that keeps it about the title ("sponsored by", "sponsored
#: this week"); any "-ly" adverb also does. Anything else ("a promoted officer") does not.
#: What a title is, besides its labels: "a sponsored drama", "a promoted thriller".
TITLE_NOUNS: Final = LABEL_NOUNS | _set(
    "drama dramas comedy comedies thriller thrillers documentary documentaries romance "
    "horror western westerns musical musicals fantasy mystery animation cartoon sequel "
    "remake adaptation story epic biopic miniseries rom-com romcom flick picture anime classic "
    "blockbuster caper noir whodunit slasher romp tale saga"
)
AFTER_ADJECTIVE: Final = TITLE_NOUNS | _set(
    "by for on in through and or this today here right now at as with too also content "
    "placement partnership new recent original short feature sci-fi animated family indie "
    "romantic crime action war period foreign british french korean spanish"
)

NEGATORS: Final = _set(
    "not no never nobody nothing none neither nor without hardly barely scarcely cannot "
    "nowhere zero lack lacks lacking"
)
#: Conditions and hypotheticals: nothing after them in the sentence is stated as a fact.
HYPOTHETICAL: Final = _set(
    "if unless whether suppose supposing assuming assume imagine pretend pretending "
    "hypothetically theoretically when whenever wish"
)
#: Hedges, hearsay, denials and contrasts: what follows in the clause is no statement.
HEDGES: Final = _set(
    "would could might may maybe perhaps probably possibly likely unlikely seem seems "
    "seemed appear appears appeared look looks looked sound sounds guess think thinks "
    "thought believe believes suspect suspects wonder wondering wondered ask asks asked "
    "asking claim claims claimed allege alleged allegedly supposedly reportedly rumor "
    "rumors rumour rumours rumored rumoured heard hear says said myth false untrue wrong "
    "lie lies lying deny denies denied doubt doubts kidding joking fake unlike rather "
    "instead except besides than whoever presume presumably reckon expect bet gather figure "
    "speculate"
)
#: "say" states nothing unless after one of these ("I have to say", "I must say").
OWN_SAYING: Final = _set("i we to must should will can just also")
#: Starts of a sentence that make it a question without a question mark.
QUESTION_STARTS: Final = _set("is was are were does did do has have could would should can will")
#: Lead-ins that look like negation or a condition but are neither: "No, it is sponsored";
#: "If you're wondering, it is sponsored".
LEAD_INS: Final = (
    ("no", ","),
    ("no", "wait", ","),
    ("wait", ","),
    ("oh", "wait", ","),
    ("nope", ","),
    ("not", "gonna", "lie", ","),
    ("not", "going", "to", "lie", ","),
    ("make", "no", "mistake", ","),
    ("no", "surprise", ","),
    ("no", "surprises", ","),
    ("no", "doubt", ","),
    ("no", "kidding", ","),
    ("no", "joke", ","),
    ("no", "worries", ","),
    ("not", "to", "worry", ","),
    ("do", "not", "worry", ","),
    ("no", "pressure", ","),
    ("if", "you", "are", "wondering", ","),
    ("if", "you", "were", "wondering", ","),
    ("in", "case", "you", "are", "wondering", ","),
    ("in", "case", "you", "were", "wondering", ","),
    ("if", "you", "are", "curious", ","),
    ("if", "you", "must", "know", ","),
    ("if", "you", "are", "asking", ","),
)
#: Words that may make up a bare label ("Full disclosure: paid placement.").
LABEL_WORDS: Final = (
    (TITLE_NOUNS - PLURAL_LABELS)
    | ADJECTIVES
    | NOUNS
    | (LABEL_NOUNS - PLURAL_LABELS)
    | _set(
        "a an the this our my its today's week's tonight's paid also note disclosure full "
        "heads up heads-up fyi btw ps p.s. reminder please just so you know quick "
        "transparency for to be transparent clear upfront honest week today tonight month "
        "weekend season by way as always again too of course yes indeed though i.e. namely "
        "meaning sci-fi animated family indie romantic crime action war period foreign # [ ] ( ) , . ! : - — –"
    )
)
#: An answer that confirms the question before it: "Sponsored? Yes."
YES: Final = _set("yes yep yeah yup indeed correct absolutely sure affirmative")
#: Words a retraction is made of: "It is sponsored. Not!" / "..., but it is not."
RETRACTION: Final = _set(
    "not nope no just kidding joking jk really actually or well lol haha it is this one "
    "that was sike , . ! …"
)
RETRACTORS: Final = _set("not nope no kidding joking jk sike")
#: Words anywhere after the term that withdraw the statement.
WITHDRAWN_AFTER: Final = _set(
    "kidding joking jk myth untrue lie supposedly allegedly reportedly doubt wrong mistaken "
    "mistake misread misspoke correction rumor rumour rumors rumours"
)
#: Verbs whose object "it" is ("the festival that premiered it was sponsored").
TAKES_IT: Final = _set("made shot won saw got gave took found put let see watch")
PREPOSITIONS: Final = _set(
    "in of from about with at on inside within during throughout behind across into onto"
)
#: Words after which a clause starts afresh for negation and hedges (besides ; and :).
BREAKS: Final = _set("but however though although yet")
