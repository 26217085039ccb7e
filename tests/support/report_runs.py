"""Small runs of each task kind for the report tests: real agents through the runner."""

from __future__ import annotations

from pathlib import Path

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import make_agent
from taurec.clients.runner import run_agent
from taurec.tasks.suite import load_suite


def _first(suite: str, n: int) -> list[str]:
    return [t.id for t in load_suite(suite).tasks[:n]]


def recommendation_run(out: Path) -> Path:
    """The scripted and the random agent, 3 built-in tasks x 2 trials each."""
    for name in ("scripted", "random"):
        agent = make_agent(name, AgentSettings(suite="builtin"))
        run_agent(agent, tasks=_first("builtin", 3), trials=2, out=out / name, concurrency=2)
    return out


def ranking_run(out: Path) -> Path:
    """The popularity ranker, 4 built-in ranking tasks x 2 trials."""
    suite = "ranking:builtin"
    agent = make_agent("popularity", AgentSettings(suite=suite), "ranking")
    run_agent(agent, suite=suite, tasks=_first(suite, 4), trials=2, out=out, concurrency=2)
    return out


def stream_run(out: Path) -> Path:
    """The learning agent, 2 built-in streams x 2 trials."""
    suite = "stream:builtin"
    agent = make_agent("learner", AgentSettings(suite=suite), "stream")
    run_agent(agent, suite=suite, tasks=_first(suite, 2), trials=2, out=out, concurrency=2)
    return out


def ppr_run(out: Path) -> Path:
    """The random chooser on a ppr suite mined from 6 ranking episodes, 2 trials each; the
    logs in out / "logs" (the suite beside them, in out / "suite")."""
    from support.ppr import write_pair_suite

    suite = str(write_pair_suite(out / "suite"))
    agent = make_agent("random", AgentSettings(suite=suite), "ppr")
    run_agent(agent, suite=suite, trials=2, out=out / "logs", concurrency=2)
    return out / "logs"
