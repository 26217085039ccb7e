"""Run plans: what one contestant may play in a sealed run, and the token that proves who
it is.

A plan names the agent label, the suite (id, spec and sha256), the catalog sha256, the
(task, trial) episodes to play and a fresh bearer token. A plan with a control arm
(`control`: the feedback mode of a stream suite's control, e.g. "shuffled") holds twice
the trials, each (task, trial) given to the `run` or the `control` arm at random (half
of each task's trials each, drawn with the token's secrecy): the contestant cannot tell
which arm an episode is in, and the server plays a control episode with the control's
feedback. `taurec serve --plan plan.json`
serves it: the token decides the label (a client never chooses it), each planned episode
can be started once, nothing outside the plan can be started. The plan file holds the
token, so it stays with whoever runs the server; the contestant gets the token alone. The
run register (see register.py) records the plan without its token (its sha256 only),
and the evaluator scores every planned episode from it.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from taurec.catalog.errors import DataError

PLAN_FORMAT: Final = "taurec-plan"
#: Agent labels are data printed in tables, markdown and terminals: a closed charset keeps
#: markup, control characters and table separators out of them at the source.
LABEL_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.@+:/=-]{0,199}$"
_LABEL = re.compile(LABEL_PATTERN)
LABEL_RULE: Final = (
    "1 to 200 characters: letters, digits and _ . @ + : / = - (starting with a letter or digit)"
)
#: Bytes of randomness in a plan's token (256 bits; the issue asks for at least 128).
TOKEN_BYTES: Final = 32


def label_problem(label: object) -> str | None:
    """Why `label` is not a valid agent label, or None when it is."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        return f"agent label {label!r} is not allowed; expected {LABEL_RULE}"
    return None


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


Arm = Literal["run", "control"]


class PlannedEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str = Field(min_length=1)
    trial: int = Field(ge=0, le=10_000)
    arm: Arm | None = Field(
        default=None, description="A plan with a control arm: the arm this episode is in."
    )


class PlanSuite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    spec: str = Field(description="How to load it: builtin, a folder, tau-rec:PATH.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Suite.sha256() when planned.")


class RunPlan(BaseModel):
    """One contestant's sealed run. `token` is the secret; everything else is public."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["taurec-plan"] = PLAN_FORMAT
    format_version: Literal[1] = 1
    plan_id: str = Field(pattern=r"^[0-9a-f]{32}$")
    label: str = Field(description="The agent label every episode of this plan carries.")
    suite: PlanSuite
    catalog_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    episodes: list[PlannedEpisode] = Field(min_length=1)
    token: str = Field(min_length=2 * 16, repr=False, description="The bearer token.")
    created_at: datetime
    control: str | None = Field(
        default=None,
        pattern=r"^[a-z]+$",
        description="The control arm's feedback mode (a stream suite's: shuffled or none); "
        "None: a plan without a control arm.",
    )

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        problem = label_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("episodes")
    @classmethod
    def _unique(cls, value: list[PlannedEpisode]) -> list[PlannedEpisode]:
        seen: set[tuple[str, int]] = set()
        for e in value:
            key = (e.task_id, e.trial)
            if key in seen:
                raise ValueError(f"task {e.task_id!r} trial {e.trial} is planned twice")
            seen.add(key)
        return value

    @model_validator(mode="after")
    def _arms(self) -> RunPlan:
        armed = {e.arm is not None for e in self.episodes}
        if (self.control is not None) != (armed == {True}):
            raise ValueError(
                "a plan with a control arm gives every episode an arm (run or control), "
                "and a plan without one gives none"
            )
        return self

    def arm_of(self, task_id: str, trial: int) -> Arm | None:
        """The arm of a planned (task, trial) (None: the plan has no control arm)."""
        return next(
            (e.arm for e in self.episodes if (e.task_id, e.trial) == (task_id, trial)), None
        )

    @property
    def run_id(self) -> str:
        """The run folder and every header's run_id for this plan's episodes."""
        return f"plan-{self.plan_id[:12]}"

    def public(self) -> dict[str, Any]:
        """The plan as the register records it: the token replaced by its sha256."""
        record = self.model_dump(mode="json", exclude={"token"}, exclude_none=True)
        record["token_sha256"] = token_sha256(self.token)
        return record

    def slots(self) -> list[tuple[str, int]]:
        return [(e.task_id, e.trial) for e in self.episodes]


def new_plan(
    *,
    label: str,
    suite_id: str,
    suite_spec: str,
    suite_sha256: str,
    catalog_sha256: str,
    task_ids: Sequence[str],
    trials: int,
    control: str | None = None,
) -> RunPlan:
    """A fresh plan: every task x trial (trial-major, as runs play them), a new token.
    With `control`, `trials` per arm: 2 x trials per task, half of each task's trials
    drawn at random (a system source, like the token) for the control arm."""
    if trials < 1:
        raise DataError(f"trials must be at least 1, got {trials}", field="trials")
    problem = label_problem(label)
    if problem is not None:
        raise DataError(problem, field="label")
    if control is None:
        episodes = [PlannedEpisode(task_id=t, trial=k) for k in range(trials) for t in task_ids]
    else:
        draw = secrets.SystemRandom()
        controls = {t: set(draw.sample(range(2 * trials), trials)) for t in task_ids}
        episodes = [
            PlannedEpisode(task_id=t, trial=k, arm="control" if k in controls[t] else "run")
            for k in range(2 * trials)
            for t in task_ids
        ]
    return RunPlan(
        plan_id=secrets.token_hex(16),
        label=label,
        suite=PlanSuite(id=suite_id, spec=suite_spec, sha256=suite_sha256),
        catalog_sha256=catalog_sha256,
        episodes=episodes,
        token=secrets.token_hex(TOKEN_BYTES),
        created_at=datetime.now(UTC),
        control=control,
    )


def write_plan(plan: RunPlan, path: Path) -> None:
    """Write the plan file (it holds the token: mode 0600), whole or not at all."""
    # fields left at None are left out: a plan without a control arm reads as before
    doc = plan.model_dump(mode="json", exclude_none=True)
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(handle, data)
        os.fsync(handle)
    finally:
        os.close(handle)
    os.replace(temp, path)


def read_plan(path: Path) -> RunPlan:
    """A plan file; DataError naming the file and the field when it is not one."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not JSON ({exc}); expected a plan from `taurec plan new`"
        ) from None
    try:
        return RunPlan.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise DataError(
            f"{path}: {where}: {first['msg']}; expected a plan from `taurec plan new`",
            field=where,
        ) from None
