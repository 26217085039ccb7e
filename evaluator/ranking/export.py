"""RL-ready exports of ranking episodes (`evaluator export LOGDIR --format grpo|ppr`).

grpo: one JSON line per group (the G trials of one task under one agent label): the
prompt, each rollout's tool-use trajectory, its completion (every model turn's text and
tool calls as the model wrote them, from the log's model-call records, with the
observations between them marked masked: `completion`), reward and advantage = reward −
the group's mean reward (the rollout itself included, no division by the standard
deviation, as in AgenticRec's list-wise GRPO); a group whose rewards are all negative is
marked dropped.

ppr: AgenticRec's hard-negative pairs (see `ppr_pairs`), as `PairTask`s of the "ppr"
kind: JSON lines here, or a suite folder that `taurec run` plays; one pair per source
task either way (`one_per_source`), so that no positive repeats over a task's pairs.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from hashlib import sha256
from statistics import fmean
from typing import Any

from taurec.evaluator.ranking.scoring import ranking_answer
from taurec.tasks.ranking.metrics import score_ranking
from taurec.tasks.ranking.pair import PairItem, PairTask, pair_prompt
from taurec.tasks.ranking.task import MAX_HISTORY, RankingTask
from taurec.tasks.trajectory.format import Trajectory


def completion(trajectory: Trajectory) -> list[dict[str, Any]]:
    """The rollout as a trainer rebuilds it: each of the agent's model calls as an
    assistant turn (its text and tool calls, as the model-call record holds the reply;
    `error` when the call failed), and each tool result as an observation between them
    (`masked`: left out of the likelihood, as AgenticRec masks observations). Empty for
    an agent that logged no model calls (a non-LLM baseline)."""
    out: list[dict[str, Any]] = []
    for ev in trajectory.events:
        if ev["type"] == "model_call" and ev.get("caller") == "agent":
            reply = ev.get("output") or {}
            turn: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
            if reply.get("tool_calls"):
                turn["tool_calls"] = reply["tool_calls"]
            if ev.get("error"):
                turn["error"] = ev["error"]
            out.append(turn | {"seq": ev["seq"], "input": ev.get("input")})
        elif ev["type"] == "tool_result":
            content = ev.get("content")
            text = content if isinstance(content, str) else None
            out.append(
                {
                    "role": "tool",
                    "call_id": ev.get("call_id"),
                    "content": text if text is not None else content,
                    "is_error": bool(ev.get("is_error")),
                    "masked": True,
                    "seq": ev["seq"],
                }
            )
    if not any(t["role"] == "assistant" for t in out):
        return []
    return out


def rollout(task: RankingTask, trajectory: Trajectory, reward: float) -> dict[str, Any]:
    ranking, calls = ranking_answer(trajectory)
    steps = [
        {k: ev.get(k) for k in ("name", "arguments", "content", "is_error") if k in ev}
        | {"type": ev["type"]}
        for ev in trajectory.events
        if ev["type"] in ("tool_call", "tool_result")
    ]
    rank = ranking.index(task.positive) + 1 if ranking and task.positive in ranking else None
    return {
        "trial": trajectory.header.trial,
        "ranking": ranking,
        "rank": rank,
        "tool_calls": calls,
        "reward": reward,
        "trajectory": steps,
        "completion": completion(trajectory),
    }


@dataclass(frozen=True)
class GroupAdvantage:
    mean: float  # the group's mean reward
    advantages: list[float]  # one per rollout, in the rewards' order
    dropped: bool  # every reward is negative: the group carries no training signal


def group_advantage(rewards: Sequence[float]) -> GroupAdvantage:
    """AgenticRec's list-wise GRPO arithmetic for one group of rollouts of one task:
    advantage = reward − the group's mean (the rollout itself included, no division by the
    standard deviation); a group whose rewards are all negative is dropped (the paper's
    rule after DAPO's dynamic sampling: no rollout in it is informative)."""
    if not rewards:
        raise ValueError("rewards: expected a group of at least one reward, got none")
    mean = fmean(rewards)
    return GroupAdvantage(mean, [r - mean for r in rewards], all(r < 0 for r in rewards))


def grpo_groups(
    episodes: list[tuple[str, RankingTask, Trajectory, float]],
) -> Iterator[dict[str, Any]]:
    """`episodes`: (label, task, trajectory, reward). One group per (label, task)."""
    groups: dict[tuple[str, str], list[tuple[RankingTask, Trajectory, float]]] = defaultdict(list)
    for label, task, trajectory, reward in episodes:
        groups[label, task.id].append((task, trajectory, reward))
    for (label, task_id), members in sorted(groups.items()):
        members.sort(key=lambda m: m[1].header.trial)
        group = group_advantage([m[2] for m in members])
        rollouts = [
            rollout(t, tr, r) | {"advantage": a}
            for (t, tr, r), a in zip(members, group.advantages, strict=True)
        ]
        prompt = _opening(members[0][1])
        yield {
            "label": label,
            "task_id": task_id,
            "prompt": prompt,
            "group_size": len(members),
            "mean_reward": group.mean,
            "dropped": group.dropped,
            "rollouts": rollouts,
        }


_CANDIDATE = re.compile(r"^\d+\. \[([^\]]+)\] (.*)$", re.MULTILINE)
_HISTORY = re.compile(r"^\d+\. (.*)$")
_NOT_IN_ID = re.compile(r"[^A-Za-z0-9_.:-]+")


def _opening(trajectory: Trajectory) -> str:
    return next((ev["text"] for ev in trajectory.events if ev["type"] == "user_message"), "")


def _titles(opening: str) -> tuple[list[str], dict[str, str]]:
    """(history titles oldest first, candidate id -> title), as the opening showed them."""
    history: list[str] = []
    section = ""
    for line in opening.splitlines():
        if line.startswith(("User history", "Candidates")):
            section = line[:4]
        elif section == "User" and (m := _HISTORY.match(line)):
            history.append(m.group(1))
    return history, dict(_CANDIDATE.findall(opening))


def _slug(label: str) -> str:
    """The label as a task-id part; a hash keeps labels that differ only in symbols apart."""
    slug = _NOT_IN_ID.sub("_", label) or "_"
    return slug if slug == label else f"{slug}-{sha256(label.encode()).hexdigest()[:6]}"


#: (ranking task, item id) -> how popular the item was, by one or more measures
ItemPopularity = Callable[[RankingTask, str], tuple[float, ...]]


def _sides(task: RankingTask, popularity: ItemPopularity) -> dict[str, list[str]]:
    """The candidates more popular than the positive by every measure, and those less
    popular by every measure."""
    mine = popularity(task, task.positive)
    others = [(c, popularity(task, c)) for c in task.candidates if c != task.positive]
    return {
        "more": [
            c for c, theirs in others if all(t > m for t, m in zip(theirs, mine, strict=True))
        ],
        "less": [
            c for c, theirs in others if all(t < m for t, m in zip(theirs, mine, strict=True))
        ],
    }


def balanced_negative(
    task: RankingTask,
    pool: Sequence[str],
    popularity: ItemPopularity,
    rng: random.Random,
    side: str | None = None,
) -> str | None:
    """A negative whose popularity says nothing of the answer: on `side` (more or less
    popular than the positive; drawn at random when None), an item of `pool` (the items
    ranked above the positive) on that side, or, when the pool has none there, a
    candidate on that side the rollout ranked lower. None when the positive is the most
    or the least popular candidate (one side is empty: the side would not be free)."""
    sides = _sides(task, popularity)
    if not sides["more"] or not sides["less"]:
        return None
    chosen = sides[side or rng.choice(("more", "less"))]
    hard = [c for c in pool if c in chosen]
    return rng.choice(hard or chosen)


def _violation(task: RankingTask, trajectory: Trajectory) -> list[str] | None:
    """The items a valid rollout ranked above its positive (the whole list when it left
    the positive out); None when it is invalid or ranked the positive first."""
    ranking, calls = ranking_answer(trajectory)
    outcome = score_ranking(task, ranking, calls)
    if not outcome.valid or ranking is None or outcome.rank == 1:
        return None
    return ranking[: outcome.rank - 1] if outcome.rank is not None else list(ranking)


def balanced_pairs(
    episodes: list[tuple[str, RankingTask, Trajectory, float]],
    seed: int,
    popularity: ItemPopularity,
) -> list[PairTask]:
    """One pair per source task, from one of its violating rollouts (seeded), with the
    negative more popular than the positive in exactly half of the pairs (one more in
    one half when odd): the rollouts drawn are shuffled (seeded) and given the two sides
    in turn, so no popularity rule beats a coin by more than one pair. A task whose
    positive is the most or the least popular candidate gives no pair."""
    eligible: dict[str, list[tuple[str, RankingTask, Trajectory, float]]] = defaultdict(list)
    for episode in sorted(episodes, key=lambda e: (e[0], e[1].id, e[2].header.trial)):
        _, task, trajectory, _ = episode
        sides = _sides(task, popularity)
        if _violation(task, trajectory) is not None and sides["more"] and sides["less"]:
            eligible[task.id].append(episode)
    rng = random.Random(f"ppr-balanced:{seed}")
    chosen = [rng.choice(eligible[t]) for t in sorted(eligible)]
    rng.shuffle(chosen)
    turn = {
        (e[0], e[1].id, e[2].header.trial): ("more", "less")[n % 2] for n, e in enumerate(chosen)
    }
    return list(ppr_pairs(chosen, seed, popularity=popularity, sides=turn))


def ppr_pairs(
    episodes: list[tuple[str, RankingTask, Trajectory, float]],
    seed: int,
    *,
    fixed_order: bool = False,
    popularity: ItemPopularity | None = None,
    sides: dict[tuple[str, str, int], str] | None = None,
) -> Iterator[PairTask]:
    """AgenticRec's PPR pairs: two tasks (MORE, then LESS) per VALID rollout whose
    positive is not first (score_ranking decides validity: 10 distinct candidates within
    the tool budget). The negative is drawn uniformly from the items ranked above the
    positive, or from the whole list when the positive is missing (AgenticRec's rule);
    with `popularity`, by `balanced_negative` instead, on the side `sides` gives the
    rollout (label, task, trial), or a coin toss's (a rollout whose positive is the most
    or least popular candidate gives no pair; `balanced_pairs` gives the sides). In each task the positive is item A or B
    with probability 1/2, so the correct letter is A in half the tasks in expectation
    and a constant answer earns 0.5.

    Every draw comes from a generator seeded by (`seed`, label, task, trial), so a
    rollout's pairs do not change when other logs are added. `fixed_order` is the old,
    gameable order (A = positive in MORE, A = negative in LESS: the answer is always A),
    kept only so tests can show the fairness check catches it. Titles and history come
    from each episode's opening, as the agent saw them."""
    for label, task, trajectory, _ in sorted(
        episodes, key=lambda e: (e[0], e[1].id, e[2].header.trial)
    ):
        pool = _violation(task, trajectory)
        if pool is None:
            continue
        outcome = score_ranking(task, *ranking_answer(trajectory))
        trial = trajectory.header.trial
        rng = random.Random(f"ppr:{seed}:{label}:{task.id}:{trial}")
        side = (sides or {}).get((label, task.id, trial))
        drawn = (
            rng.choice(pool)
            if popularity is None
            else balanced_negative(task, pool, popularity, rng, side)
        )
        if drawn is None:
            continue
        negative = drawn
        history, titles = _titles(_opening(trajectory))
        positive = PairItem(id=task.positive, title=titles.get(task.positive, task.positive))
        other = PairItem(id=negative, title=titles.get(negative, negative))
        for direction in ("MORE", "LESS"):
            positive_first = (direction == "MORE") if fixed_order else rng.random() < 0.5
            a, b = (positive, other) if positive_first else (other, positive)
            answer = "A" if positive_first == (direction == "MORE") else "B"
            yield PairTask(
                id=f"{task.id}.{_slug(label)}.t{trial}.{direction.lower()}",
                user_id=task.user_id,
                target_time=task.target_time,
                history=history[-MAX_HISTORY:],
                direction=direction,
                item_a=a,
                item_b=b,
                positive=task.positive,
                answer=answer,
                source_task_id=task.id,
                source_label=label,
                source_trial=trial,
                source_rank=outcome.rank,
            )


def ppr_record(pair: PairTask) -> dict[str, Any]:
    """One JSON line of `--format ppr`: the prompt, the two items, the answer and where
    the pair came from."""
    return {
        "id": pair.id,
        "label": pair.source_label,
        "task_id": pair.source_task_id,
        "trial": pair.source_trial,
        "direction": pair.direction,
        "prompt": pair_prompt(pair),
        "item_a": pair.item_a.id,
        "item_b": pair.item_b.id,
        "answer": pair.answer,
        "positive": pair.positive,
        "a_is": "positive" if pair.item_a.id == pair.positive else "negative",
    }


def one_per_source(pairs: list[PairTask], seed: int) -> list[PairTask]:
    """One pair (its MORE and its LESS task) per source ranking task, drawn from that
    task's rollouts (seeded), in source order. Several rollouts of one task (or several
    labels' rollouts of it) share its positive: with all their pairs in one export, "the
    item in the most pairs" would find it."""
    by_source: dict[str, dict[tuple[str, int], list[PairTask]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for pair in pairs:
        by_source[pair.source_task_id][pair.source_label, pair.source_trial].append(pair)
    rng = random.Random(f"ppr-one-per-source:{seed}")
    out = []
    for source in sorted(by_source):
        rollouts = by_source[source]
        out += rollouts[sorted(rollouts)[rng.randrange(len(rollouts))]]
    return out


def suite_pairs(pairs: list[PairTask], seed: int) -> list[PairTask]:
    """The pairs a playable PPR suite holds: one per source ranking task
    (`one_per_source`), under ids that say nothing of their source (`pair_<n>.more|less`,
    numbered in a seeded order)."""
    chosen = one_per_source(pairs, seed)
    by_source: dict[str, list[PairTask]] = defaultdict(list)
    for pair in chosen:
        by_source[pair.source_task_id].append(pair)
    rng = random.Random(f"ppr-suite:{seed}")
    sources = sorted(by_source)
    rng.shuffle(sources)
    width = len(str(max(len(sources) - 1, 1)))
    out = []
    for n, source in enumerate(sources):
        for pair in by_source[source]:
            new_id = f"pair_{n:0{width}d}.{pair.direction.lower()}"
            out.append(PairTask.model_validate(pair.model_dump() | {"id": new_id}))
    return out
