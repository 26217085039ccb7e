"""The baselines' regrets on a stream suite, played in process with the rule-based customer.

`baseline_regrets(tasks)` plays every stream once with each of popularity, the probing
agent (a check that the customer does not give its utilities away) and the learner (the
positive control: its regret should fall over the episodes), each through a
`LocalStreamPort` over a `StreamSession` with seed 0 and the rule-based customer: the
rules and results of the MCP tools, without a server. Random needs no play: its
expected regret is exact (see taurec.tasks.stream.statistics).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from taurec.clients.agents.stream.baselines import PopularityStreamPolicy
from taurec.clients.agents.stream.learner import BayesianStreamLearner
from taurec.clients.agents.stream.play import StreamPolicy, play_local
from taurec.clients.agents.stream.probe import ProbingStreamPolicy
from taurec.tasks.stream.feedback import regret_of
from taurec.tasks.stream.task import StreamTask

#: The session seed every stream is played with (the customer's words depend on it).
SEED: Final = 0
MakePolicy = Callable[[StreamTask], StreamPolicy]
#: The baselines played, by name.
BASELINES: Final[dict[str, MakePolicy]] = {
    "popularity": lambda task: PopularityStreamPolicy(),
    "probe": lambda task: ProbingStreamPolicy(),
    "learner": lambda task: BayesianStreamLearner(SEED, task.id, 0),
}


@dataclass(frozen=True)
class Regret:
    """One agent's mean regret and questions per episode, and its mean regret by episode
    index (the learning curve)."""

    regret: float
    questions: float
    curve: list[float]


@dataclass(frozen=True)
class BaselineRegret:
    agent: str
    overall: Regret
    by_setting: dict[str, Regret]


async def _play(task: StreamTask, make: MakePolicy) -> list[tuple[float, int]]:
    """(regret, questions) per episode of one stream."""
    session = await play_local(task, make(task), seed=SEED)
    return [
        (regret_of(session.played(n).utilities[chosen], session.played(n).best), asked)
        for n, (chosen, asked) in enumerate(zip(session.chosen, session.asked, strict=True))
    ]


def _summary(streams: Sequence[list[tuple[float, int]]]) -> Regret:
    flat = [e for s in streams for e in s]
    length = max(len(s) for s in streams)
    curve = [statistics.fmean(s[k][0] for s in streams if len(s) > k) for k in range(length)]
    return Regret(
        regret=statistics.fmean(r for r, _ in flat),
        questions=statistics.fmean(q for _, q in flat),
        curve=curve,
    )


async def _play_all(
    tasks: Sequence[StreamTask], baselines: dict[str, MakePolicy]
) -> list[BaselineRegret]:
    out = []
    for name, make in baselines.items():
        played = [(task.setting.value, await _play(task, make)) for task in tasks]
        settings = sorted({s for s, _ in played})
        out.append(
            BaselineRegret(
                agent=name,
                overall=_summary([p for _, p in played]),
                by_setting={s: _summary([p for t, p in played if t == s]) for s in settings},
            )
        )
    return out


def baseline_regrets(
    tasks: Sequence[StreamTask], baselines: dict[str, MakePolicy] | None = None
) -> list[BaselineRegret]:
    """Each baseline's regret on `tasks` (at least one), in the order of `baselines`
    (default: popularity, probe, learner)."""
    if not tasks:
        raise ValueError("no stream tasks; expected at least one")
    return asyncio.run(_play_all(tasks, BASELINES if baselines is None else baselines))
