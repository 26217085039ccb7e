"""Where a run's episodes are played: a registry of backends, one code path per episode.

Every backend plays each episode with the same `Runner` (start, the agent's turns, the
end it makes sure of); they differ only in where that happens and who writes what:

- local: one process, `concurrency` episodes at a time on one MCP client session; the
  server (in process, stdio or HTTP) writes the logs and the run register itself.
- ray: each task x trial is a Ray task on a cluster; the driver writes every log and
  register line (see ray_backend.py). Needs the `taurec[ray]` extra.

A backend is looked up by name in BACKENDS and made with its options; `run` takes a
RunJob (job.py) and the episodes to play and returns the RunReport.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio

from taurec.clients.runner.job import Backend, BackendError, ResultHook, RunJob
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import Runner, RunReport


@dataclass(frozen=True)
class LocalBackend:
    """This process plays every episode (the runner's own concurrency)."""

    address: str | None = None

    def __post_init__(self) -> None:
        if self.address is not None:
            raise BackendError("--ray-address applies to --backend ray only")

    def run(
        self, job: RunJob, specs: Sequence[EpisodeSpec], on_result: ResultHook | None = None
    ) -> RunReport:
        job.check()
        runner = Runner(
            job.make_agent(),
            job.connection,
            job.out,
            job.run_label,
            concurrency=job.concurrency,
            seed=job.seed,
            episode_timeout=job.episode_timeout,
            resolver=job.resolver,
            handle_signals=job.handle_signals,
            fail_fast=job.fail_fast,
            on_result=on_result,
        )
        return anyio.run(runner.run, list(specs))


def _ray_backend(address: str | None) -> Backend:
    from taurec.clients.runner.ray_backend import (
        RayBackend,  # ray is imported only when this backend runs
    )

    return RayBackend(address)


#: backend name -> factory taking the cluster address (None: the backend's default)
BACKENDS: dict[str, Callable[[str | None], Backend]] = {
    "local": LocalBackend,
    "ray": _ray_backend,
}


def make_backend(name: str, address: str | None = None) -> Backend:
    """The backend called `name`; BackendError for an unknown name or a bad option."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise BackendError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    return factory(address)
