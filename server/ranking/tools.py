"""The seven recommendation tools of a ranking episode, as pure functions to text.

Names, arguments and output wording follow AgenticRec (App. B). Every function reads
the interaction data only before the task's `target_time` (`Interactions.before`,
`item_records_before`), and the collaborative model is trained before the suite's
earliest target (`RankingData.cutoff`), so no output depends on the answer or on
anything after it. Choices the paper leaves open, fixed here and logged in each episode
header: a session ends after a gap of `SESSION_GAP` seconds; similar items and users list
`TOP_ITEMS` / `TOP_USERS` entries; a similar user shows `USER_ITEMS` recent items.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
from rapidfuzz import fuzz, process

from taurec.catalog.collaborative import ItemItemModel
from taurec.catalog.interactions import Interactions, ItemInfo
from taurec.catalog.splits import Scheme, train_end
from taurec.server.ranking.candidate_analysis import SETTINGS as ANALYSIS_SETTINGS
from taurec.server.ranking.candidate_analysis import analyze_candidates
from taurec.server.ranking.profiles import Profiles
from taurec.tasks.errors import short_repr
from taurec.tasks.ranking.rules import TOOL_ARGUMENTS
from taurec.tasks.ranking.siblings import horizons
from taurec.tasks.ranking.task import RankingTask

SESSION_GAP: Final = 3600
TOP_ITEMS: Final = 5
TOP_USERS: Final = 3
USER_ITEMS: Final = 3
ECHO_CHARS: Final = 60  # characters of an argument an error echoes back
SETTINGS: Final = {
    "session_gap_seconds": SESSION_GAP,
    "similar_items": TOP_ITEMS,
    "similar_users": TOP_USERS,
    "items_per_similar_user": USER_ITEMS,
    "collaborative_model": "item-item cosine over co-consumption (scipy), records before "
    "the earliest target and, under the global split, in the train part",
    "hidden": "each suite user's records from their earliest target in the suite on",
    **ANALYSIS_SETTINGS,
}


class ToolInputError(ValueError):
    """An argument the agent can fix (the message says how)."""


@dataclass
class RankingData:
    """The interactions and the collaborative model trained before `cutoff`.

    `horizons` (user id -> that user's earliest target time in the suite) hides every
    record of those users from that time on, from every tool: no task of a suite can read
    a sibling task's answer (or anything after it) in a tool's output.
    """

    data: Interactions
    cutoff: int
    horizons: Mapping[str, int] | None = None
    facts: dict[str, Any] = field(default_factory=dict)  # logged in each episode header
    profiles: Profiles = field(default_factory=Profiles)  # LLM-written profiles (profiles.py)

    @classmethod
    def for_tasks(
        cls,
        data: Interactions,
        tasks: Sequence[RankingTask],
        scheme: Scheme,
        part: str | None = None,
    ) -> RankingData:
        """The data a suite of `tasks` plays over: the model trained before the earliest
        target and, under the global split, before the train part's end; each task user's
        records hidden from their earliest target on."""
        cutoff = min(t.target_time for t in tasks)
        end = train_end(data, scheme)
        if end is not None:
            cutoff = min(cutoff, end)
        facts = {"split": scheme, "part": part, "model_trained_before": cutoff}
        return cls(data, cutoff, horizons(tasks), facts)

    def __post_init__(self) -> None:
        if self.horizons:
            self.data = _hide_from(self.data, self.horizons)
        self.model = ItemItemModel(self.data, self.cutoff)
        self._titles = {it.title.casefold(): i for i, it in enumerate(self.data.items)}

    def find_title(self, name: str, task: RankingTask) -> int | None:
        """An exact (case-insensitive) title among the task's candidates and history, else
        among all items, else the closest title among the candidates and history, else
        among all items (rapidfuzz WRatio >= 80) that shares a word with the name
        (`shares_a_word`: a fragment such as "the" or "night" matches no title). Titles
        repeat in real data (Amazon): the task's own item comes first."""
        key = name.strip().casefold()
        local = [self.data.item_of(i) for i in [*task.candidates, *task.history]]
        exact = next((i for i in local if self.data.items[i].title.casefold() == key), None)
        if exact is None:
            exact = self._titles.get(key)
        if exact is not None:
            return exact
        for pool in (local, None):
            choices = {
                i: self.data.items[i].title
                for i in (pool if pool is not None else range(len(self.data.items)))
            }
            hits = process.extract(name, choices, scorer=fuzz.WRatio, score_cutoff=80, limit=5)
            for _title, _score, i in hits:
                if shares_a_word(name, self.data.items[i].title):
                    return int(i)
        return None


#: Words too common to make a title match on their own.
_COMMON: Final = frozenset({"the", "and", "for", "with", "from", "of", "a", "an", "in", "on", "to"})


def shares_a_word(name: str, title: str) -> bool:
    """Whether a word of `name` (three or more letters or digits, not a common word)
    is a word of `title`, or one typo away from one (rapidfuzz ratio >= 80)."""
    words = [w for w in re.findall(r"[0-9a-z]+", name.casefold()) if len(w) >= 3]
    theirs = re.findall(r"[0-9a-z]+", title.casefold())
    return any(
        fuzz.ratio(w, t) >= 80 for w in words if w not in _COMMON for t in theirs if len(t) >= 3
    )


def _hide_from(data: Interactions, horizons: Mapping[str, int]) -> Interactions:
    """`data` without the records of each named user at or after that user's horizon."""
    limit = np.full(len(data.user_ids), np.iinfo(np.int64).max, dtype=np.int64)
    for user_id, t in horizons.items():
        limit[data.user_of(user_id)] = t
    keep = data.time < limit[data.user]
    if keep.all():
        return data
    return Interactions.build(
        data.source,
        data.items,
        data.user_ids,
        data.user[keep],
        data.item[keep],
        data.rating[keep],
        data.time[keep],
        data.category_shape,
    )


def _facts(item: ItemInfo) -> str:
    parts = [f"Categories: {', '.join(item.categories) or 'none'}"]
    parts += [f"{k}: {v}" for k, v in item.attributes.items()]
    return " / ".join(parts)


def _user_records(rd: RankingData, task: RankingTask) -> tuple[int, int]:
    return rd.data.before(rd.data.user_of(task.user_id), task.target_time)


def get_user_profile(rd: RankingData, task: RankingTask) -> str:
    """The suite's LLM-written profile for this task when `rd.profiles` has one (see
    profiles.py), else a deterministic summary of everything before the target time."""
    cached = rd.profiles.text(task.id)
    if cached is not None:
        return cached
    d = rd.data
    lo, hi = _user_records(rd, task)
    if hi == lo:
        return "No interactions of this user are known yet."
    items = [d.items[i] for i in d.item[lo:hi]]
    cats = Counter(c for it in items for c in it.categories).most_common(4)
    ratings = d.rating[lo:hi]
    rated = ratings[ratings > 0]
    days = max(1, round((task.target_time - int(d.time[lo])) / 86_400))
    lines = [
        f"User profile, from {hi - lo} interactions over the last {days} days:",
        "Favourite categories: " + ", ".join(f"{c} ({n})" for c, n in cats),
        f"Average rating given: {rated.mean():.1f} / 5.0" if rated.size else "No ratings given.",
        "Most recent items: " + "; ".join(it.title for it in items[-3:][::-1]),
    ]
    return "\n".join(lines)


def item_info_search(rd: RankingData, task: RankingTask, item_name: str) -> str:
    i = rd.find_title(item_name, task)
    if i is None:
        raise ToolInputError(_not_found(item_name))
    item = rd.data.items[i]
    recs = rd.data.item_records_before(i, task.target_time)
    ratings = rd.data.rating[recs]
    ratings = ratings[ratings > 0]
    overall = f"{ratings.mean():.1f}" if ratings.size else "n/a"
    return (
        f'Found 1 item named "{item.title}" ({_facts(item)})\n'
        f"Overall Rating: {overall} / 5.0\nPopularity: {len(recs)} reviews"
    )


def _not_found(title: str) -> str:
    """The error for an unknown title, which it echoes cut to ECHO_CHARS characters (a
    long title would otherwise be logged twice: in the call and in its error)."""
    shown = title if len(title) <= ECHO_CHARS else title[: ECHO_CHARS - 3] + "..."
    return f'No item named "{shown}" was found; expected a title from the history or the candidates'


def candidates_analyze(rd: RankingData, task: RankingTask) -> str:
    """The candidates by category (full path, or each flat label) and by price band."""
    items = [rd.data.items[rd.data.item_of(cid)] for cid in task.candidates]
    return analyze_candidates(items, rd.data.category_shape)


def get_session_behavior(rd: RankingData, task: RankingTask) -> str:
    d = rd.data
    lo, hi = _user_records(rd, task)
    if hi == lo:
        return "No sessions of this user are known yet."
    times = d.time[lo:hi]
    breaks = np.flatnonzero(np.diff(times) > SESSION_GAP) + 1
    bounds = list(zip([0, *breaks.tolist()], [*breaks.tolist(), hi - lo], strict=True))[-2:]
    lines = [
        f"Below are the extracted interests for the user's most recent {len(bounds)} sessions, "
        "listed chronologically from oldest to newest:"
    ]
    for a, b in bounds:
        cats = Counter(c for i in d.item[lo + a : lo + b] for c in d.items[i].categories)
        interests = [c for c, _ in cats.most_common(3)] or [
            d.items[i].title for i in d.item[lo + a : lo + b]
        ]
        ago = (task.target_time - int(times[b - 1])) / 3600
        lines.append(f"{ago:.1f}h ago, the user was interested in {', '.join(interests)}.")
    return "\n".join(lines)


def get_rating_behavior(rd: RankingData, task: RankingTask) -> str:
    d = rd.data
    lo, hi = _user_records(rd, task)
    groups: dict[str, list[str]] = {"five": [], "neutral": [], "low": []}
    for r in range(hi - 1, lo - 1, -1):  # most recent first
        rating = float(d.rating[r])
        key = "five" if rating >= 5 else "neutral" if rating >= 3 else "low" if rating > 0 else ""
        if key and len(groups[key]) < 5:
            groups[key].append(d.items[d.item[r]].title)

    def show(xs: list[str]) -> str:
        return "; ".join(xs) if xs else "none"

    return (
        "User's historical rating records are as follows:\n"
        f"Five-star items (=5): {show(groups['five'])}\n"
        f"Neutral items (>=3): {show(groups['neutral'])}\n"
        f"Low-rated items (<3): {show(groups['low'])}"
    )


def get_similar_items(rd: RankingData, task: RankingTask, item_title: str) -> str:
    i = rd.find_title(item_title, task)
    if i is None:
        raise ToolInputError(_not_found(item_title))
    similar = rd.model.similar_items(i, TOP_ITEMS, exclude=[i])
    title = rd.data.items[i].title
    if not similar:
        return f"Collaborative filtering knows no items that users of [{title}] also took."
    lines = [
        "Based on collaborative filtering, users who enjoy the following items are more "
        f"likely to purchase [{title}]:"
    ]
    for n, j in enumerate(similar, 1):
        item = rd.data.items[j]
        lines.append(f"[{n}] {item.title} (Categories: {', '.join(item.categories) or 'none'})")
    return "\n".join(lines)


def get_similar_users(rd: RankingData, task: RankingTask) -> str:
    d = rd.data
    u = d.user_of(task.user_id)
    lo, hi = d.before(u, task.target_time)
    neighbours = rd.model.similar_users(sorted(set(d.item[lo:hi].tolist())), TOP_USERS, u)
    if not neighbours:
        return "No users with similar preferences are known yet."
    lines = [
        "The following users have similar preferences to the current user. Their recent "
        "purchases include:"
    ]
    for n, v in enumerate(neighbours, 1):
        a, b = d.before(v, task.target_time)
        recent = [f"[{d.items[i].title}]" for i in d.item[max(a, b - USER_ITEMS) : b][::-1]]
        lines.append(f"User [{n}]: {', '.join(recent) or '(nothing yet)'}")
    return "\n".join(lines)


#: name -> (function, its argument name or None). The order is the paper's.
TOOLS: Final[dict[str, tuple[Any, str | None]]] = {
    name: (fn, TOOL_ARGUMENTS[name])
    for name, fn in (
        ("get_user_profile", get_user_profile),
        ("item_info_search", item_info_search),
        ("candidates_analyze", candidates_analyze),
        ("get_session_behavior", get_session_behavior),
        ("get_rating_behavior", get_rating_behavior),
        ("get_similar_items", get_similar_items),
        ("get_similar_users", get_similar_users),
    )
}


def run_tool(rd: RankingData, task: RankingTask, name: str, arguments: dict[str, Any]) -> str:
    """Call tool `name`; ToolInputError for an unknown tool or a missing argument."""
    entry = TOOLS.get(name)
    if entry is None:
        raise ToolInputError(f"unknown tool {short_repr(name)}; expected one of {', '.join(TOOLS)}")
    fn, arg = entry
    if arg is None:
        return str(fn(rd, task))
    value = arguments.get(arg)
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"{name} needs {arg} (a title, as text)")
    return str(fn(rd, task, value))
