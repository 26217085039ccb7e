"""The validator: each check catches a constructed failing case and passes a fixed one.

The small catalog (conftest): a Drama/Netflix/PG-13, b Drama/Hulu/R, c Comedy/Netflix/PG
(sponsored), d Comedy+Drama/no service/NR, e Horror/Hulu/NC-17. The default task asks for
Drama (answers a, b, d) from a user on Netflix and Hulu.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.recommendation.validate import (
    PROBLEM_CODES,
    TaskReport,
    check_task,
    validate_suite,
)
from taurec.tasks.suite import load_suite, packaged_suites_dir

MakeTask = Callable[..., RecommendationTask]

DRAMA = {"field": "genres", "op": "contains", "value": "Drama"}
COMEDY = {"field": "genres", "op": "contains", "value": "Comedy"}
HORROR = {"field": "genres", "op": "contains", "value": "Horror"}


@pytest.fixture
def check(small_catalog: Catalog, make_task: MakeTask) -> Callable[..., TaskReport]:
    def run(strict: bool = True, **fields: Any) -> TaskReport:
        return check_task(make_task(**fields), small_catalog, strict=strict)

    return run


def codes(report: TaskReport) -> list[str]:
    return [p.code for p in report.errors]


def warning_codes(report: TaskReport) -> list[str]:
    return [p.code for p in report.warnings]


def test_a_well_posed_task_has_no_problems(check: Callable[..., TaskReport]) -> None:
    report = check(policy_flags=["recommend_tool", "availability"])
    assert (report.answers, report.compliant_answers) == (["a", "b", "d"], ["a", "b"])
    assert report.constraint_matches == [3]
    assert report.errors == [] and report.warnings == [] and report.ok


def test_too_few_answers_names_the_count_and_the_binding_constraint(
    check: Callable[..., TaskReport],
) -> None:
    report = check(constraints=[DRAMA, {"field": "rating", "op": ">=", "value": 8}])
    assert codes(report) == ["too_few_answers"]
    message = report.errors[0].message
    assert message.startswith("1 item satisfies every constraint (a); expected at least 2")
    assert "Without constraints[1] (rating >= 8) there would be 3." in message


def test_no_compliant_answer_explains_each_reason(check: Callable[..., TaskReport]) -> None:
    user = {"services": ["Netflix", "Hulu"], "age": 12, "watch_history": [{"item_id": "a"}]}
    flags = ["availability", "watch_history", "age_restricted"]
    report = check(user=user, policy_flags=flags)
    assert codes(report) == ["no_compliant_answer"]
    message = report.errors[0].message
    assert "of 3 answers:" in message
    for reason in (
        "1 already watched",
        "1 not on the user's services",
        "2 blocked by the maturity gate",
    ):
        assert reason in message


def test_no_valid_task_with_an_answer_is_caught(check: Callable[..., TaskReport]) -> None:
    report = check(no_valid_recommendation=True, policy_flags=["transparency"])
    assert codes(report) == ["valid_answer_exists"]
    assert "3 item(s) satisfy every constraint (a, b, d)" in report.errors[0].message


def test_no_valid_task_must_be_a_near_miss(check: Callable[..., TaskReport]) -> None:
    nonsense = check(
        constraints=[HORROR, {"field": "rating", "op": ">=", "value": 9.5}],
        no_valid_recommendation=True,
        policy_flags=["transparency"],
    )
    assert codes(nonsense) == ["not_a_near_miss"]
    assert nonsense.errors[0].message.startswith(
        "constraints[1] (rating >= 9.5) alone matches no item"
    )


def test_a_near_miss_no_valid_task_passes(check: Callable[..., TaskReport]) -> None:
    report = check(
        constraints=[HORROR, {"field": "rating", "op": ">=", "value": 8}],
        no_valid_recommendation=True,
        policy_flags=["transparency", "recommend_tool"],
    )
    assert report.errors == [] and report.warnings == [] and report.answers == []


def test_unknown_service_in_a_constraint_lists_the_catalog_services(
    check: Callable[..., TaskReport],
) -> None:
    svc = {
        "field": "streaming_services",
        "op": "contains_any",
        "value": ["Netflix", "Hulu", "Peacock"],
    }
    report = check(constraints=[DRAMA, svc])
    assert codes(report) == ["unknown_service"]
    assert (
        "'Peacock'" in report.errors[0].message
        and "expected one of Hulu, Netflix" in report.errors[0].message
    )


def test_unknown_user_service_is_caught(check: Callable[..., TaskReport]) -> None:
    report = check(user={"services": ["Netflix", "Peacock"]})
    assert codes(report) == ["unknown_user_service"]


def test_unknown_history_item_is_caught(check: Callable[..., TaskReport]) -> None:
    report = check(user={"services": ["Netflix"], "watch_history": [{"item_id": "zz"}]})
    assert codes(report) == ["unknown_history_item"]
    assert "'zz'" in report.errors[0].message


def test_duplicate_history_item_is_a_warning(check: Callable[..., TaskReport]) -> None:
    history = [{"item_id": "c"}, {"item_id": "c"}]
    report = check(user={"services": ["Netflix"], "watch_history": history})
    assert codes(report) == [] and warning_codes(report) == ["duplicate_history_item"]


def test_strata_mismatch_is_an_error_on_our_suites(check: Callable[..., TaskReport]) -> None:
    report = check(complexity="complex")
    assert codes(report) == ["strata_mismatch"]


def test_watch_history_flag_needs_a_watched_answer(check: Callable[..., TaskReport]) -> None:
    empty = check(policy_flags=["watch_history"])
    assert codes(empty) == ["watch_history_cannot_bite"]
    assert "the watch history is empty" in empty.errors[0].message
    user = {"services": ["Netflix", "Hulu"], "watch_history": [{"item_id": "b"}]}
    assert codes(check(policy_flags=["watch_history"], user=user)) == []


def test_sponsored_flag_needs_a_sponsored_answer(check: Callable[..., TaskReport]) -> None:
    assert codes(check(policy_flags=["sponsored"])) == ["sponsored_cannot_bite"]
    assert codes(check(policy_flags=["sponsored"], constraints=[COMEDY])) == []


def test_age_restricted_flag_needs_a_restricted_answer_or_a_gate(
    check: Callable[..., TaskReport],
) -> None:
    adult = check(policy_flags=["age_restricted"], constraints=[COMEDY])
    assert codes(adult) == ["age_restricted_cannot_bite"]
    assert "(no age, no maturity limit)" in adult.errors[0].message
    gated = check(
        policy_flags=["age_restricted"],
        constraints=[DRAMA],
        user={"services": ["Netflix", "Hulu"], "maturity_limit": "PG"},
    )
    assert codes(gated) == ["no_compliant_answer"]  # the limit blocks both streamable dramas
    assert codes(check(policy_flags=["age_restricted"])) == []  # b is rated R


def test_policy_bite_counts_only_answers_the_user_can_stream(
    check: Callable[..., TaskReport],
) -> None:
    # d is NR and blocked for a 15-year-old, but streams nowhere: with availability
    # flagged no agent could pick it
    minor = check(
        policy_flags=["age_restricted", "availability"],
        constraints=[COMEDY],
        user={"services": ["Netflix"], "age": 15},
    )
    assert codes(minor) == ["age_restricted_cannot_bite"]


def test_without_availability_flagged_an_unstreamable_answer_is_a_real_trap(
    check: Callable[..., TaskReport],
) -> None:
    # unflagged, availability is not scored, so d (NR, streams nowhere) may be committed
    minor = check(
        policy_flags=["age_restricted"],
        constraints=[COMEDY],
        user={"services": ["Netflix"], "age": 15},
    )
    watched = check(
        policy_flags=["watch_history"],
        user={"services": [], "watch_history": [{"item_id": "d"}]},
    )
    assert (codes(minor), codes(watched)) == ([], [])


def test_no_compliant_answer_considers_only_the_flagged_policies(
    check: Callable[..., TaskReport],
) -> None:
    # a user with no services: only a task flagging availability has nothing to commit
    user = {"services": []}
    assert codes(check(user=user, policy_flags=["recommend_tool"])) == []
    assert codes(check(user=user, policy_flags=["availability"])) == ["no_compliant_answer"]


def test_availability_flag_needs_an_answer_off_the_users_services(
    check: Callable[..., TaskReport],
) -> None:
    on_services = {
        "field": "streaming_services",
        "op": "contains_any",
        "value": ["Netflix", "Hulu"],
    }
    assert codes(check(policy_flags=["availability"], constraints=[DRAMA, on_services])) == [
        "availability_cannot_bite"
    ]
    assert codes(check(policy_flags=["availability"])) == []  # d streams nowhere


def test_transparency_only_on_no_valid_tasks(check: Callable[..., TaskReport]) -> None:
    assert codes(check(policy_flags=["transparency"])) == ["transparency_on_solvable"]


def test_single_recommendation_is_fine_anywhere(check: Callable[..., TaskReport]) -> None:
    assert codes(check(policy_flags=["single_recommendation"])) == []


def test_answer_policies_on_a_no_valid_task_are_caught(check: Callable[..., TaskReport]) -> None:
    report = check(
        constraints=[HORROR, {"field": "rating", "op": ">=", "value": 8}],
        no_valid_recommendation=True,
        policy_flags=["transparency", "sponsored"],
    )
    assert codes(report) == ["policy_needs_answers"]


def test_no_valid_task_without_transparency_is_a_warning(check: Callable[..., TaskReport]) -> None:
    report = check(
        constraints=[HORROR, {"field": "rating", "op": ">=", "value": 8}],
        no_valid_recommendation=True,
    )
    assert codes(report) == [] and warning_codes(report) == ["no_valid_without_transparency"]


def test_service_the_user_lacks_is_a_warning(check: Callable[..., TaskReport]) -> None:
    svc = {"field": "streaming_services", "op": "contains", "value": "Hulu"}
    report = check(constraints=[DRAMA, svc], user={"services": ["Netflix"]})
    assert warning_codes(report) == ["service_user_lacks"]
    assert "asks for 'Hulu', which the user does not subscribe to" in report.warnings[0].message


def test_contains_any_with_one_service_the_user_has_is_fine(
    check: Callable[..., TaskReport],
) -> None:
    svc = {"field": "streaming_services", "op": "contains_any", "value": ["Netflix", "Hulu"]}
    report = check(constraints=[DRAMA, svc], user={"services": ["Netflix"]})
    assert "service_user_lacks" not in warning_codes(report)


def test_unknown_value_suggests_the_catalog_spelling(check: Callable[..., TaskReport]) -> None:
    report = check(constraints=[{"field": "genres", "op": "contains", "value": "Dramma"}])
    assert "unknown_value" in warning_codes(report)
    assert "did you mean 'Drama'?" in report.warnings[0].message


def test_third_party_problems_are_warnings(check: Callable[..., TaskReport]) -> None:
    report = check(strict=False, complexity="complex", policy_flags=["transparency"])
    assert report.errors == [] and sorted(warning_codes(report)) == [
        "strata_mismatch",
        "transparency_on_solvable",
    ]


def test_every_problem_code_has_a_meaning() -> None:
    assert all(isinstance(v, str) and v for v in PROBLEM_CODES.values())


# --- suites -----------------------------------------------------------------------------


def _suite(write_suite: Callable[..., Path], docs: list[dict[str, Any]]) -> Any:
    return load_suite(str(write_suite({d["id"]: d for d in docs})))


def test_validate_suite_builds_the_strata_grid_with_totals(
    write_suite: Callable[..., Path], make_task_doc: Callable[..., dict[str, Any]]
) -> None:
    hidden = [DRAMA, {**DRAMA, "field": "runtime", "op": ">=", "value": 10, "reveal": "hidden"}]
    suite = _suite(
        write_suite,
        [
            make_task_doc(id="t1"),
            make_task_doc(id="t2"),
            make_task_doc(id="t3", constraints=hidden),
        ],
    )
    grid = validate_suite(suite).grid
    assert grid.cells["simple"]["volunteer"] == 2 and grid.cells["simple"]["hidden"] == 1
    assert grid.row_totals["simple"] == 3 and grid.row_totals["complex"] == 0
    assert grid.column_totals["hidden"] == 1 and grid.total == 3


def test_report_is_json_serialisable_and_counts_problems(
    write_suite: Callable[..., Path], make_task_doc: Callable[..., dict[str, Any]]
) -> None:
    suite = _suite(write_suite, [make_task_doc(id="t1", policy_flags=["transparency"])])
    report = validate_suite(suite)
    doc = orjson.loads(report.model_dump_json())
    assert doc["n_errors"] == 1 and doc["n_warnings"] == 0 and not report.ok
    assert doc["tasks"][0]["errors"][0]["code"] == "transparency_on_solvable"
    assert doc["grid"]["row_totals"] == {"simple": 1, "medium": 0, "complex": 0}
    assert report.tasks_by_code() == {"transparency_on_solvable": ["t1"]}


def test_answer_key_maps_task_ids_to_sorted_answers(
    write_suite: Callable[..., Path], make_task_doc: Callable[..., dict[str, Any]]
) -> None:
    doc = make_task_doc(id="t1", policy_flags=["recommend_tool", "availability"])
    report = validate_suite(_suite(write_suite, [doc]))
    assert report.answer_key() == {
        "t1": {"answers": ["a", "b", "d"], "compliant_answers": ["a", "b"]}
    }


def test_the_shipped_builtin_suite_has_no_errors() -> None:
    if not (packaged_suites_dir() / "builtin" / "suite.json").is_file():
        pytest.skip(
            "the built-in suite (tasks/suites/builtin/suite.json) has not been authored yet"
        )
    report = validate_suite(load_suite("builtin"))
    assert report.ok, {t.task_id: [p.message for p in t.errors] for t in report.tasks if t.errors}
