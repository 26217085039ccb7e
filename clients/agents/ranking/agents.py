"""Agents for ranking tasks, registered for the "ranking" kind.

The non-LLM baselines (random, popularity, cf) rank the candidates the opening lists and
submit with no tool call; popularity and cf train on the suite's interaction data before
its earliest target, like the server's collaborative model. The oracle reads the answer
key and calls one tool (its reward is the ceiling, 1.1). The scripted agent uses only the
tools: session interests, the candidates' categories and similar items of the history.
"""

from __future__ import annotations

import random
import re
from functools import cache

from taurec.clients.agents.base import Agent, AgentSettings, Episode
from taurec.clients.agents.ranking.prompt import RankingView, read_opening
from taurec.clients.agents.registry import AGENT_KINDS, AgentEntry, AgentProfile
from taurec.server.ranking.app import ranking_data
from taurec.server.ranking.tools import RankingData
from taurec.tasks.suite import Suite, load_suite

TOP_N = 10


@cache
def _suite(spec: str) -> tuple[Suite, RankingData]:
    suite = load_suite(spec)
    return suite, ranking_data(suite)


async def _submit(episode: Episode, ranked: list[str]) -> None:
    await episode.call("submit_ranking", ranking=ranked[:TOP_N])


class RandomRanker:
    def __init__(self, label: str = "random", seed: int = 0) -> None:
        self.label, self.seed = label, seed

    def rank(self, candidates: list[str], task_id: str, trial: int) -> list[str]:
        ids = list(candidates)
        random.Random(f"{self.seed}:{task_id}:{trial}").shuffle(ids)
        return ids

    async def run(self, episode: Episode) -> None:
        ids = [cid for cid, _ in read_opening(episode.opening).candidates]
        await _submit(episode, self.rank(ids, episode.task_id, episode.trial))


class ModelRanker:
    """popularity: most consumed first; cf: item-kNN score over the history, then popularity."""

    def __init__(self, suite: Suite, rd: RankingData, label: str, use_history: bool) -> None:
        self.label = label
        self.suite, self.rd = suite, rd
        self.use_history = use_history

    def rank(self, task_id: str) -> list[str]:
        task = self.suite.get(task_id)
        if task is None:
            raise KeyError(f"task {task_id!r} is not in suite {self.suite.id!r}")
        data, model = self.rd.data, self.rd.model
        cands = [data.item_of(c) for c in task.candidates]
        pop = model.popularity[cands]
        cf = (
            model.scores([data.item_of(h) for h in task.history], cands)
            if self.use_history
            else 0 * pop
        )
        order = sorted(range(len(cands)), key=lambda k: (-cf[k], -pop[k], k))
        return [task.candidates[k] for k in order]

    async def run(self, episode: Episode) -> None:
        await _submit(episode, self.rank(episode.task_id))


class OracleRanker:
    def __init__(self, suite: str, label: str = "oracle") -> None:
        self.label = label
        self.suite = load_suite(suite)

    async def run(self, episode: Episode) -> None:
        task = self.suite.get(episode.task_id)
        assert task is not None, f"task {episode.task_id!r} is not in suite {self.suite.id!r}"
        await episode.call("get_user_profile")  # one tool call earns the +0.1
        rest = [c for c in task.candidates if c != task.positive]
        await _submit(episode, [task.positive, *rest])


_SIMILAR = re.compile(r"^\[\d+\] (.*) \(Categories: (.*)\)$")


class ScriptedRanker:
    """Tools only: interests from the latest sessions, categories of each candidate, and the
    items similar to the last three history items. A candidate scores 2 per similar-items
    list it appears in and 1 per recent interest among its categories."""

    def __init__(self, label: str = "scripted") -> None:
        self.label = label

    async def run(self, episode: Episode) -> None:
        view = read_opening(episode.opening)
        sessions = await episode.call("get_session_behavior")
        interests = set()
        for line in sessions.text.splitlines():
            if "interested in " in line:
                interests |= {x.strip(" .") for x in line.split("interested in ", 1)[1].split(",")}
        categories = _categories(view, (await episode.call("candidates_analyze")).text)
        similar: dict[str, int] = {}
        for title in view.history[-3:]:
            outcome = await episode.call("get_similar_items", item_title=title)
            for line in outcome.text.splitlines():
                if m := _SIMILAR.match(line):
                    similar[m.group(1)] = similar.get(m.group(1), 0) + 1
        scores = {
            cid: 2 * similar.get(title, 0) + len(categories.get(cid, set()) & interests)
            for cid, title in view.candidates
        }
        order = sorted(
            range(len(view.candidates)), key=lambda k: (-scores[view.candidates[k][0]], k)
        )
        await _submit(episode, [view.candidates[k][0] for k in order])


def _categories(view: RankingView, analysis: str) -> dict[str, set[str]]:
    """Candidate id -> its categories, from candidates_analyze ("- A > B:" then "Item n")."""
    out: dict[str, set[str]] = {}
    current: set[str] = set()
    for line in analysis.splitlines():
        if line.startswith("- ") and line.endswith(":"):
            current = {c.strip() for c in line[2:-1].split(">")}
        elif m := re.search(r"Item (\d+):", line):
            n = int(m.group(1))
            if 1 <= n <= len(view.candidates):
                out[view.candidates[n - 1][0]] = current
    return out


def _llm(settings: AgentSettings) -> Agent:
    from taurec.clients.agents.ranking.llm import make_ranking_llm_agent

    return make_ranking_llm_agent(settings)


AGENT_KINDS.register("ranking")(
    {
        "random": AgentEntry(
            AgentProfile("shuffles the candidates (seeded)", 0, 0),
            lambda s: RandomRanker(s.label or "random", s.seed),
        ),
        "popularity": AgentEntry(
            AgentProfile("most consumed candidates first", 0, 0),
            lambda s: ModelRanker(*_suite(s.suite), s.label or "popularity", use_history=False),
        ),
        "cf": AgentEntry(
            AgentProfile("item-kNN collaborative filtering over the history", 0, 0),
            lambda s: ModelRanker(*_suite(s.suite), s.label or "cf", use_history=True),
        ),
        "oracle": AgentEntry(
            AgentProfile("reads the answer key; reward 1.1", 1, 0),
            lambda s: OracleRanker(s.suite, s.label or "oracle"),
        ),
        "scripted": AgentEntry(
            AgentProfile("sessions, categories and similar items, by rule", 5, 0),
            lambda s: ScriptedRanker(s.label or "scripted"),
        ),
        "llm": AgentEntry(
            AgentProfile(
                "a litellm agent with the AgenticRec prompt",
                5,
                0,
                6,
                needs_model=True,
                accepts=("answer_retries",),
            ),
            _llm,
        ),
    }
)
