"""Local runs are sealed runs too: `taurec run` writes a plan for what it plays into the
output folder and serves it, so its logs carry `mode: sealed` and a run register that the
evaluator scores against (a missing or damaged episode counts as a failure).

The plan lives at `<out>/.plans/<plan id>.json` (mode 0600; the folder starts with a dot,
so no log search picks it up). A resume reuses the plan of the same label and suite when
it holds every episode asked for; a new run of the same label into the same folder is
refused by the caller before it gets here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from taurec.catalog.errors import DataError
from taurec.clients.runner.plan import EpisodeSpec
from taurec.tasks.runs.plan import RunPlan, new_plan, read_plan, write_plan
from taurec.tasks.suite import Suite, portable_suite_spec

PLANS_DIR: Final = ".plans"


def find_plan(out: Path, label: str, suite: Suite) -> tuple[RunPlan, Path] | None:
    """The plan of (label, suite) in `out`, if a run wrote one (the newest)."""
    folder = out / PLANS_DIR
    found: list[tuple[RunPlan, Path]] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            plan = read_plan(path)
        except DataError:
            continue
        if plan.label == label and plan.suite.sha256 == suite.sha256():
            found.append((plan, path))
    return max(found, key=lambda f: f[0].created_at) if found else None


def local_plan(
    out: Path,
    label: str,
    suite: Suite,
    task_ids: Sequence[str],
    trials: int,
    specs: Sequence[EpisodeSpec],
    *,
    resume: bool,
    control: str | None = None,
) -> tuple[RunPlan, Path]:
    """The plan this run plays: on resume, the earlier one (DataError when it does not hold
    every episode asked for, or has another control arm); otherwise a new one, written
    under `out/.plans/`. `control`: a control arm's feedback mode (`trials` per arm)."""
    if resume:
        earlier = find_plan(out, label, suite)
        if earlier is not None:
            plan, path = earlier
            if plan.control != control:
                had = f"--with-control {plan.control}" if plan.control else "no --with-control"
                raise DataError(
                    f"--resume: the run's plan {path} was made with {had}; resume with the "
                    "options of the first run, or use another --log-dir"
                )
            slots = set(plan.slots())
            extra = [s for s in specs if (s.task_id, s.trial) not in slots]
            if extra:
                raise DataError(
                    f"--resume: the run's plan {path} does not hold {len(extra)} of the "
                    f"episodes asked for (e.g. task {extra[0].task_id} trial {extra[0].trial}); "
                    "resume with the tasks and trials of the first run, or use another --log-dir"
                )
            return earlier
    plan = new_plan(
        label=label,
        suite_id=suite.id,
        suite_spec=portable_suite_spec(suite.spec),
        suite_sha256=suite.sha256(),
        catalog_sha256=suite.catalog.sha256(),
        task_ids=task_ids,
        trials=trials,
        control=control,
    )
    path = out / PLANS_DIR / f"{plan.plan_id}.json"
    write_plan(plan, path)
    return plan, path
