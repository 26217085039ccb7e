"""Strata are reported in their defined order (easiest first), never alphabetically."""

from __future__ import annotations

from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.text import plural


def _score(task: str, complexity: str, reveal: str) -> EpisodeScore:
    return EpisodeScore(
        path=f"{task}.jsonl",
        label="a",
        task_id=task,
        trial=0,
        end_reason="abstained",
        outcome="abstain",
        item_id=None,
        complexity=complexity,
        reveal=reveal,
    )


def test_complexity_and_reveal_strata_keep_their_defined_order() -> None:
    scores = [
        _score("t1", "complex", "volunteer"),
        _score("t2", "simple", "hidden"),
        _score("t3", "medium", "mixed"),
        _score("t4", "simple", "volunteer"),
    ]
    (group,) = aggregate(scores)
    assert list(group["by_complexity"]) == ["simple", "medium", "complex"]
    assert list(group["by_reveal"]) == ["volunteer", "mixed", "hidden"]


def test_an_unknown_stratum_comes_after_the_defined_ones() -> None:
    (group,) = aggregate([_score("t1", "zany", "mixed"), _score("t2", "complex", "mixed")])
    assert list(group["by_complexity"]) == ["complex", "zany"]


def test_counts_name_their_noun_in_the_right_number() -> None:
    assert plural(1, "episode") == "1 episode"
    assert plural(0, "episode") == "0 episodes" and plural(2, "trial") == "2 trials"
