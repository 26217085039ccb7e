"""The Ray backend: each task x trial is a Ray task; the driver writes everything.

Each Ray task runs `play_in_scratch` (scratch_episode.py): the episode, played by the same
Runner as a local run against a server of the worker's own (in process, or `taurec
serve` over stdio), in a temporary folder on the worker's machine; it returns the finished
log's bytes. The driver (this process) keeps at most `concurrency` tasks in flight (never
two trials of one task, as a local run: trial_queue.py) and commits each returned log into
`<out>/<run id>/` and the run register (handoff.py), so `out` need only be on the
driver's disk.

A worker that dies (killed, out of memory, its node lost) returns nothing: Ray runs the
task again from scratch, up to MAX_RETRIES times, on any worker. A retried episode starts
over with the same seed; nothing of the dead attempt was written, so it is neither lost
nor counted twice. When every retry fails, the episode is reported as not played, the
register does not name it, and `--resume` plays it. When the driver loses the cluster
itself (its own node's raylet is gone, e.g. `ray stop` on the driver's machine), no
episode can be played any more: the run stops with a failure, keeping what was recorded.

`ray` is imported only here, when the backend runs (`pip install taurec[ray]`).
"""

from __future__ import annotations

import importlib.util
import logging
import signal
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Final

from taurec.clients.runner.handoff import Handoff
from taurec.clients.runner.job import BackendError, ResultHook, RunJob
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import EpisodeResult, RunReport
from taurec.clients.runner.scratch_episode import EpisodeJob, PlayedEpisode, play_in_scratch
from taurec.clients.runner.trial_queue import TrialQueue
from taurec.tasks.trajectory.signing import load_log_key

#: times Ray runs an episode again after its worker died
MAX_RETRIES: Final = 3
#: seconds to wait for a given cluster address to accept a connection
REACH_TIMEOUT: Final = 10.0
#: what Ray says, somewhere in the causes of a failed join, when the cluster wants a token
AUTH_REFUSED: Final = ("InvalidAuthToken", "AuthenticationError")


class ClusterLost(Exception):
    """The driver's own link to the cluster is gone: no further episode can be played."""


class _FailedFast(Exception):
    """An episode ended in an agent error under `fail_fast`: nothing else is finished."""


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops the run as SIGINT does (KeyboardInterrupt), in the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def _check_reachable(address: str | None) -> None:
    """BackendError at once when a host:port address does not answer (Ray itself would
    keep retrying for minutes). None, "auto" and "local" are left to Ray."""
    if address is None or address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise BackendError(
            f"--ray-address {address!r}: expected host:port (what `ray start --head` printed, "
            "e.g. 10.0.0.1:6379), 'auto' or ray://host:port"
        )
    try:
        socket.create_connection((host, int(port)), timeout=REACH_TIMEOUT).close()
    except OSError as exc:
        raise BackendError(
            f"--ray-address {address}: no Ray cluster answers there ({exc.strerror or exc}); "
            "start one with `ray start --head`, or give the address it printed"
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _join_error(where: str, exc: BaseException) -> BackendError:
    """The one-line reason `ray.init` could not join: a token the cluster refused is named
    as such (Ray reports it only deep in the exception's causes)."""
    causes: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in causes:
        causes.append(link)
        link = link.__cause__ or link.__context__
    if any(mark in str(c) or type(c).__name__ == mark for c in causes for mark in AUTH_REFUSED):
        return BackendError(
            f"--ray-address {where}: the cluster refused this process's Ray authentication "
            "token; it uses token authentication, so set RAY_AUTH_MODE=token here and give "
            "the cluster's token (~/.ray/auth_token, RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH; "
            "see docs/ray.md)"
        )
    return BackendError(
        f"--ray-address {where}: cannot join the Ray cluster ({_first_line(exc)}); expected "
        "the address `ray start --head` printed, e.g. 10.0.0.1:6379"
    )


@dataclass(frozen=True)
class RayBackend:
    """`address`: the cluster (`ray start --head` prints it; "auto" finds a local one).
    None: $RAY_ADDRESS if set, else a Ray instance started for this run on this machine."""

    address: str | None = None
    max_retries: int = MAX_RETRIES
    scratch_root: str | None = None  # the workers' scratch folders (None: their temp dir)

    def __post_init__(self) -> None:
        """Checked when the backend is made, before a run writes anything."""
        if not ray_available():
            raise BackendError("--backend ray needs Ray: pip install 'taurec[ray]' (ray>=2.60,<3)")
        _check_reachable(self.address)

    def run(
        self, job: RunJob, specs: Sequence[EpisodeSpec], on_result: ResultHook | None = None
    ) -> RunReport:
        if job.plan_path is None or not job.connection.writes_logs_to_out:
            raise BackendError(
                "--backend ray plays each episode against a server on its worker "
                "(--transport inproc or stdio); --transport http is not supported with it"
            )
        job.check()
        import ray

        started_here = not ray.is_initialized()
        if started_here:
            try:
                ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise _join_error(self.address or "$RAY_ADDRESS or a local Ray", exc) from None
        try:
            return self._run(ray, job, specs, on_result)
        finally:
            if started_here:
                ray.shutdown()

    def _run(
        self, ray: Any, job: RunJob, specs: Sequence[EpisodeSpec], on_result: ResultHook | None
    ) -> RunReport:
        assert job.plan_path is not None
        report = RunReport()
        handoff = Handoff(job.plan_path, job.out, load_log_key(create=True))
        strays = handoff.reconcile()  # logs a dead driver wrote but never recorded
        todo = handoff.todo(list(dict.fromkeys([*specs, *strays])))
        remote = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)(
            play_in_scratch
        )
        plan_bytes, plan_name = job.plan_path.read_bytes(), job.plan_path.name
        settings = job.connection.settings

        def submit(spec: EpisodeSpec) -> Any:
            episode = EpisodeJob(
                make_agent=job.make_agent,
                transport=job.connection.transport,
                settings=settings,
                plan_name=plan_name,
                plan_bytes=plan_bytes,
                run_id=handoff.plan.run_id,
                spec=spec,
                seed=job.seed,
                episode_timeout=job.episode_timeout,
                scratch_root=self.scratch_root,
            )
            return remote.remote(episode)

        stack = ExitStack()
        pending = TrialQueue(todo)  # one trial of a task at a time, as a local run
        in_flight: dict[Any, EpisodeSpec] = {}
        try:
            if job.handle_signals:
                stack.enter_context(_sigterm_interrupts())
            while pending or in_flight:
                while len(in_flight) < max(1, job.concurrency):
                    spec = pending.take()
                    if spec is None:  # none left, or every task left has a trial in flight
                        break
                    in_flight[submit(spec)] = spec
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    spec = in_flight.pop(ref)
                    pending.done(spec)
                    result = self._collect(ray, ref, spec, handoff, job)
                    report.results.append(result)
                    if on_result is not None:
                        on_result(result)
                    if job.fail_fast and result.end_reason == "agent_error":
                        raise _FailedFast
        except _FailedFast:  # what is in flight is cancelled, unrecorded: --resume plays it
            report.failed_fast = True
            for ref in in_flight:
                ray.cancel(ref, force=True)
        except KeyboardInterrupt:  # SIGINT, or SIGTERM: finished episodes are recorded
            report.interrupted = True
            for ref in in_flight:
                ray.cancel(ref, force=True)
        except ClusterLost as lost:
            report.failure = (
                f"the Ray cluster was lost ({lost}); what was recorded stands, and --resume "
                "plays the rest once the cluster is back"
            )
            for ref in in_flight:
                with suppress(ray.exceptions.RayError):  # the cluster may not answer
                    ray.cancel(ref, force=True)
        finally:
            stack.close()
        return report

    def _collect(
        self, ray: Any, ref: Any, spec: EpisodeSpec, handoff: Handoff, job: RunJob
    ) -> EpisodeResult:
        try:
            played: PlayedEpisode = ray.get(ref)
        except ray.exceptions.LocalRayletDiedError as exc:  # every later task fails alike
            raise ClusterLost(f"{type(exc).__name__}: {_first_line(exc)}") from None
        except ray.exceptions.RayError as exc:  # retries exhausted, or the task raised
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return EpisodeResult(
                spec,
                None,
                "infra_error",
                error=f"not played: {type(exc).__name__}: {first} (resume plays it)",
            )
        return handoff.commit(played, job.resolver)
