"""What a run plays and how, whatever backend plays it: the job, the hook called with each
finished episode, the interface every backend meets, and the error a backend refuses
a job with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from taurec.clients.agents.base import Agent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import EpisodeResult, RunReport
from taurec.evaluator.logs import Resolver


class BackendError(ValueError):
    """A backend cannot run this job as configured (a one-line reason)."""


@dataclass(frozen=True)
class RunJob:
    """What to play and how, independent of where. `make_agent` builds the agent (it is
    called once per process that plays episodes, so it must pickle for Ray: a module-level
    function or a functools.partial of one). `plan_path`: the sealed plan the run plays
    (None for an HTTP server, whose plans are its own)."""

    make_agent: Callable[[], Agent]
    connection: Connection
    out: Path
    run_label: str
    concurrency: int = 4
    seed: int | None = None
    episode_timeout: float | None = 900.0
    resolver: Resolver = field(default_factory=Resolver)
    plan_path: Path | None = None
    handle_signals: bool = True
    fail_fast: bool = False  # the first agent error stops the run, finishing nothing else

    def check(self) -> None:
        """BackendError for a job no backend can play: a sealed plan fixes each episode's
        seed (from its task and trial), and its server refuses any other."""
        if self.plan_path is not None and self.seed is not None:
            raise BackendError(
                "--seed: this run is sealed, so each episode's seed is fixed by its task and "
                "trial; omit --seed (a run seed applies only to --transport http, against a "
                "server that serves no plans)"
            )


ResultHook = Callable[[EpisodeResult], None]


class Backend(Protocol):
    def run(
        self, job: RunJob, specs: Sequence[EpisodeSpec], on_result: ResultHook | None = None
    ) -> RunReport: ...
