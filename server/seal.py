"""Sealed runs on the server: which plan a caller plays, what it may still start, and the
run register that records every start and end (format: taurec.tasks.runs.register).

A caller is known by its bearer token (the request's Authorization header over HTTP).
In process and over stdio there are no headers: whoever launched the server is its one
contestant, so a server with exactly one plan serves that plan to them. A planned
(task, trial) can be started once. It can be started again only when the server itself
cut its attempt off: ended it on shutdown, or found it open after a crash or kill. Both
stay on record in the register, and the evaluator scores the latest attempt.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from taurec.catalog.errors import DataError
from taurec.catalog.store import Catalog
from taurec.server.episode_end import EpisodeEnd
from taurec.server.raw_calls import bearer_token
from taurec.server.run_facts import derive_seed
from taurec.server.sealed_run import SealedRun
from taurec.tasks.errors import ArgumentError, EpisodeError, short_repr
from taurec.tasks.runs.plan import RunPlan, read_plan, token_sha256
from taurec.tasks.suite import Suite
from taurec.tasks.trajectory.signing import LogKey

# A per-request slot (each request runs in its own context), not shared state.
_TOKEN: ContextVar[str | None] = ContextVar("taurec_bearer_token", default=None)
_HEADERS_SEEN: ContextVar[bool] = ContextVar("taurec_request_has_headers", default=False)


def request_token() -> tuple[bool, str | None]:
    """(whether the current request came with HTTP headers, its bearer token or None)."""
    return _HEADERS_SEEN.get(), _TOKEN.get()


class CallerMiddleware:
    """Keeps each request's bearer token for the tools (see `request_token`)."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if getattr(ctx.request, "headers", None) is None:
            return await call_next(ctx)
        t1 = _HEADERS_SEEN.set(True)
        t2 = _TOKEN.set(bearer_token(ctx.request))
        try:
            return await call_next(ctx)
        finally:
            _TOKEN.reset(t2)
            _HEADERS_SEEN.reset(t1)


def check_plan_fits(
    plan: RunPlan, path: Path, suite: Suite, catalog: Catalog, catalog_spec: str | None = None
) -> None:
    """DataError unless `plan` was made for this suite and catalog, exactly. `catalog_spec`:
    the catalog served in place of the suite's own (`--catalog`), for the command that
    makes a plan that fits."""
    served = catalog.sha256()
    given = "" if catalog_spec is None else f" --catalog {catalog_spec}"
    remake = (
        f"make the plan again: taurec plan new --suite {plan.suite.spec}{given} "
        f"--label {plan.label} --out NEW.json"
    )
    if plan.catalog_sha256 != served and plan.catalog_sha256 == catalog.content_sha256():
        raise DataError(
            f"{path}: the plan pins the served items' digest {plan.catalog_sha256[:12]}... "
            "(made over their JSON form, or before a folder's digest covered its index "
            f"files), not the catalog folder's {served[:12]}...; {remake}",
            field="catalog_sha256",
        )
    # a suite's digest covers its catalog's: a changed catalog under the same suite id is
    # reported as what it is
    catalog_differs = plan.catalog_sha256 != served
    if plan.suite.sha256 != suite.sha256() and not (catalog_differs and plan.suite.id == suite.id):
        raise DataError(
            f"{path}: the plan is for suite {plan.suite.id!r} (spec {plan.suite.spec}, sha256 "
            f"{plan.suite.sha256[:12]}...), but this server serves {suite.id!r} (sha256 "
            f"{suite.sha256()[:12]}...); serve it with --suite {plan.suite.spec}",
            field="suite",
        )
    if catalog_differs:
        raise DataError(
            f"{path}: the plan's catalog sha256 {plan.catalog_sha256[:12]}... differs from "
            f"the served catalog's {served[:12]}..."
            + (f"; {remake}" if catalog_spec is not None else ""),
            field="catalog_sha256",
        )
    missing = sorted({t for t, _ in plan.slots() if suite.get(t) is None})
    if missing:
        raise DataError(f"{path}: planned tasks not in the suite: {', '.join(missing[:5])}")
    if plan.control is not None and suite.kind != "stream":
        raise DataError(
            f"{path}: the plan has a control arm ({plan.control}), which applies to stream "
            f"suites; {suite.id!r} is a {suite.kind} suite",
            field="control",
        )


def load_seals(
    paths: Sequence[Path],
    suite: Suite,
    catalog: Catalog,
    log_dir: Path,
    key: LogKey,
    *,
    server_version: str,
    catalog_spec: str | None = None,
) -> Seals:
    """The plans at `paths`, checked against what is served (`catalog_spec`: the catalog
    given in place of the suite's own), each with its register."""
    plans = [read_plan(p) for p in paths]
    for plan, path in zip(plans, paths, strict=True):
        check_plan_fits(plan, path, suite, catalog, catalog_spec)
    return Seals([SealedRun(p, log_dir, key, server_version=server_version) for p in plans])


@dataclass(frozen=True)
class Admission:
    """A planned (task, trial) claimed for a start: which run, which attempt."""

    run: SealedRun
    task_id: str
    trial: int
    attempt: int

    @property
    def label(self) -> str:
        return self.run.plan.label

    @property
    def run_id(self) -> str:
        return self.run.plan.run_id

    @property
    def plan_id(self) -> str:
        return self.run.plan.plan_id

    @property
    def seed(self) -> int:
        return derive_seed(self.task_id, self.trial)

    @property
    def control(self) -> str | None:
        """The control arm's feedback mode when this episode is in it, else None."""
        plan = self.run.plan
        return plan.control if plan.arm_of(self.task_id, self.trial) == "control" else None


class Seals:
    """The plans one server serves, found by their tokens, and who owns which episode."""

    def __init__(self, runs: Sequence[SealedRun]) -> None:
        self.runs = list(runs)
        self._owner: dict[str, SealedRun] = {}  # open sealed episode id -> its plan
        self._by_token: Mapping[str, SealedRun] = {token_sha256(r.plan.token): r for r in runs}
        ids = [r.plan.plan_id for r in self.runs]
        if len(set(ids)) != len(ids):
            raise DataError("the same plan is given twice")
        if len(self._by_token) != len(self.runs):
            raise DataError("two plans share one token; make each with `taurec plan new`")

    @property
    def tokens(self) -> list[str]:
        return [r.plan.token for r in self.runs]

    def caller(self) -> SealedRun:
        """The plan of the current request's caller. EpisodeError when there is none."""
        has_headers, token = request_token()
        if not has_headers:
            if len(self.runs) == 1:
                return self.runs[0]
            raise EpisodeError(
                "this server serves several sealed plans: connect over HTTP with your plan's "
                "bearer token"
            )
        if token is not None:
            digest = token_sha256(token)
            for known, run in self._by_token.items():
                if hmac.compare_digest(known, digest):
                    return run
        raise EpisodeError(
            "this server serves sealed runs: send your plan's bearer token "
            "('Authorization: Bearer <token>')"
        )

    def check_owner(self, episode_id: str) -> None:
        """EpisodeError unless the caller's plan started this episode: to anyone else its
        id is unknown (as for any id it did not start)."""
        owner = self._owner.get(episode_id)
        try:
            caller = self.caller()
        except EpisodeError:
            caller = None
        if owner is None or caller is not owner:
            raise EpisodeError(
                f"unknown episode_id {short_repr(episode_id)}; expected the episode_id that "
                "start_episode returned"
            )

    def admit(
        self, task_id: str, trial: int | None, seed: int | None, agent_label: str | None
    ) -> Admission:
        """Claim the caller's planned (task, trial) for a start about to happen (any kind of
        episode). ArgumentError for a label or seed the caller may not choose; EpisodeError
        when the plan does not hold it or it was played. Follow with `started`, or `cancel`
        when the start fails."""
        run = self.caller()
        plan = run.plan
        if agent_label is not None and agent_label != plan.label:
            raise ArgumentError(
                "agent_label",
                f"is {agent_label!r}, but this sealed run's plan says {plan.label!r}: the "
                "label comes from your token (omit agent_label)",
            )
        if seed is not None:
            raise ArgumentError(
                "seed", "cannot be chosen in a sealed run (each episode's seed is fixed); omit it"
            )
        trial = trial or 0
        return Admission(run, task_id, trial, run.reserve(task_id, trial))

    def cancel(self, admission: Admission) -> None:
        admission.run.release(admission.task_id, admission.trial)

    def started(self, admission: Admission, episode_id: str, log: Path) -> None:
        """The admitted episode exists: its caller owns it, and the register records it."""
        self._owner[episode_id] = admission.run
        admission.run.started(
            admission.task_id, admission.trial, admission.attempt, episode_id, log
        )

    def ended(
        self,
        admission: Admission,
        episode_id: str,
        end: EpisodeEnd,
        chain: str,
    ) -> None:
        """The episode's end record is written (`chain`: its log's last chain hash). An
        episode that ended before the register recorded its start (its opening failed)
        was never on record, and stays off it."""
        if episode_id not in self._owner:
            return
        # the owner is kept: it still answers "has ended" to its owner alone (a plan's
        # episodes are finite, so this is bounded)
        admission.run.ended(
            admission.task_id,
            admission.trial,
            episode_id,
            end.reason.value,
            end.detail,
            chain,
            cut_by_server=end.cut_by_server,
        )
