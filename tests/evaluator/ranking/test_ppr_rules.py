"""A PPR export no popularity or frequency rule answers: mined as AgenticRec mines them,
a popularity ranker's pairs are all answered by "the less popular item" and repeated
rollouts of a task by "the item in the most pairs"; mined balanced (the default), the
negative is more popular than the positive in exactly half the pairs, one pair per
source task, and the rules' report says which export is which."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from taurec.evaluator.ranking.export import balanced_pairs, one_per_source, ppr_pairs
from taurec.evaluator.ranking.ppr_rules import RULE_BAR, rule_report
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import AgentInfo, Header, SimulatorInfo, SuiteRef, Trajectory

CANDS = [f"c{i:02d}" for i in range(20)]
TASK = RankingTask(
    id="t", user_id="u", target_time=9, history=["h"], candidates=CANDS, positive="c05"
)
OPENING = "Candidates (index. [id] title):\n" + "\n".join(
    f"{n}. [{c}] Title {c}" for n, c in enumerate(CANDS, 1)
)


def _trajectory(ranking: list[str], trial: int = 0) -> Trajectory:
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
    call = {"type": "tool_call", "seq": 0, "t": 0, "call_id": "s", "name": "submit_ranking"}
    events: list[dict[str, Any]] = [
        {"type": "user_message", "seq": 1, "t": 0, "text": OPENING},
        call | {"arguments": {"ranking": ranking}},
        {"type": "end", "seq": 0, "t": 0, "reason": "recommended"},
    ]
    return Trajectory(header=header, events=events)


def by_id(task_id: str, item: str) -> float:
    """Candidate n of a task (t07.c12: 12) is its n-th least popular."""
    return float(item.rsplit(".c", 1)[1])


def popularity(task: RankingTask, item: str) -> tuple[float, ...]:
    return (by_id(task.id, item), by_id(task.id, item))  # both measures agree


def tasks(n: int) -> list[RankingTask]:
    """n tasks, each over candidates of its own, their positives spread over the middle."""
    out = []
    for k in range(n):
        cands = [f"t{k:02d}.c{i:02d}" for i in range(20)]
        update = {"id": f"t{k:02d}", "candidates": cands, "positive": cands[3 + k % 14]}
        out.append(TASK.model_copy(update=update))
    return out


def by_popularity(task: RankingTask) -> list[str]:
    """A popularity ranker's list: most popular first (the positive ranked below some)."""
    return sorted(task.candidates, key=lambda c: -by_id(task.id, c))[:10]


def episodes(n: int, trials: int = 1) -> list:
    return [
        ("pop", task, _trajectory(by_popularity(task), trial=k), 0.0)
        for task in tasks(n)
        for k in range(trials)
    ]


def test_mined_as_agenticrec_a_popularity_rankers_pairs_measure_their_source() -> None:
    pairs = list(ppr_pairs(episodes(40), seed=0))
    report = rule_report(pairs, {"": by_id})
    assert report.rates["less popular "] == 1.0 and not report.fair
    assert "the pairs measure their source" in report.line()


def test_repeated_rollouts_of_a_task_give_its_positive_away_to_a_frequency_rule() -> None:
    pairs = list(ppr_pairs(episodes(20, trials=4), seed=0))
    assert rule_report(pairs).rates["more frequent"] > RULE_BAR


def test_balanced_pairs_put_half_the_negatives_on_each_side_of_the_positive() -> None:
    pairs = balanced_pairs(episodes(40, trials=3), seed=0, popularity=popularity)
    more = [p for p in pairs if p.direction == "MORE"]
    above = sum(
        by_id(p.source_task_id, p.negative) > by_id(p.source_task_id, p.positive) for p in more
    )
    assert len(more) == 40 and above == 20
    report = rule_report(pairs, {"": by_id})
    assert report.rates["more popular "] == 0.5 and report.fair
    assert "none above 60%" in report.line()


def test_balanced_pairs_are_one_per_source_task() -> None:
    pairs = balanced_pairs(episodes(10, trials=5), seed=1, popularity=popularity)
    sources = [p.source_task_id for p in pairs if p.direction == "MORE"]
    assert sorted(sources) == sorted(set(sources)) and len(sources) == 10


def test_a_negative_is_hard_when_the_side_has_one_above_the_positive() -> None:
    for pair in balanced_pairs(episodes(30), seed=2, popularity=popularity):
        ranked = by_popularity(next(t for t in tasks(30) if t.id == pair.source_task_id))
        if by_id("", pair.negative) > by_id("", pair.positive):  # above it in this ranker
            above = ranked[: ranked.index(pair.positive)] if pair.positive in ranked else ranked
            assert pair.negative in above


def test_a_task_whose_positive_is_the_most_popular_gives_no_pair() -> None:
    top = tasks(1)[0].model_copy(update={"positive": "t00.c19"})
    ranking = [c for c in top.candidates if c != "t00.c19"][:10]
    assert balanced_pairs([("a", top, _trajectory(ranking), 0.0)], 0, popularity) == []


def test_one_per_source_keeps_one_rollouts_pair_of_each_task() -> None:
    pairs = list(ppr_pairs(episodes(5, trials=4), seed=0))
    kept = one_per_source(pairs, seed=0)
    assert len(kept) == 10 and {p.source_task_id for p in kept} == {f"t{k:02d}" for k in range(5)}
    assert len({(p.source_task_id, p.source_trial) for p in kept}) == 5
