"""Every kind's group counts its agent errors; a group whose every episode ended in one is
flagged with the log whose traceback `evaluator explain` shows, first by task and trial."""

from __future__ import annotations

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.render import all_agent_errors, run_rows


def _score(task: str, trial: int, end: str, kind: str = "ranking") -> EpisodeScore:
    return EpisodeScore(
        path=f"logs/{task}/trial{trial}.jsonl",
        label="a",
        task_id=task,
        trial=trial,
        end_reason=end,
        outcome="none",
        item_id=None,
        kind=kind,
    )


def test_a_group_whose_every_episode_errored_names_its_first_log() -> None:
    (group,) = aggregate([_score("t2", 0, "agent_error"), _score("t1", 1, "agent_error")])
    assert group["agent_errors"] == 2
    assert group["agent_error_log"] == "logs/t1/trial1.jsonl"
    assert all_agent_errors(group) == (
        "every episode ended in an agent error: see the first traceback with "
        "`evaluator explain logs/t1/trial1.jsonl`"
    )
    assert ("agent errors", f"2 of 2: {all_agent_errors(group)}") in run_rows(group)


def test_a_group_with_some_agent_errors_counts_them_without_the_flag() -> None:
    scores = [_score("t1", 0, "agent_error"), _score("t2", 0, "recommended")]
    (group,) = aggregate(scores)
    assert group["agent_errors"] == 1 and group["agent_error_log"] is None
    assert all_agent_errors(group) is None
    assert ("agent errors", "1 of 2: counted as failures") in run_rows(group)


def test_a_group_without_agent_errors_shows_no_row() -> None:
    (group,) = aggregate([_score("t1", 0, "recommended")])
    assert group["agent_errors"] == 0
    assert "agent errors" not in dict(run_rows(group))
