"""`run_agent()`: the Python entry point of the harness, as `taurec run` is the command.

It keeps the command's rules (runner/session.py): a folder that already holds logs of the
same agent on the same suite is refused unless `resume=True`; a resume sets unfinished
logs aside and plays only what is missing; progress is drawn on stderr (a bar on a
terminal) and the evaluator's table is printed on stdout at the end, then on stderr how
many episodes ended in an agent error with the first one's traceback (`quiet=True` prints
none of it). `fail_fast=True` stops at the first agent error (`report.failed_fast`), as
`taurec run --fail-fast` does; `resume=True` plays the rest. The run is sealed (a plan
under `out/.plans/`) when it starts its own server.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from taurec.clients.agents.base import Agent, AgentSettings
from taurec.clients.agents.contestants.custom import custom_identity
from taurec.clients.runner.agent_errors import print_agent_errors
from taurec.clients.runner.connection import Connection, Transport
from taurec.clients.runner.runner import Runner, RunReport
from taurec.clients.runner.sealing import local_plan
from taurec.clients.runner.session import (
    PYTHON_NAMES,
    RunRefused,
    play,
    set_aside_unfinished,
    start,
    table,
)
from taurec.evaluator.logs import Resolver
from taurec.server.run_facts import default_run_label
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite, portable_suite_spec


def identify(agent: Agent) -> None:
    """Give an agent that reports no identity (`agent_info`) one for its log headers: kind
    "custom", its class and the digest of the file that defines it (as `taurec run
    --agent file.py:Class` records them)."""
    if isinstance(getattr(agent, "agent_info", None), dict):
        return
    cls = type(agent)
    module = sys.modules.get(cls.__module__)
    origin = f"{cls.__module__}:{cls.__qualname__}"
    if module is not None:
        with contextlib.suppress(AttributeError):
            agent.agent_info = custom_identity(None, origin, module, AgentSettings())  # type: ignore[attr-defined]


def run_agent(
    agent: Agent,
    *,
    suite: str = "builtin",
    tasks: Sequence[str] | None = None,
    trials: int = 1,
    out: str | Path = "logs",
    transport: Transport = "inproc",
    url: str | None = None,
    concurrency: int = 8,
    seed: int | None = None,
    resume: bool = False,
    quiet: bool = False,
    fail_fast: bool = False,
) -> RunReport:
    """Play `agent` on a suite's tasks (all, or `tasks`) x `trials`, logging under `out`,
    then print the evaluator's table. Raises RunRefused (a ValueError) when `out` is not
    a folder or already holds this agent's logs on this suite and `resume` is off. Each
    result carries its `score`; `evaluator score OUT` scores the folder again. An `agent`
    without a `label` string or an `async def run(self, episode)` is a RunRefused too."""
    _check_agent(agent)
    out = Path(out)
    identify(agent)
    stderr = Console(stderr=True, highlight=False, soft_wrap=True, quiet=quiet)
    stdout = Console(quiet=quiet)
    loaded = load_suite(suite)
    task_ids = list(tasks) if tasks is not None else [t.id for t in loaded.tasks]
    run = start(
        out, loaded.id, agent.label, task_ids, trials, resume=resume, names=PYTHON_NAMES,
        sealed=None if transport == "http" else loaded,  # a server this run starts: sealed
    )  # fmt: skip
    if resume:
        set_aside_unfinished(out, run, stderr)
    run_label = default_run_label()
    settings = ServerSettings(
        suite=suite, log_dir=out, run_label=run_label, agent_label=agent.label
    )
    if transport != "http":  # the server this run starts serves a sealed plan
        sealed, plan_path = local_plan(
            out, agent.label, loaded, task_ids, trials, run.specs, resume=resume
        )
        run_label = sealed.run_id
        settings = settings.model_copy(update={"plans": (plan_path.resolve(),)})
    resolver = Resolver(allowed_specs=frozenset({portable_suite_spec(loaded.spec)}))
    runner = Runner(
        agent,
        Connection(transport, settings, url),
        out,
        run_label,
        concurrency=concurrency,
        seed=seed,
        resolver=resolver,
        handle_signals=False,
        fail_fast=fail_fast,
    )
    report = play(runner, run.todo, stderr) if run.todo else RunReport()
    if report.failure:
        stderr.print(f"[red]error:[/red] the run failed: {escape(report.failure)}")
    elif not report.interrupted and not report.failed_fast:
        table(out, report, resolver, loaded, stdout, stderr, agent.label)
    print_agent_errors(report, stderr)
    return report


def _check_agent(agent: object) -> None:
    """RunRefused, in one line, for an object that is not an agent (taurec.clients.agents.base)."""
    name = type(agent).__name__
    try:
        label = getattr(agent, "label", None)
    except Exception as exc:  # a property that raises: as good as none
        label, why = None, f" (reading it raised {type(exc).__name__})"
    else:
        why = ""
    if not isinstance(label, str) or not label:
        raise RunRefused(
            f"{name} has no label{why}: an agent needs a `label` attribute, a non-empty string "
            'naming it in logs and reports (e.g. `label = "my-agent"`)'
        )
    if not inspect.iscoroutinefunction(getattr(agent, "run", None)):
        raise RunRefused(f"{name} has no `async def run(self, episode)`: an agent needs one")
