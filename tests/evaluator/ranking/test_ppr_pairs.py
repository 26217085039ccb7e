"""Mining PPR pairs from ranking rollouts (evaluator/ranking/export.py `ppr_pairs`): only
valid rollouts whose positive is not first, one negative from above the positive, and an
A/B order drawn at random so that a constant answer earns 0.5."""

from __future__ import annotations

import math
import random
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from taurec.evaluator.ranking.export import ppr_pairs, ppr_record, suite_pairs
from taurec.tasks.ranking.pair import PairTask, score_answer
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import AgentInfo, Header, SimulatorInfo, SuiteRef, Trajectory

CANDS = [f"c{i:02d}" for i in range(20)]
TASK = RankingTask(
    id="t", user_id="u", target_time=9, history=["h"], candidates=CANDS, positive="c05"
)
OPENING = (
    "User history (oldest first):\n1. Old Film\n\nCandidates (index. [id] title):\n"
    + "\n".join(f"{n}. [{c}] Title {c}" for n, c in enumerate(CANDS, 1))
)
Z = 3.29  # two-sided 99.9% normal quantile


def _trajectory(ranking: list[str] | None, calls: int = 1, trial: int = 0) -> Trajectory:
    header = Header(
        run_id="r",
        episode_id=f"e{trial}",
        kind="ranking",
        agent=AgentInfo(label="a"),
        task_id="t",
        task_sha256="0" * 64,
        suite=SuiteRef(id="s"),
        catalog_sha256="0" * 64,
        trial=trial,
        seed=0,
        simulator=SimulatorInfo(kind="none"),
        server_version="x",
        started_at=datetime.now(UTC),
    )
    events: list[dict[str, Any]] = [{"type": "user_message", "seq": 1, "t": 0, "text": OPENING}]
    for k in range(calls):
        events.append(
            {"type": "tool_call", "seq": 0, "t": 0, "call_id": f"c{k}", "name": "get_user_profile"}
            | {"arguments": {}}
        )
    if ranking is not None:
        events.append(
            {"type": "tool_call", "seq": 0, "t": 0, "call_id": "s", "name": "submit_ranking"}
            | {"arguments": {"ranking": ranking}}
        )
    events.append({"type": "end", "seq": 0, "t": 0, "reason": "recommended"})
    return Trajectory(header=header, events=events)


def _at(rank: int | None, others_seed: int = 0) -> list[str]:
    """A valid top-10 list with the positive at `rank` (None: not listed)."""
    others = [c for c in CANDS if c != "c05"]
    random.Random(others_seed).shuffle(others)
    return others[:10] if rank is None else [*others[: rank - 1], "c05", *others[rank - 1 :]][:10]


def _episodes(n: int) -> list[tuple[str, RankingTask, Trajectory, float]]:
    """n valid rollouts (trials 0..n-1) with the positive at ranks 2..10 or missing."""
    ranks = [None, *range(2, 11)]
    return [("a", TASK, _trajectory(_at(ranks[k % 10], k), trial=k), 0.5) for k in range(n)]


def _a_share_is_fair(pairs: list[PairTask]) -> bool:
    """Whether, in each direction, the share of tasks whose answer is "A" lies within
    Z standard errors of 0.5: what a fair coin per task gives (failing once in 1/0.001
    suites), and what no fixed rule of placing the positive can give."""
    for direction in ("MORE", "LESS"):
        answers = [p.answer for p in pairs if p.direction == direction]
        half_width = Z * math.sqrt(0.25 / len(answers))
        if abs(answers.count("A") / len(answers) - 0.5) > half_width:
            return False
    return True


def _constant_reward(pairs: list[PairTask], letter: str) -> float:
    return sum(score_answer(p, letter).reward for p in pairs) / len(pairs)


def test_a_constant_answer_scores_one_half_within_a_binomial_interval():
    pairs = list(ppr_pairs(_episodes(400), seed=0))
    assert len(pairs) == 800 and _a_share_is_fair(pairs)
    half_width = Z * math.sqrt(0.25 / len(pairs))
    for letter in ("A", "B"):
        assert abs(_constant_reward(pairs, letter) - 0.5) <= half_width


def test_the_fairness_check_fails_on_the_old_fixed_order():
    pairs = list(ppr_pairs(_episodes(400), seed=0, fixed_order=True))
    assert {p.answer for p in pairs} == {"A"} and not _a_share_is_fair(pairs)
    assert _constant_reward(pairs, "A") == 1.0


def test_the_fairness_check_fails_when_the_positive_is_always_item_a():
    # overall half the answers are A, but an agent reading MORE/LESS would score 1
    pairs = [
        p.model_copy(
            update={
                "item_a": p.item_b if p.item_b.id == p.positive else p.item_a,
                "item_b": p.item_a if p.item_b.id == p.positive else p.item_b,
                "answer": "A" if p.direction == "MORE" else "B",
            }
        )
        for p in ppr_pairs(_episodes(400), seed=0)
    ]
    assert _constant_reward(pairs, "A") == 0.5 and not _a_share_is_fair(pairs)


def test_each_order_is_recorded_with_the_answer_and_the_positive():
    for pair in ppr_pairs(_episodes(40), seed=3):
        positive_letter = "A" if pair.item_a.id == "c05" else "B"
        assert pair.positive == "c05" and "c05" in (pair.item_a.id, pair.item_b.id)
        assert pair.answer == (
            positive_letter if pair.direction == "MORE" else "AB".replace(positive_letter, "")
        )
        record = ppr_record(pair)
        assert record["answer"] == pair.answer and record["item_a"] == pair.item_a.id
        assert f"Item {positive_letter}: Title c05" in record["prompt"]
        assert f"{pair.direction} LIKELY" in record["prompt"]


def test_the_seed_fixes_every_draw_and_another_seed_changes_them():
    first = [p.model_dump() for p in ppr_pairs(_episodes(30), seed=1)]
    assert first == [p.model_dump() for p in ppr_pairs(_episodes(30), seed=1)]
    assert first != [p.model_dump() for p in ppr_pairs(_episodes(30), seed=2)]


def test_a_rollouts_pairs_do_not_change_when_other_rollouts_are_added():
    alone = list(ppr_pairs(_episodes(30)[7:8], seed=0))
    among = [p for p in ppr_pairs(_episodes(30), seed=0) if p.source_trial == 7]
    assert alone == among


def test_the_negative_comes_from_the_items_ranked_above_the_positive():
    for rank in range(2, 11):
        ranking = _at(rank)
        for pair in ppr_pairs([("a", TASK, _trajectory(ranking), 0.5)], seed=rank):
            assert pair.negative in ranking[: rank - 1] and pair.source_rank == rank


def test_a_valid_list_without_the_positive_draws_from_the_whole_list():
    ranking = _at(None)
    negatives = {
        pair.negative
        for seed in range(60)
        for pair in ppr_pairs([("a", TASK, _trajectory(ranking), -0.5)], seed=seed)
    }
    assert negatives <= set(ranking) and len(negatives) > 5


@pytest.mark.parametrize(
    "ranking, calls",
    [
        (_at(3)[:9], 1),  # nine ids
        ([*_at(3)[:9], _at(3)[0]], 1),  # a duplicate
        ([*_at(3)[:9], "zz"], 1),  # not a candidate
        (_at(3), 11),  # over the tool budget
        (None, 1),  # no submission
    ],
    ids=["nine-ids", "duplicate", "foreign-id", "over-budget", "none"],
)
def test_invalid_rollouts_yield_no_pairs(ranking: list[str] | None, calls: int):
    assert list(ppr_pairs([("a", TASK, _trajectory(ranking, calls=calls), -1.0)], seed=0)) == []


def test_rollouts_that_ranked_the_positive_first_yield_no_pairs():
    assert list(ppr_pairs([("a", TASK, _trajectory(_at(1)), 1.1)], seed=0)) == []


def test_pair_ids_are_unique_per_label_task_trial_and_direction():
    episodes = [
        (label, TASK, _trajectory(_at(4), trial=t), 0.5)
        for label in ("gpt/x@t0", "gpt_x_t0")
        for t in range(2)
    ]
    ids = [p.id for p in ppr_pairs(episodes, seed=0)]
    assert len(ids) == len(set(ids)) == 8


def test_a_suite_keeps_one_pair_per_source_task_under_ids_that_hide_the_source():
    """Eight rollouts of one task share its positive: all their pairs in one suite would
    give it away as "the item in the most pairs"."""
    other = TASK.model_copy(update={"id": "t2"})
    episodes = [*_episodes(8), ("b", other, _trajectory(_at(3), trial=0), 0.5)]
    pairs = suite_pairs(list(ppr_pairs(episodes, seed=0)), seed=0)
    assert len(pairs) == 4  # one MORE and one LESS per source task
    assert sorted(p.source_task_id for p in pairs) == ["t", "t", "t2", "t2"]
    assert all(re.fullmatch(r"pair_\d+\.(more|less)", p.id) for p in pairs)
    for source in ("t", "t2"):  # the MORE and LESS tasks of a source come from one rollout
        mine = [p for p in pairs if p.source_task_id == source]
        assert len({(p.source_label, p.source_trial) for p in mine}) == 1
        assert len({frozenset((p.item_a.id, p.item_b.id)) for p in mine}) == 1
    assert suite_pairs(list(ppr_pairs(episodes, seed=0)), seed=0) == pairs


def test_tasks_validate_names_a_ppr_suite_whose_pairs_share_a_source(tmp_path):
    from typer.testing import CliRunner

    from taurec.clients.cli.main import app
    from taurec.tasks.suite import SuiteManifest, write_suite_dir

    every_pair = list(ppr_pairs(_episodes(4), seed=0))  # four rollouts of one task
    manifest = SuiteManifest(format_version=1, id="pairs", kind="ppr")
    leaky = write_suite_dir(tmp_path / "leaky", manifest, every_pair)
    result = CliRunner().invoke(app, ["tasks", "validate", str(leaky)])
    assert result.exit_code == 1 and "gives pairs from 4 rollouts" in result.stdout
    fair = write_suite_dir(tmp_path / "fair", manifest, suite_pairs(every_pair, seed=0))
    assert CliRunner().invoke(app, ["tasks", "validate", str(fair)]).exit_code == 0
