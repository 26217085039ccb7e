"""What `taurec run` checks and prints around the run itself: the agent, transport and
backend names its options take, the tasks it selects, the options an agent refuses, the
command that resumes it, and the dry run's estimate. Light at import, as run.py is."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from taurec.clients.cli.startup import missing_key
from taurec.evaluator.text import plural
from taurec.tasks.ranking.rules import MAX_REJECTED

if TYPE_CHECKING:
    from taurec.clients.agents.registry import AgentProfile
    from taurec.clients.runner.log_failures import LogFailure
    from taurec.tasks.suite import Suite


class AgentName(StrEnum):  # every kind's registered names (a test keeps the two in step)
    SCRIPTED = "scripted"
    ORACLE = "oracle"  # on stream suites: BIEL's LLM oracle (needs --model)
    CEILING = "ceiling"  # stream suites: reads the utilities
    RANDOM = "random"
    POPULARITY = "popularity"
    CF = "cf"  # ranking tasks
    LLM = "llm"
    LEARNER = "learner"  # stream suites
    PROBE = "probe"  # stream suites: a check on the customer
    CRS = "crs"  # a text-only CRS over HTTP
    A2A = "a2a"  # an Agent2Agent-protocol agent


AGENT_HELP = (
    f"Which agent plays: {', '.join(AgentName)}, or one's own as module:Class or "
    "path/file.py:Class."
)


CrsUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--crs-url",
        help="--agent crs: the CRS's URL, called as given (iEvaLM / CRS Arena protocol; "
        "a CRS Arena server: http://HOST:PORT/).",
    ),
]


class CrsDialogue(StrEnum):
    TAUREC = "taurec"
    USERSIMCRS = "usersimcrs"


CrsDialogueOpt = Annotated[
    CrsDialogue,
    typer.Option(
        "--crs-dialogue",
        help="--agent crs: 'taurec' (the harness commits the title the user accepts) or "
        "'usersimcrs' (as UserSimCRS runs a CRS: nothing is committed, the dialogue goes on "
        "until the user stops or the turns run out; read SR, SRRR and RDL, not pass^k).",
    ),
]
AnswerRetriesOpt = Annotated[
    int,
    typer.Option(
        "--answer-retries",
        min=0,
        max=MAX_REJECTED,
        help="--agent llm on a ranking suite: replies with no readable answer that get a "
        "correction instead of scoring -1 (AgenticRec: 0); each one is logged.",
    ),
]
A2aUrlOpt = Annotated[
    str | None, typer.Option("--a2a-url", help="--agent a2a: the A2A agent's base URL.")
]


class TransportName(StrEnum):
    INPROC = "inproc"
    STDIO = "stdio"
    HTTP = "http"


class BackendName(StrEnum):  # the names in runner.backends.BACKENDS (a test keeps them in step)
    LOCAL = "local"
    RAY = "ray"


BackendOpt = Annotated[
    BackendName,
    typer.Option("--backend", help="local (this process) or ray (a Ray cluster; taurec\\[ray])."),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="--backend ray: the cluster's address (default: $RAY_ADDRESS, else a local Ray).",
    ),
]

FailFastOpt = Annotated[
    bool,
    typer.Option(
        "--fail-fast",
        help="Stop at the first agent error (the agent raised, timed out or returned "
        "without committing): episodes in flight are cancelled; --resume plays the rest.",
    ),
]


err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: object) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(str(message))}")
    raise typer.Exit(2)


def select_tasks(suite: Suite, tasks: str | None) -> list[str]:
    ids = [t.id for t in suite.tasks]
    if tasks is None:
        return ids
    wanted = [t.strip() for t in tasks.split(",") if t.strip()]
    unknown = [t for t in wanted if suite.get(t) is None]
    if unknown or not wanted:
        shown = ", ".join(ids) if len(ids) <= 20 else f"{', '.join(ids[:10])}, ..., {ids[-1]}"
        what = f"unknown task ids {', '.join(unknown)}" if unknown else "no task ids given"
        fail(f"--tasks: {what} in suite {suite.id!r}; valid ids: {shown}")
    return list(dict.fromkeys(wanted))


def resume_command(options: dict[str, object]) -> str:
    parts = ["taurec", "run"]
    for flag, value in options.items():
        if value is None or value is False:
            continue
        parts += [flag] if value is True else [flag, str(value)]
    return shlex.join([*parts, "--resume"])


def known_agent(name: str, kind: str) -> None:
    from taurec.clients.agents.registry import AgentUnavailable
    from taurec.clients.agents.registry import agents_of as agents_of_kind

    try:
        known = agents_of_kind(kind)
    except AgentUnavailable as exc:
        fail(exc)
    if name not in known:
        fail(
            f"--agent: unknown agent {name!r} for {kind!r} tasks; expected one of "
            f"{', '.join(known)}, or one's own as module:Class or path/file.py:Class"
        )


def check_credentials(
    model: str | None,
    simulator_model: str | None = None,
    nlu_model: str | None = None,
    nlg_model: str | None = None,
) -> None:
    """Stop (exit 2) before the first episode when litellm lacks a variable a named model
    (of --model, --simulator-model, --nlu-model, --nlg-model; None: not in use) needs,
    instead of failing every episode on it."""
    models = {"--model": model, "--simulator-model": simulator_model}
    models |= {"--nlu-model": nlu_model, "--nlg-model": nlg_model}
    if (message := missing_key(models)) is not None:
        fail(message)


def saved(n: int) -> str:
    return f"{plural(n, 'finished episode')} {'is' if n == 1 else 'are'} saved"


def check_transport(
    transport: TransportName,
    url: str | None,
    seed: int | None,
    *,
    server_options: bool,
    stream_options: bool,
) -> None:
    """The options that depend on who serves: this run (inproc, stdio) or an http server."""
    http = transport is TransportName.HTTP
    if http and not url:
        fail("--transport http needs --url (e.g. http://127.0.0.1:8000/mcp)")
    if url and not http:
        fail("--url applies to --transport http only")
    if http and server_options:
        fail(
            "--simulator, --nlu-model and --nlg-model apply to a server the run starts; an "
            "http server has its own"
        )
    if http and stream_options:
        fail(
            "--feedback, --rules and --shuffle-order apply to a server the run starts; an "
            "http server has its own (taurec serve takes them)"
        )
    if seed is not None and not http:
        fail(
            "--seed: a run this command serves is sealed, so each episode's seed is fixed by "
            "its task and trial; omit --seed (it applies only to --transport http, against a "
            "server without run plans)"
        )


def given_options(**values: object) -> dict[str, object]:
    """The agent options that were given (AgentSettings.options), by name."""
    return {k: v for k, v in values.items() if v}


def check_agent_options(name: str, given: dict[str, object], kind: str) -> None:
    """Each agent option (--crs-url, --context, ...) only for an agent whose profile
    requires or accepts it on this kind of suite."""
    from taurec.clients.agents.registry import AgentUnavailable
    from taurec.clients.agents.registry import agents_of as agents_of_kind

    try:
        entry = agents_of_kind(kind).get(name)
    except AgentUnavailable:
        entry = None
    known = (*entry.profile.requires, *entry.profile.accepts) if entry is not None else ()
    for option in given:
        if option not in known:
            fail(f"--{option.replace('_', '-')} does not apply to --agent {name} on a {kind} suite")


def check_model_options(name: str, kind: str, model: str | None, tuned: object) -> None:
    """--model for the agents that need one, and --model, --temperature and
    --reasoning-effort (`tuned`) for those only (one's own agents take none)."""
    from taurec.clients.agents.registry import AgentUnavailable
    from taurec.clients.agents.registry import agents_of as agents_of_kind

    try:
        known = agents_of_kind(kind)
    except AgentUnavailable:
        known = {}
    entry = known.get(name)
    if entry is not None and entry.profile.needs_model and not model:
        fail(f"--agent {name} needs --model (a litellm model string, e.g. openai/gpt-4o, or mock)")
    if (entry is None or not entry.profile.needs_model) and (model or tuned):
        takers = " or ".join(n for n, e in known.items() if e.profile.needs_model)
        fail(f"--model, --temperature and --reasoning-effort apply to --agent {takers} only")


def named_cause(failures: list[LogFailure]) -> str:
    """The first cause that says what went wrong (rather than only what is missing)."""
    named = [f.cause for f in failures if "could not write" in f.cause]
    return (named or [failures[0].cause])[0]


def print_dry_run(
    name: str,
    profile: AgentProfile | None,
    planned: int,
    todo: Sequence[object],
    done: object,
    model: str | None,
    simulator_model: str | None,
) -> None:
    from taurec.clients.runner.estimate import estimate

    console = Console(highlight=False)
    console.print(
        f"dry run: agent {escape(name)}, {plural(planned, 'episode')} planned, {len(todo)} to play"
    )
    if done is not None:
        console.print(f"(resume: {planned - len(todo)} already finished)")
    if profile is None:
        console.print("no estimate: the cost of one's own agent is not known in advance")
        return
    for line in estimate(profile, len(todo), agent_model=model, user_model=simulator_model).lines():
        console.print(line)
