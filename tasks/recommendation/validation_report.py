"""What the solvability validator reports (validate.py): the problem codes and what each
means, the report of one task (its answer key and problems), the complexity × reveal
grid of a suite, and the suite's report."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, computed_field

from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import Complexity, RevealDifficulty


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
    "same_problem": (
        "another task poses the same problem and this one keeps a constraint back (leaks.py)"
    ),
    "shared_user_reveal": (
        "another task of the same user states sooner a constraint this one keeps back"
    ),
    "title_named_elsewhere": "another task's user names one of this task's few compliant answers",
}
#: Codes that are warnings even on our own suites: suspicious, but sometimes intended.
ADVISORY_CODES = frozenset(
    {
        "service_user_lacks",
        "unknown_value",
        "no_valid_without_transparency",
        "duplicate_history_item",
        "title_named_elsewhere",
    }
)


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
