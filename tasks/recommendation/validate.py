"""The solvability validator: is every task of a suite well posed against its catalog?

`check_task` computes one task's answer key and its problems; `validate_suite` does every
task, adds the leaks between tasks (one task giving another's answer away, leaks.py) and
the complexity × reveal-difficulty grid. Each problem has a stable code from
`PROBLEM_CODES` (for grep and counting) and a message that names the constraint and says
what was expected. On our own suites (`strict`) problems are errors, except the advisory
codes; on imported third-party suites every problem is a warning, since the data is not
ours to fix.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from taurec.catalog.columns import Mask
from taurec.catalog.services import service_key
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answer_rows import ids_of, rows_by_id, ruled_out_masks
from taurec.tasks.recommendation.constraint import Constraint, Op
from taurec.tasks.recommendation.constraint_mask import constraint_mask
from taurec.tasks.recommendation.leaks import suite_leaks
from taurec.tasks.recommendation.policy_bite import policy_bite_problems
from taurec.tasks.recommendation.task import (
    PolicyName,
    RecommendationTask,
)
from taurec.tasks.recommendation.validation_report import (
    ADVISORY_CODES,
    MIN_ANSWERS,
    PROBLEM_CODES,
    Problem,
    StrataGrid,
    SuiteOfTasks,
    TaskReport,
    ValidationReport,
    strata_grid,
)
from taurec.tasks.recommendation.vocabulary import Vocabulary

__all__ = [
    "PROBLEM_CODES",
    "StrataGrid",
    "TaskReport",
    "ValidationReport",
    "Vocabulary",
    "check_task",
    "validate_suite",
]


#: Policies that only mean something when the task has answers to choose among.
ANSWER_POLICIES = (
    PolicyName.WATCH_HISTORY,
    PolicyName.SPONSORED,
    PolicyName.AGE_RESTRICTED,
    PolicyName.AVAILABILITY,
)
_SHOW = 5  # ids listed in a message before "..."


def validate_suite(suite: SuiteOfTasks) -> ValidationReport:
    """Check every task of `suite` against its catalog (see the module docstring)."""
    vocab = Vocabulary(suite.catalog)
    reports = [check_task(t, suite.catalog, strict=suite.strict, vocab=vocab) for t in suite.tasks]
    compliant = {r.task_id: r.compliant_answers for r in reports}
    leaks = suite_leaks(suite.tasks, suite.catalog, compliant)
    for r in reports:
        out = _Problems(suite.strict)
        for code, message in leaks.get(r.task_id, ()):
            out.add(code, message)
        r.errors.extend(out.errors)
        r.warnings.extend(out.warnings)
    return ValidationReport(
        suite_id=suite.id,
        spec=suite.spec,
        strict=suite.strict,
        catalog_sha256=suite.catalog.sha256(),
        suite_warnings=list(suite.warnings),
        tasks=reports,
        grid=strata_grid([t.stratum for t in suite.tasks]),
    )


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOW])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > _SHOW else "")


def _label(task: RecommendationTask, i: int) -> str:
    return f"constraints[{i}] ({task.constraints[i]})"


def _constraint_services(c: Constraint) -> list[str]:
    if c.field != "streaming_services":
        return []
    return list(c.value) if isinstance(c.value, list) else [c.value]


class _Problems:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []

    def add(self, code: str, message: str) -> None:
        assert code in PROBLEM_CODES, code
        error = self.strict and code not in ADVISORY_CODES
        (self.errors if error else self.warnings).append(Problem(code=code, message=message))


def check_task(
    task: RecommendationTask,
    catalog: Catalog,
    *,
    strict: bool = True,
    vocab: Vocabulary | None = None,
) -> TaskReport:
    """Compute `task`'s answer key and every problem (errors if `strict`, else warnings).

    Constraints are evaluated as masks over the catalog's columns
    (`taurec.tasks.recommendation.constraint_mask`), so no item is decoded to find the answers."""
    vocab = vocab or Vocabulary(catalog)
    masks = [constraint_mask(c, catalog) for c in task.constraints]
    every = np.logical_and.reduce(masks) if masks else np.ones(len(catalog), dtype=np.bool_)
    ans = rows_by_id(catalog, every)
    ruled_out = {why: out[ans] for why, out in ruled_out_masks(task, catalog).items()}
    ok = np.logical_not(np.logical_or.reduce(list(ruled_out.values()))) if ruled_out else None
    ans_ids = ids_of(catalog, ans)
    compliant = (
        ans_ids if ok is None else [i for i, keep in zip(ans_ids, ok.tolist(), strict=True) if keep]
    )
    matched = [int(m.sum()) for m in masks]
    out = _Problems(strict)

    _check_references(task, catalog, vocab, out)
    for msg in task.strata_mismatches():
        out.add("strata_mismatch", msg + "; make the declaration match or drop it")
    if task.no_valid_recommendation:
        _check_no_valid(task, ans_ids, matched, out)
    else:
        _check_solvable(task, masks, ans_ids, compliant, ruled_out, out)
        for code, message in policy_bite_problems(task, catalog, ans):
            out.add(code, message)

    complexity, reveal = task.stratum
    return TaskReport(
        task_id=task.id,
        complexity=complexity,
        reveal_difficulty=reveal,
        no_valid_recommendation=task.no_valid_recommendation,
        answers=ans_ids,
        compliant_answers=compliant,
        constraint_matches=matched,
        errors=out.errors,
        warnings=out.warnings,
    )


def _check_references(
    task: RecommendationTask, catalog: Catalog, vocab: Vocabulary, out: _Problems
) -> None:
    user = task.user
    user_keys = {service_key(s) for s in user.services}
    for i, c in enumerate(task.constraints):
        lacking = []
        for s in _constraint_services(c):
            if service_key(s) not in vocab.services:
                out.add(
                    "unknown_service",
                    f"{_label(task, i)} names service {s!r}, on which no catalog item streams; "
                    f"expected one of {', '.join(catalog.services())}",
                )
            elif c.op is not Op.NOT_CONTAINS and service_key(s) not in user_keys:
                lacking.append(repr(s))
        if c.op is Op.CONTAINS_ANY and any(
            service_key(s) in user_keys for s in _constraint_services(c)
        ):
            lacking = []  # the user has one of the alternatives, which is all contains_any asks
        if lacking:
            out.add(
                "service_user_lacks",
                f"{_label(task, i)} asks for {', '.join(lacking)}, which the user does not "
                f"subscribe to (user services: {', '.join(user.services) or 'none'})",
            )
        for hint in vocab.unknown(c):
            out.add("unknown_value", f"{_label(task, i)}: no catalog item has {c.field} {hint}")
    for s in user.services:
        if service_key(s) not in vocab.services:
            out.add(
                "unknown_user_service",
                f"user.services names {s!r}, on which no catalog item streams; "
                f"expected one of {', '.join(catalog.services())}",
            )
    counts = Counter(w.item_id for w in user.watch_history)
    for item_id, n in counts.items():
        if item_id not in catalog:
            out.add(
                "unknown_history_item",
                f"user.watch_history names {item_id!r}, which is not in the catalog; "
                "expected catalog item ids",
            )
        if n > 1:
            out.add("duplicate_history_item", f"user.watch_history lists {item_id!r} {n} times")


def _check_solvable(
    task: RecommendationTask,
    masks: list[Mask],
    ans: list[str],
    compliant: list[str],
    ruled_out: dict[str, Mask],
    out: _Problems,
) -> None:
    if len(ans) < MIN_ANSWERS:
        got = "1 item satisfies" if len(ans) == 1 else f"{len(ans)} items satisfy"
        listed = f" ({_ids(ans)})" if ans else ""
        out.add(
            "too_few_answers",
            f"{got} every constraint{listed}; expected at least {MIN_ANSWERS} so the task does "
            f"not hinge on one item. {_loosening_hint(task, masks)}",
        )
    if not compliant:
        if not ans:
            why = "there are no answers at all"
        else:
            why = f"of {len(ans)} answer{'s' if len(ans) != 1 else ''}: " + ", ".join(
                f"{n} {r}" for r, n in _reason_counts(ruled_out)
            )
        services = ", ".join(task.user.services) or "none"
        out.add(
            "no_compliant_answer",
            f"no answer is compliant ({why}; user services: {services}); expected at least one "
            "answer that the flagged policies allow",
        )


def _reason_counts(ruled_out: dict[str, Mask]) -> list[tuple[str, int]]:
    """(reason, answers it rules out), most first; ties in the order a walk over the answers
    (by id, each item's reasons in rule order) first meets them, as a `Counter` would."""
    firsts = []
    for rank, (why, out) in enumerate(ruled_out.items()):
        hits = np.flatnonzero(out)
        if len(hits):
            firsts.append((int(hits[0]), rank, why, len(hits)))
    counts = Counter({why: n for _, _, why, n in sorted(firsts)})
    return counts.most_common()


def _loosening_hint(task: RecommendationTask, masks: list[Mask]) -> str:
    """Which single constraint, dropped, would leave the most answers."""
    if len(task.constraints) == 1:
        return f"Loosen {_label(task, 0)}."
    best_i, best_n = 0, -1
    for i in range(len(task.constraints)):
        rest = [m for j, m in enumerate(masks) if j != i]
        n = int(np.logical_and.reduce(rest).sum())
        if n > best_n:
            best_i, best_n = i, n
    return f"Without {_label(task, best_i)} there would be {best_n}."


def _check_no_valid(
    task: RecommendationTask, ans: list[str], matched: list[int], out: _Problems
) -> None:
    if ans:
        out.add(
            "valid_answer_exists",
            f"no_valid_recommendation is true but {len(ans)} item(s) satisfy every constraint "
            f"({_ids(ans)}); expected none",
        )
    for i, m in enumerate(matched):
        if not m:
            out.add(
                "not_a_near_miss",
                f"{_label(task, i)} alone matches no item; expected a near miss, where each "
                "constraint alone matches at least one item and only their combination fails",
            )
    for p in ANSWER_POLICIES:
        if p in task.policy_flags:
            out.add(
                "policy_needs_answers",
                f"policy {p.value!r} is flagged but the task has no valid recommendation, so it "
                "cannot apply; expected only transparency, recommend_tool, single_recommendation",
            )
    if PolicyName.TRANSPARENCY not in task.policy_flags:
        out.add(
            "no_valid_without_transparency",
            "the task has no valid recommendation but does not flag 'transparency', the policy "
            "that asks the agent to abstain",
        )
