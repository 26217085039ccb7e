"""The solvability validator: is every task of a suite well posed against its catalog?

`check_task` computes one task's answer key and its problems; `validate_suite` does every
task and adds the complexity × reveal-difficulty grid. Each problem has a stable code from
`PROBLEM_CODES` (for grep and counting) and a message that names the constraint and says
what was expected. On our own suites (`strict`) problems are errors, except the advisory
codes; on imported third-party suites every problem is a warning, since the data is not
ours to fix.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field

from taurec.catalog.columns import Mask
from taurec.catalog.services import service_key
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answer_rows import ids_of, rows_by_id, ruled_out_masks
from taurec.tasks.recommendation.constraint import Constraint, Op
from taurec.tasks.recommendation.constraint_mask import constraint_mask
from taurec.tasks.recommendation.policy_bite import policy_bite_problems
from taurec.tasks.recommendation.task import (
    Complexity,
    PolicyName,
    RecommendationTask,
    RevealDifficulty,
)
from taurec.tasks.recommendation.vocabulary import Vocabulary


class SuiteOfTasks(Protocol):
    """What `validate_suite` reads of a suite (taurec.tasks.suite.Suite has it)."""

    @property
    def id(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def tasks(self) -> list[Any]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def strict(self) -> bool: ...


MIN_ANSWERS = 2
#: Problem code -> what it means, phrased to follow "in N tasks: ".
PROBLEM_CODES: dict[str, str] = {
    "too_few_answers": f"solvable, but fewer than {MIN_ANSWERS} items satisfy every constraint",
    "no_compliant_answer": (
        "solvable, but no answer passes the flagged policies (on the user's services, "
        "unwatched, allowed by the maturity gate)"
    ),
    "valid_answer_exists": (
        "marked no_valid_recommendation, but some item satisfies every constraint"
    ),
    "not_a_near_miss": (
        "no valid answer, and some constraint alone matches no item (not a near miss)"
    ),
    "unknown_service": "a constraint names a service no catalog item streams on",
    "unknown_user_service": "the user subscribes to a service no catalog item streams on",
    "unknown_history_item": "the watch history names ids that are not in the catalog",
    "strata_mismatch": "the declared complexity or reveal difficulty contradicts the constraints",
    "watch_history_cannot_bite": "watch_history is flagged, but no watched title is an answer",
    "sponsored_cannot_bite": "sponsored is flagged, but no answer is sponsored",
    "age_restricted_cannot_bite": (
        "age_restricted is flagged, but no answer is rated R/NC-17 or blocked for the user"
    ),
    "availability_cannot_bite": (
        "availability is flagged, but every answer streams on the user's services"
    ),
    "transparency_on_solvable": "transparency is flagged, but the task has answers",
    "policy_needs_answers": "no valid answer, yet a policy that needs answers is flagged",
    "service_user_lacks": "a constraint asks for a streaming service the user does not have",
    "unknown_value": "a constraint names a value no catalog item has (a likely typo)",
    "no_valid_without_transparency": "no valid answer, but transparency is not flagged",
    "duplicate_history_item": "the watch history lists an id more than once",
}
#: Codes that are warnings even on our own suites: suspicious, but sometimes intended.
ADVISORY_CODES = frozenset(
    {
        "service_user_lacks",
        "unknown_value",
        "no_valid_without_transparency",
        "duplicate_history_item",
    }
)
#: Policies that only mean something when the task has answers to choose among.
ANSWER_POLICIES = (
    PolicyName.WATCH_HISTORY,
    PolicyName.SPONSORED,
    PolicyName.AGE_RESTRICTED,
    PolicyName.AVAILABILITY,
)
_SHOW = 5  # ids listed in a message before "..."


class Problem(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: str = Field(description="Stable problem code (see the module docstring).")
    message: str = Field(description="What is wrong and what was expected.")


class TaskReport(BaseModel):
    """One task's answer key and problems."""

    task_id: str
    complexity: Complexity = Field(description="Stratum row: declared, else derived.")
    reveal_difficulty: RevealDifficulty = Field(
        description="Stratum column: declared, else derived."
    )
    no_valid_recommendation: bool
    answers: list[str] = Field(description="Sorted ids of items satisfying every constraint.")
    compliant_answers: list[str] = Field(
        description="Sorted answers the flagged policies allow: on the user's services "
        "(availability), unwatched (watch_history), allowed by the maturity gate "
        "(age_restricted)."
    )
    constraint_matches: list[int] = Field(
        description="Per constraint, in task order: how many items it alone matches."
    )
    errors: list[Problem] = Field(default_factory=list)
    warnings: list[Problem] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


class StrataGrid(BaseModel):
    """Task counts over complexity (rows) × reveal difficulty (columns), with totals."""

    cells: dict[Complexity, dict[RevealDifficulty, int]]
    row_totals: dict[Complexity, int]
    column_totals: dict[RevealDifficulty, int]
    total: int


class ValidationReport(BaseModel):
    suite_id: str
    spec: str
    strict: bool = Field(description="True for our own format: problems are errors.")
    catalog_sha256: str
    suite_warnings: list[str] = Field(description="Warnings raised while loading the suite.")
    tasks: list[TaskReport]
    grid: StrataGrid

    @computed_field  # type: ignore[prop-decorator]
    @property
    def n_errors(self) -> int:
        return sum(len(t.errors) for t in self.tasks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def n_warnings(self) -> int:
        return len(self.suite_warnings) + sum(len(t.warnings) for t in self.tasks)

    @property
    def ok(self) -> bool:
        return self.n_errors == 0

    def tasks_by_code(self) -> dict[str, list[str]]:
        """Problem code -> ids of the tasks that have it (errors and warnings alike)."""
        out: dict[str, list[str]] = {}
        for t in self.tasks:
            for p in [*t.errors, *t.warnings]:
                ids = out.setdefault(p.code, [])
                if t.task_id not in ids:
                    ids.append(t.task_id)
        return dict(sorted(out.items()))

    def answer_key(self) -> dict[str, dict[str, list[str]]]:
        """Task id -> {"answers": [...], "compliant_answers": [...]}."""
        return {
            t.task_id: {"answers": t.answers, "compliant_answers": t.compliant_answers}
            for t in self.tasks
        }


def strata_grid(strata: list[tuple[Complexity, RevealDifficulty]]) -> StrataGrid:
    cells = {c: dict.fromkeys(RevealDifficulty, 0) for c in Complexity}
    for c, r in strata:
        cells[c][r] += 1
    return StrataGrid(
        cells=cells,
        row_totals={c: sum(row.values()) for c, row in cells.items()},
        column_totals={r: sum(cells[c][r] for c in Complexity) for r in RevealDifficulty},
        total=len(strata),
    )


def validate_suite(suite: SuiteOfTasks) -> ValidationReport:
    """Check every task of `suite` against its catalog (see the module docstring)."""
    vocab = Vocabulary(suite.catalog)
    reports = [check_task(t, suite.catalog, strict=suite.strict, vocab=vocab) for t in suite.tasks]
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
