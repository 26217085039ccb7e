"""Dialogue acts as text, in UserSimCRS's format: `intent(slot="v",slot)|intent()`.

An LLM writes acts this way (an LLM user's `ACTS:` line, a classification pass, the LLM
NLU). As in UserSimCRS the whole string must match the format, else it yields no acts;
unknown intents are dropped. A `title="..."` argument names the items the act is about
(resolved through the catalog's titles); an accept, reject or seen without one is about
the titles of the message it answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from taurec.tasks.trajectory.dialogue_acts import DialogueAct

_ACT = r"\s*[A-Za-z_-]+\s*\((?:[^()\"]|\"[^\"]*\")*\)\s*"
_WHOLE = re.compile(rf"^{_ACT}(?:\|{_ACT})*$")
_ONE = re.compile(r"([A-Za-z_-]+)\s*\(((?:[^()\"]|\"[^\"]*\")*)\)")
_ARG = re.compile(r"\s*([A-Za-z_]+)\s*(?:=\s*\"([^\"]*)\")?\s*(?:,|$)")
_ACTS_LINE = re.compile(r"^\s*(?:\*\*)?ACTS(?:\*\*)?\s*:\s*(.*?)\s*$", re.I | re.M)
_ABOUT_ITEMS = frozenset({"accept", "reject", "seen", "inquire"})

#: title text -> the item ids it names
TitleResolver = Callable[[str], list[str]]


def format_acts(acts: Sequence[DialogueAct]) -> str:
    def one(a: DialogueAct) -> str:
        args = []
        if a.slot:
            args.append(f'{a.slot}="{a.value}"' if a.value else a.slot)
        return f"{a.intent}({','.join(args)})"

    return "|".join(one(a) for a in acts)


def parse_acts(
    text: str,
    intents: Sequence[str],
    titles: TitleResolver,
    context_items: Sequence[str] = (),
) -> list[DialogueAct] | None:
    """The acts in `text`, or None when it is not in the format at all."""
    text = text.strip().strip("`").strip()
    if not text or not _WHOLE.match(text):
        return None
    out: list[DialogueAct] = []
    for m in _ONE.finditer(text):
        intent = m.group(1).strip().lower().replace("-", "_")
        if intent not in intents:
            continue
        items: list[str] = []
        slots: list[tuple[str, str | None]] = []
        for arg in _ARG.finditer(m.group(2)):
            if not arg.group(1):
                continue
            slot, value = arg.group(1).lower(), arg.group(2)
            if slot == "title" and value:
                items += titles(value)
            else:
                slots.append((slot, value))
        if not items and intent in _ABOUT_ITEMS:
            items = list(context_items)
        if not slots:
            out.append(DialogueAct(intent=intent, items=tuple(items)))
        out += [DialogueAct(intent=intent, slot=s, value=v, items=tuple(items)) for s, v in slots]
    return out


def split_acts_line(reply: str) -> tuple[str, str | None]:
    """(the reply without its `ACTS:` line, that line's acts text or None)."""
    found = list(_ACTS_LINE.finditer(reply))
    if not found:
        return reply, None
    return _ACTS_LINE.sub("", reply).strip(), found[-1].group(1)
