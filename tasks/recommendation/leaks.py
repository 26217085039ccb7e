"""Leaks between the tasks of one suite: what playing one task tells of another's answer.

A sealed contestant opens every planned episode, so it hears every task's opening, may
ask every question and reads every tool result and reaction. What a recommendation task
keeps back is its on_ask and hidden constraints and, through them, its answers. Another
task gives them away when:

- `same_problem`: both pose the same problem (their constraints match the same items)
  and this one keeps a constraint back: the other's words, or the title its user
  accepted, answer this one.
- `shared_user_reveal`: both have the same user (the same `user.user_id`, which
  get_user_history shows, or the same persona, which the simulated user speaks from) and
  a constraint this one keeps back is stated more readily by the other: volunteered where
  this one waits to be asked, or volunteered or told on asking where this one hides it.
  A user's needs are taken to persist across tasks, so the contestant may carry it over.
- `title_named_elsewhere` (advisory): a title the other task's user names (a stated title
  constraint) is one of this task's few compliant answers (at most `NARROW`).

Constraints are compared by the items they match, so `runtime <= 120` and `runtime
between [0, 120]` are one need on a catalog without a runtime of 0. A constraint every
item satisfies says nothing and is left out. Watched titles are not counted: they are
the user's profile, and a title one task lists that happens to satisfy another task
says nothing of that task's hidden needs (the built-in suite has 24 such coincidences
over a 300-item catalog, none of them between tasks with anything in common).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answer_rows import ids_of, rows_by_id
from taurec.tasks.recommendation.constraint import Constraint, Op, Reveal
from taurec.tasks.recommendation.constraint_mask import constraint_mask
from taurec.tasks.recommendation.task import RecommendationTask

#: A named title counts when the task it answers has at most this many compliant answers.
NARROW: Final = 3
#: How readily each reveal states a constraint (lower: sooner).
_READINESS: Final = {Reveal.VOLUNTEER: 0, Reveal.ON_ASK: 1, Reveal.HIDDEN: 2}
_STATES: Final = {Reveal.VOLUNTEER: "up front", Reveal.ON_ASK: "when asked"}
_SHOWN: Final = 3  # source tasks named in a message before "and N more"


@dataclass(frozen=True)
class Leak:
    """`source_id` gives away `subject` of task `task_id` (`how`: in what way)."""

    task_id: str
    code: str
    subject: str
    source_id: str
    how: str = ""


class MatchSets:
    """Each constraint's set of matching items, as a digest (None: every item matches)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._digests: dict[str, bytes | None] = {}

    def of(self, c: Constraint) -> bytes | None:
        key = f"{c.field} {c.op.value} {c.value!r}"
        if key not in self._digests:
            mask = constraint_mask(c, self.catalog)
            self._digests[key] = (
                None if bool(mask.all()) else hashlib.blake2b(np.packbits(mask).tobytes()).digest()
            )
        return self._digests[key]


@dataclass(frozen=True)
class _Needs:
    """A task's constraints as match sets: what the leak checks compare."""

    task: RecommendationTask
    digests: tuple[bytes | None, ...]  # per constraint, in task order
    stated: dict[bytes, Reveal]  # match set -> the soonest reveal that states it
    problem: frozenset[bytes]

    @property
    def keeps_back(self) -> bool:
        return any(
            c.reveal is not Reveal.VOLUNTEER and d is not None
            for c, d in zip(self.task.constraints, self.digests, strict=True)
        )


class LeakIndex:
    """The tasks seen so far, by user and by problem: `leaks(task)` names every leak
    between `task` and them, in both directions; `add(task)` indexes it."""

    def __init__(self, catalog: Catalog) -> None:
        self.matches = MatchSets(catalog)
        self._by_user: dict[str, list[_Needs]] = {}
        self._by_persona: dict[str, list[_Needs]] = {}
        self._by_problem: dict[frozenset[bytes], list[_Needs]] = {}

    def needs(self, task: RecommendationTask) -> _Needs:
        digests = tuple(self.matches.of(c) for c in task.constraints)
        stated: dict[bytes, Reveal] = {}
        for c, d in zip(task.constraints, digests, strict=True):
            if d is not None and _READINESS[c.reveal] < _READINESS[stated.get(d, Reveal.HIDDEN)]:
                stated[d] = c.reveal
        problem = frozenset(d for d in digests if d is not None)
        return _Needs(task, digests, stated, problem)

    def leaks(self, task: RecommendationTask) -> list[Leak]:
        new = self.needs(task)
        out: list[Leak] = []
        for other in self._by_problem.get(new.problem, ()):
            out += _same_problem(new, other) + _same_problem(other, new)
        users = {n.task.id: n for n in self._by_user.get(task.user.user_id, ())}
        users |= {n.task.id: n for n in self._by_persona.get(task.persona.strip(), ())}
        for other in users.values():
            out += _reveals(new, other) + _reveals(other, new)
        return out

    def add(self, task: RecommendationTask) -> None:
        needs = self.needs(task)
        self._by_user.setdefault(task.user.user_id, []).append(needs)
        self._by_persona.setdefault(task.persona.strip(), []).append(needs)
        self._by_problem.setdefault(needs.problem, []).append(needs)


def _same_problem(needs: _Needs, source: _Needs) -> list[Leak]:
    return [Leak(needs.task.id, "same_problem", "", source.task.id)] if needs.keeps_back else []


def _reveals(needs: _Needs, source: _Needs) -> list[Leak]:
    """The kept-back constraints of `needs` that `source`, of the same user, states sooner."""
    task = needs.task
    same = "user id" if task.user.user_id == source.task.user.user_id else "persona"
    out = []
    for i, (c, d) in enumerate(zip(task.constraints, needs.digests, strict=True)):
        there = source.stated.get(d) if d is not None else None
        if there is not None and _READINESS[there] < _READINESS[c.reveal]:
            subject = f"constraints[{i}] ({c}) is {c.reveal.value}"
            how = f"{_STATES[there]}, same {same}"
            out.append(Leak(task.id, "shared_user_reveal", subject, source.task.id, how))
    return out


def pair_leaks(tasks: Iterable[RecommendationTask], catalog: Catalog) -> list[Leak]:
    """Every same_problem and shared_user_reveal leak among `tasks`."""
    index = LeakIndex(catalog)
    out: list[Leak] = []
    for task in tasks:
        out += index.leaks(task)
        index.add(task)
    return out


def _named_titles(task: RecommendationTask, catalog: Catalog) -> Iterable[tuple[str, Constraint]]:
    """(item id, constraint) for every title a stated title constraint of `task` names."""
    for c in task.constraints:
        if c.field != "title" or c.reveal is Reveal.HIDDEN:
            continue
        names = list(c.value) if isinstance(c.value, list) else [c.value]
        named = constraint_mask(Constraint(field="title", op=Op.IN, value=names), catalog)
        for item_id in ids_of(catalog, rows_by_id(catalog, named)):
            yield item_id, c


def title_leaks(
    tasks: Sequence[RecommendationTask],
    catalog: Catalog,
    compliant: Mapping[str, Collection[str]],
) -> list[Leak]:
    """A title one task's user names that is one of another task's few compliant answers."""
    narrow: dict[str, list[str]] = {}  # compliant item id -> tasks with few answers
    for task in tasks:
        answers = compliant.get(task.id, ())
        if 0 < len(answers) <= NARROW:
            for item_id in answers:
                narrow.setdefault(item_id, []).append(task.id)
    out: list[Leak] = []
    for source in tasks:
        for item_id, c in _named_titles(source, catalog):
            for task_id in narrow.get(item_id, ()):
                if task_id != source.id:
                    n = len(compliant[task_id])
                    subject = f"compliant answer {item_id!r} (of {n})"
                    out.append(Leak(task_id, "title_named_elsewhere", subject, source.id, str(c)))
    return out


def _sources(leaks: list[Leak]) -> str:
    named = [f"{x.source_id!r}" + (f" ({x.how})" if x.how else "") for x in leaks[:_SHOWN]]
    more = f" and {len(leaks) - _SHOWN} more" if len(leaks) > _SHOWN else ""
    return f"task{'s' * (len(leaks) > 1)} {', '.join(named)}{more}"


def message(code: str, subject: str, leaks: list[Leak]) -> str:
    """One line for the leaks of one task's `subject` (every source named, or counted)."""
    sources = _sources(leaks)
    if code == "same_problem":
        return (
            f"poses the same problem as {sources} (constraints matching the same items) and "
            "keeps a constraint back: playing that task gives this one's answer away; "
            "expected each problem once per suite"
        )
    if code == "shared_user_reveal":
        return (
            f"{subject}, but {sources} of the same user state{'s' * (len(leaks) == 1)} a "
            "constraint matching the same items sooner; expected a user's tasks to keep a "
            "need back alike, or different users"
        )
    return (
        f"{subject} is a title named by {sources}; expected no title another task names "
        f"among at most {NARROW} compliant answers"
    )


def suite_leaks(
    tasks: Sequence[RecommendationTask],
    catalog: Catalog,
    compliant: Mapping[str, Collection[str]] | None = None,
) -> dict[str, list[tuple[str, str]]]:
    """Task id -> (code, message) of each way other tasks of the suite give its answer
    away; `compliant` (task id -> compliant answers) adds the named-title check."""
    found = pair_leaks(tasks, catalog)
    if compliant is not None:
        found += title_leaks(tasks, catalog, compliant)
    grouped: dict[tuple[str, str, str], dict[str, Leak]] = {}
    for leak in found:
        grouped.setdefault((leak.task_id, leak.code, leak.subject), {})[leak.source_id] = leak
    out: dict[str, list[tuple[str, str]]] = {}
    for (task_id, code, subject), by_source in grouped.items():
        out.setdefault(task_id, []).append((code, message(code, subject, list(by_source.values()))))
    return out


def refuse_leaks(tasks: Sequence[RecommendationTask], catalog: Catalog) -> None:
    """ValueError naming the first leak between `tasks` (what a generator must not write)."""
    for leak in pair_leaks(tasks, catalog):
        said = message(leak.code, leak.subject, [leak])
        raise ValueError(
            f"task {leak.task_id!r} ({leak.code}): {said}; refusing a suite that leaks"
        )
