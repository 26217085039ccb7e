"""NLG: seeded templates that word dialogue acts in the user's voice.

Every act has at least three variants; `Speaker` picks with its own `random.Random`
and avoids repeating the variant it used last time for the same act, so a repeated
answer states the same facts in different words. Constraints are worded by
`phrasing`, hints come ready-made from the policy: templates add no facts of their own.
Placeholders: {s}/{S} a statement (lower/upper first letter), {p}/{P} a soft
preference, {h}/{H} a hint, {intro} "Name here. " or "".
"""

from __future__ import annotations

import random
import re

from taurec.server.recommendation.simulator.acts import Act, ActKind
from taurec.server.recommendation.simulator.nlu import Attribute
from taurec.server.recommendation.simulator.phrasing import describe, describe_all, either
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import RecommendationTask

K = ActKind

_T: dict[str, tuple[str, ...]] = {
    "opening": (
        "Hi! {intro}{S} Can you help me find one?",
        "Hey there. {intro}{S}",
        "Hello! {intro}Could you help me pick a movie? {S}",
    ),
    "opening_open": (
        "Hi! {intro}I'm looking for a movie to watch tonight. Any ideas?",
        "Hello! {intro}Could you recommend a movie for me?",
        "Hey. {intro}I need something to watch. Can you help?",
    ),
    "inform": ("{S}.", "Sure, {s}.", "Good question: {s}.", "Oh, right. {S}."),
    "inform_again": ("Like I said, {s}.", "As I mentioned, {s}.", "Same as before: {s}."),
    "soft": (
        "Nice to have: {p}",
        "If it helps: {p}",
        "Ideally? {P}",
        "Not a must, but ideally: {p}",
    ),
    "soft_again": ("Like I said, {p}", "As I mentioned, {p}", "Same as before: {p}"),
    "vague": (
        "Hmm, not sure. I'll know it when I see it.",
        "Hard to say, honestly. I'll know it when I see it.",
        "I can't really put it into words, but I'll know it when I see it.",
    ),
    "vague_again": (
        "Like I said, I'm not sure. I'll know it when I see it.",
        "Still not sure, sorry. I'll know it when I see it.",
        "I honestly can't say. I'll know it when I see it.",
    ),
    "history": (
        "I've watched a few things lately; it should all be on my profile. Just nothing I've already seen, please.",
        "You can look up what I've watched. I'd rather not rewatch anything.",
        "My watch history's on my account. Something I haven't seen would be great.",
    ),
    "nothing_else": (
        "That's about it, really.",
        "Nothing else comes to mind.",
        "I think that covers it.",
    ),
    "nothing_else_again": (
        "No, that's everything.",
        "Like I said, that's all.",
        "Nope, nothing more.",
    ),
    "accept": (
        "Oh, that sounds perfect. Let's go with that one!",
        "Yes! That's exactly what I'm after.",
        "That works for me, I'd happily watch that.",
        "Ooh, yes, that one sounds great.",
    ),
    "reject_reason": (
        "Hmm, that one doesn't work for me: {s}.",
        "Not that one, sorry. Remember, {s}.",
        "I don't think so. {S}.",
        "That won't do, I'm afraid: {s}.",
    ),
    "reject_hint": (
        "Hmm, {h}.",
        "I don't think so... {h}.",
        "Not sure about that one. {H}.",
        "Maybe not. {H}.",
    ),
    "also_hint": ("Also, {h}.", "And honestly, {h}.", "Besides, {h}."),
    "seen": (
        "I've already seen that one.",
        "Oh, I watched that one already.",
        "Seen it already! Something new, please.",
    ),
    "not_seen": (
        "No, I haven't seen it.",
        "Nope, haven't seen that one.",
        "No, I don't think I've seen it.",
    ),
    "one_at_a_time": (
        "That's a lot at once. Could you pick the one you think fits best?",
        "One at a time, please! Which one would you go with?",
        "I can't weigh several at once. What's your top pick?",
    ),
    "empty": (
        "Sorry, did you say something?",
        "Hmm, I think your message came through empty.",
        "Hello? I didn't get anything there.",
    ),
    "off_topic": (
        "Ha, maybe another time. Can we get back to finding me a movie?",
        "I'd rather stay on track: I'm just after a movie tonight.",
        "Let's focus on the movie, if that's okay.",
    ),
    "greeting": ("Hi! Like I said, {s}", "Hello! {S}", "Hey. {S} Any ideas?"),
    "greeting_open": (
        "Hi! I'm just looking for something to watch.",
        "Hello! I'd like a movie recommendation.",
        "Hey! Can you help me find a movie?",
    ),
    "unclear": (
        "Sorry, I'm not sure what you mean. {S}",
        "Could you ask that another way? {S}",
        "Hmm, I'm not following. {S}",
    ),
    "ack": (
        "Sure, take your time.",
        "Okay, sounds good.",
        "Great, let me know what you find.",
        "Alright.",
    ),
    "already_accepted": (
        "Great, I'm happy with the one I said yes to. Go ahead and lock it in.",
        "Sounds good! I'm set on that one.",
        "Perfect, let's go with what I picked.",
    ),
    "leave": (
        "I think I'll look elsewhere. Thanks anyway, bye!",
        "This isn't really getting anywhere, so I'll leave it for tonight. Thanks.",
        "I'm going to call it a night. Thanks for trying!",
    ),
    "commit_happy": (
        "Perfect, thank you! I'm putting it on now.",
        "Great choice, thanks so much!",
        "That's just what I wanted. Thanks!",
    ),
    "commit_seen": (
        "Oh, I've already seen that one. Thanks anyway.",
        "Hmm, I watched that one already, but thanks for trying.",
        "That's one I've seen before, unfortunately. Thanks though.",
    ),
    "commit_reason": (
        "Hmm, that's not really what I asked for: {s}. Thanks anyway.",
        "Oh. I did say {s}, but okay, thanks.",
        "That's a bit disappointing, since {s}. Thanks for trying.",
    ),
    "commit_hint": (
        "Hmm, okay. {H}, but thanks anyway.",
        "Oh, alright. Honestly, {h}. Thanks for trying.",
        "I'll give it a go, though {h}.",
    ),
    "commit_unknown": (
        "Hmm, I can't find that one anywhere. Thanks anyway.",
        "I'm not sure that's a real title? Oh well, thanks.",
        "That doesn't seem to exist. Thanks for trying.",
    ),
    "abstain_ok": (
        "Thanks for being straight with me. Maybe another night.",
        "Fair enough, I'd rather hear that than get something that doesn't fit. Thanks!",
        "Okay, thanks for being honest.",
    ),
    "abstain_sad": (
        "Oh, that's a shame. I was sure there'd be something. Thanks anyway.",
        "Really? Nothing at all? Well, thanks for trying.",
        "Hmm, that's disappointing, but okay. Thanks.",
    ),
}

_NO_PREFERENCE: dict[Attribute, tuple[str, ...]] = {
    Attribute.GENRE: ("I'm open on genre, honestly.", "No particular genre in mind.", "Any kind of story is fine."),
    Attribute.LENGTH: ("Length doesn't matter much to me.", "I'm not fussed about how long it is.", "Any length is fine."),
    Attribute.MATURITY: ("Nothing's off limits for me.", "I'm fine with grown-up stuff.", "No restrictions on that front."),
    Attribute.QUALITY: ("I'm not too fussed about reviews.", "It doesn't need to be a masterpiece.", "I don't follow the critics much."),
    Attribute.RECENCY: ("Old or new, doesn't matter.", "I don't mind when it came out.", "Any era is fine."),
    Attribute.PEOPLE: ("No particular actors or directors in mind.", "I don't follow who's in what.", "Nobody specific, I'm open."),
    Attribute.LANGUAGE: ("I don't mind what language it's in.", "Subtitles are fine, any language.", "Language isn't an issue."),
    Attribute.SERVICES: ("I'm honestly not sure which apps I have.", "No idea which services I've got, sorry.", "I'd have to check what I subscribe to."),
}  # fmt: skip
_GATED_MATURITY = (
    "Whatever my profile allows is fine.",
    "As long as my profile lets me watch it, I don't mind.",
    "Anything my account allows is fine.",
)
_MY_SERVICES = ("I've got {x}.", "I have {x}.", "I'm subscribed to {x}.")
_AGAIN = ("Like I said, ", "As I said, ", "Again, ")

_NAME = re.compile(
    r"^You are ((?:(?:Professor|Captain|Dr\.?|Doctor|Coach|Aunt|Uncle)\s+)?[A-Z][\w'-]+)(?!-year)"
)


def first_name(persona: str) -> str | None:
    """The name a second-person persona gives ("You are Priya, a 34-year-old ...")."""
    m = _NAME.match(persona.strip())
    return m.group(1) if m else None


def _lower(s: str) -> str:
    return s if re.match(r"I\b|I'", s) else s[:1].lower() + s[1:]


def _upper(s: str) -> str:
    return s[:1].upper() + s[1:]


class Speaker:
    """Words acts for one user. `rng` is the only source of variation."""

    def __init__(self, task: RecommendationTask, rng: random.Random) -> None:
        self.task = task
        self.rng = rng
        self.name = first_name(task.persona)
        self.lowercase = "lowercase" in task.persona.lower()  # "You type in lowercase"
        self._last: dict[str, int] = {}

    def _pick(self, key: str, options: tuple[str, ...]) -> str:
        choices = [i for i in range(len(options)) if i != self._last.get(key)] or [0]
        i = self.rng.choice(choices)
        self._last[key] = i
        return options[i]

    def _fill(self, key: str, s: str = "", p: str = "", h: str = "", intro: str = "") -> str:
        text = self._pick(key, _T[key])
        return text.format(
            s=_lower(s),
            S=_upper(s),
            p=_lower(p),
            P=_upper(p),
            h=_lower(h),
            H=_upper(h),
            intro=intro,
        )

    def _voice(self, text: str) -> str:
        return text.lower() if self.lowercase else text

    @staticmethod
    def _state(constraints: tuple[Constraint, ...] | list[Constraint]) -> str:
        if len(constraints) == 1:
            return describe(constraints[0])
        return describe_all(list(constraints)).removesuffix(".")

    def opening(self, volunteer: list[Constraint]) -> str:
        intro = f"{self.name} here. " if self.name and self.rng.random() < 0.5 else ""
        if not volunteer:
            return self._voice(self._fill("opening_open", intro=intro))
        return self._voice(self._fill("opening", s=describe_all(volunteer), intro=intro))

    def say(self, acts: list[Act]) -> str:
        return self._voice(" ".join(self._word(a) for a in acts))

    def _word(self, act: Act) -> str:
        k, again = act.kind, act.repeated
        if k is K.INFORM:
            return self._fill("inform_again" if again else "inform", s=self._state(act.constraints))
        if k is K.SOFT:
            return self._fill("soft_again" if again else "soft", p=act.options[0])
        if k is K.NO_PREFERENCE and act.attribute is not None:
            text = self._no_preference(act.attribute)
            return self._pick("again", _AGAIN) + _lower(text) if again else text
        if k in (K.VAGUE, K.NOTHING_ELSE):
            return self._fill(f"{k.value}_again" if again else k.value)
        if k is K.HISTORY:
            text = self._fill("history")
            return self._pick("again", _AGAIN) + _lower(text) if again else text
        if k in (K.REJECT, K.COMMIT_WRONG):
            return self._verdict(act)
        if k in (K.GREETING, K.UNCLEAR):
            if not act.constraints and k is K.GREETING:
                return self._fill("greeting_open")
            s = describe_all(list(act.constraints)) or "I just want a movie for tonight."
            return self._fill(k.value, s=s)
        return self._fill(k.value)

    def _verdict(self, act: Act) -> str:
        commit = act.kind is K.COMMIT_WRONG
        hint = self._pick("hint", act.options) if act.options else ""
        if act.constraints:
            text = self._fill(
                "commit_reason" if commit else "reject_reason", s=self._state(act.constraints)
            )
            return f"{text} {self._fill('also_hint', h=hint)}" if hint and not commit else text
        if hint:
            return self._fill("commit_hint" if commit else "reject_hint", h=hint)
        return self._fill("commit_unknown" if commit else "reject_hint", h="that one isn't for me")

    def _no_preference(self, attribute: Attribute) -> str:
        user = self.task.user
        if attribute is Attribute.SERVICES and user.services:
            return self._pick("services", _MY_SERVICES).format(x=either(list(user.services), "and"))
        if attribute is Attribute.MATURITY and (user.maturity_limit or (user.age or 99) < 18):
            return self._pick("gated", _GATED_MATURITY)
        return self._pick(f"none:{attribute}", _NO_PREFERENCE[attribute])
