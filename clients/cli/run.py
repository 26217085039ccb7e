"""`taurec run`: play an agent over a suite's tasks x trials and print the evaluator table.

With no options: the scripted agent, the built-in suite, the rule-based user, 4 trials,
logs in `logs/`, the server in process. No API key, no network. Exit codes: 0 done,
1 the run failed (server unreachable, the provider refused the key or model, episode logs
it could not write, every episode ended in an agent or infrastructure error, or
--fail-fast stopped it at an agent error), 2 bad options or input (including a model whose
API key is not set), 130 interrupted. Agent errors are counted on stderr after the table,
with the first one's traceback (run_end.py).

`--agent` takes a registered name or one's own agent as `module:Class` or `path/file.py:Class`
(see agents/custom.py): the same progress, resume, sealing and table for both.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from taurec.clients.cli import stream_options as streams
from taurec.clients.cli.run_options import (
    AGENT_HELP,
    A2aUrlOpt,
    AgentName,
    AnswerRetriesOpt,
    BackendName,
    BackendOpt,
    CrsDialogue,
    CrsDialogueOpt,
    CrsUrlOpt,
    FailFastOpt,
    RayAddressOpt,
    TransportName,
    check_agent_options,
    check_credentials,
    check_model_options,
    check_transport,
    err,
    fail,
    given_options,
    known_agent,
    print_dry_run,
    resume_command,
    saved,
    select_tasks,
)
from taurec.clients.cli.simulator_options import (
    AbusSchemaOpt,
    AbusSlotValues,
    AbusSlotValuesOpt,
    AgendaDialoguesOpt,
    NlgModelOpt,
    SimulatorModelOpt,
    SimulatorName,
    SimulatorOpt,
    simulator_files_problem,
)
from taurec.clients.cli.suite_option import SuiteOpt
from taurec.evaluator.text import plural
from taurec.server.defaults import AUTH_TOKEN_ENV

if TYPE_CHECKING:
    from taurec.clients.runner.log_failures import LogFailure

# `taurec run --help` loads this module: the agents, the runner, the server and the
# catalog are imported in the command's body.


def run(
    agent: Annotated[str, typer.Option("--agent", help=AGENT_HELP)] = AgentName.SCRIPTED.value,
    suite: SuiteOpt = "builtin",
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials per task (k).")] = 4,
    out: Annotated[
        Path,
        typer.Option(
            "--log-dir", "--out", help="Log folder (scored at the end); --out is the same."
        ),
    ] = Path("logs"),
    tasks: Annotated[
        str | None, typer.Option("--tasks", help="Comma-separated task ids (default: all).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Episodes played at once.")
    ] = 8,
    transport: Annotated[
        TransportName,
        typer.Option("--transport", help="inproc (fastest), stdio (taurec serve), or http."),
    ] = TransportName.INPROC,
    url: Annotated[
        str | None, typer.Option("--url", help="--transport http: the server's /mcp URL.")
    ] = None,
    auth_token: Annotated[
        str | None,
        typer.Option(
            "--auth-token",
            envvar=AUTH_TOKEN_ENV,
            show_envvar=True,
            help="--transport http: the server's bearer token (taurec serve --auth-token).",
        ),
    ] = None,
    simulator: SimulatorOpt = SimulatorName.RULE,
    simulator_model: SimulatorModelOpt = None,
    agenda_dialogues: AgendaDialoguesOpt = None,
    abus_schema: AbusSchemaOpt = None,
    abus_slot_values: AbusSlotValuesOpt = AbusSlotValues.HISTORY,
    nlg_model: NlgModelOpt = None,
    nlu_model: Annotated[
        str | None,
        typer.Option(
            "--nlu-model",
            help="Read agent messages' dialogue acts with this litellm model (few-shot, "
            "IARD intents) instead of the deterministic NLU.",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="--agent llm (and oracle on streams): litellm model."),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option("--temperature", min=0, max=2, help="--agent llm.")
    ] = None,
    reasoning_effort: Annotated[
        str | None, typer.Option("--reasoning-effort", help="--agent llm (e.g. low, high).")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Skip finished episodes; rerun unfinished ones.")
    ] = False,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Run seed (default: per task and trial).")
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", help="Agent label in logs and reports.")
    ] = None,
    episode_timeout: Annotated[
        float,
        typer.Option(
            "--episode-timeout", min=1, help="Seconds before an episode is an agent_error."
        ),
    ] = 900.0,
    fail_fast: FailFastOpt = False,
    crs_url: CrsUrlOpt = None,
    crs_dialogue: CrsDialogueOpt = CrsDialogue.TAUREC,
    a2a_url: A2aUrlOpt = None,
    answer_retries: AnswerRetriesOpt = 0,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and an estimate; run nothing.")
    ] = False,
    backend: BackendOpt = BackendName.LOCAL,
    ray_address: RayAddressOpt = None,
    feedback: streams.FeedbackOpt = streams.FeedbackName.TASK,
    rules: streams.RulesOpt = streams.RulesName.BIEL,
    shuffle_order: streams.ShuffleOrderOpt = False,
    customer_knows: streams.CustomerKnowsOpt = streams.CustomerKnowsName.TASTES,
    with_control: streams.WithControlOpt = None,
    context: streams.ContextOpt = None,
    planning: streams.PlanningOpt = None,
    planning_interval: streams.PlanningIntervalOpt = None,
    confidence: streams.ConfidenceOpt = False,
) -> None:
    """Run an agent over tasks x trials through the MCP server, then score the logs."""
    if agent == "llm" and not dry_run:  # its key before the heavy imports; all keys below
        check_credentials(model)
    from pydantic import ValidationError

    from taurec.catalog.errors import DataError
    from taurec.clients.agents.base import AgentSettings
    from taurec.clients.agents.contestants.custom import is_custom, make_custom_agent
    from taurec.clients.agents.registry import AgentUnavailable, default_label, make_agent
    from taurec.clients.agents.registry import agents_of as agents_of_kind
    from taurec.clients.cli.run_end import finish, stop_if_failed_fast
    from taurec.clients.runner.backends import BackendError, RunJob, make_backend
    from taurec.clients.runner.connection import Connection
    from taurec.clients.runner.log_failures import log_failures
    from taurec.clients.runner.progress import RunProgress
    from taurec.clients.runner.sealing import local_plan
    from taurec.clients.runner.session import (
        RunRefused,
        check_out,
        set_aside_unfinished,
        start,
        table,
    )
    from taurec.evaluator.logs import Resolver
    from taurec.server.run_facts import default_run_label
    from taurec.server.settings import ServerSettings
    from taurec.tasks.errors import from_validation_error
    from taurec.tasks.suite import load_suite, portable_suite_spec

    name = agent
    custom = is_custom(name)
    stream_run = streams.stream_run(feedback, rules, shuffle_order, customer_knows, with_control)
    if isinstance(stream_run, str):
        fail(stream_run)
    protocol = stream_run.protocol
    check_transport(
        transport,
        url,
        seed,
        server_options=simulator is not SimulatorName.RULE or bool(nlu_model or nlg_model),
        stream_options=protocol != type(protocol)(),
    )
    try:
        check_out(out)
    except RunRefused as exc:
        fail(exc)
    dialogue = crs_dialogue.value if crs_dialogue is not CrsDialogue.TAUREC else None
    given = given_options(
        crs_url=crs_url, crs_dialogue=dialogue, a2a_url=a2a_url, answer_retries=answer_retries
    )
    given |= streams.agent_stream_options(context, planning, planning_interval, confidence)
    settings = AgentSettings(
        label=label,
        seed=seed or 0,
        suite=suite,
        model=model,
        temperature=temperature,
        reasoning_effort=reasoning_effort,
        options=given,
    )
    run_label = default_run_label()
    try:
        server = ServerSettings(
            suite=suite,
            log_dir=out,
            run_label=run_label,
            simulator=simulator.value,
            simulator_model=simulator_model,
            agenda_dialogues=agenda_dialogues,
            abus_schema=abus_schema,
            abus_slot_values=abus_slot_values.value,
            nlg_model=nlg_model,
            nlu_model=nlu_model,
            stream_protocol=protocol,
            report_acceptance=name == "crs",  # the harness commits for the CRS
        )
    except ValidationError as exc:  # the flag, where a field has one on this command
        fail(simulator.model_problem(simulator_model) or from_validation_error(exc))
    if (problem := simulator_files_problem(server)) is not None:
        fail(problem)
    try:
        loaded = load_suite(suite)
    except DataError as exc:
        fail(exc)
    task_ids = select_tasks(loaded, tasks)
    if (problem := streams.stream_options_problem(loaded.kind, stream_run, name)) is not None:
        fail(problem)
    if not custom:
        known_agent(name, loaded.kind)
    check_agent_options(name, given, loaded.kind)
    check_model_options(name, loaded.kind, model, temperature is not None or reasoning_effort)
    if backend is BackendName.RAY and transport is TransportName.HTTP:
        fail(
            "--backend ray plays each episode against a server on its worker; use "
            "--transport inproc or stdio (an http server is reached with --backend local)"
        )
    try:
        the_backend = make_backend(backend.value, ray_address)
    except BackendError as exc:
        fail(exc)
    the_agent = None
    if not dry_run:
        sim_model = simulator_model if simulator.calls_an_llm else None
        check_credentials(model, sim_model, nlu_model, nlg_model)
        try:
            the_agent = (
                make_custom_agent(name, settings)
                if custom
                else make_agent(name, settings, loaded.kind)
            )
        except AgentUnavailable as exc:
            fail(exc)
    # the agent's own label (a factory may derive it); a dry run makes no agent
    the_label = the_agent.label if the_agent is not None else default_label(name, settings)
    server = server.model_copy(update={"agent_label": the_label})
    if stream_run.control is not None and transport is TransportName.HTTP:
        fail("--with-control plays its arms under its own sealed plan: use inproc or stdio")
    try:
        started = start(
            out, loaded.id, the_label, task_ids, stream_run.trials(trials),
            resume=resume, refuse_mixing=not dry_run,
            protocols=stream_run.protocols() if loaded.kind == "stream" else None,
            sealed=None if transport is TransportName.HTTP else loaded,
        )  # fmt: skip
    except RunRefused as exc:
        fail(exc)
    specs, todo, done = started.specs, started.todo, started.done
    if the_agent is None:  # a dry run
        profile = None if custom else agents_of_kind(loaded.kind)[name].profile
        print_dry_run(
            name, profile, len(specs), todo, done if resume else None, model, simulator_model
        )
        return
    if resume:
        set_aside_unfinished(out, started, err)
    plan_path = None
    if transport is not TransportName.HTTP:  # a server this run starts serves a sealed plan
        try:
            sealed, plan_path = local_plan(
                out, the_label, loaded, task_ids, trials, specs, resume=resume,
                control=stream_run.control,
            )  # fmt: skip
        except (DataError, OSError) as exc:
            fail(exc)
        run_label = sealed.run_id
        server = server.model_copy(update={"plans": (plan_path.resolve(),)})
    try:
        # the token applies to http only (the variable may be set for other commands too)
        token = auth_token if transport is TransportName.HTTP else None
        connection = Connection(transport.value, server, url, auth_token=token)
    except ValueError as exc:
        fail(exc)
    resolver = Resolver(allowed_specs=frozenset({portable_suite_spec(loaded.spec)}))
    report = None
    unwritten: list[LogFailure] = []
    options = {
        "--agent": name, "--suite": suite, "--trials": trials, "--log-dir": out,
        "--tasks": tasks, "--concurrency": concurrency,
        "--transport": transport.value if transport is not TransportName.INPROC else None,
        "--url": url, "--simulator": simulator.value if simulator is not SimulatorName.RULE else None,
        "--simulator-model": simulator_model, "--agenda-dialogues": agenda_dialogues,
        "--abus-schema": abus_schema, "--nlu-model": nlu_model, "--nlg-model": nlg_model,
        "--abus-slot-values": None if abus_slot_values is AbusSlotValues.HISTORY else abus_slot_values.value, "--model": model, "--temperature": temperature,
        "--reasoning-effort": reasoning_effort, "--seed": seed, "--label": label,
        "--crs-url": crs_url, "--a2a-url": a2a_url,
        "--backend": backend.value if backend is not BackendName.LOCAL else None,
        "--ray-address": ray_address, "--episode-timeout": episode_timeout, "--fail-fast": fail_fast,
        **stream_run.flags,
        **{f"--{k.replace('_', '-')}": v for k, v in given.items() if k not in ("crs_url", "a2a_url")},
    }  # fmt: skip
    if todo:
        where = (
            f"{out / run_label}"
            if connection.writes_logs_to_out
            else f"{out} (written there by the server at {url})"
        )
        err.print(
            f"running [bold]{escape(the_label)}[/bold] on {loaded.id}: "
            f"{plural(len(todo), 'episode')} ({plural(len({s.task_id for s in todo}), 'task')}, "
            f"up to {plural(trials, 'trial')}), {connection.describe()}, {concurrency} at a time"
            f"{' on Ray' if backend is BackendName.RAY else ''}; logs in {where}"
        )
        job = RunJob(
            partial(make_custom_agent, name, settings)
            if custom
            else partial(make_agent, name, settings, loaded.kind),
            connection,
            out,
            run_label,
            concurrency=concurrency,
            seed=seed,
            episode_timeout=episode_timeout,
            resolver=resolver,
            plan_path=plan_path,
            fail_fast=fail_fast,
        )
        with RunProgress(len(todo), the_label, err) as progress:
            try:
                report = the_backend.run(job, todo, progress)
            except (BackendError, DataError) as exc:
                fail(exc)
        unwritten = log_failures(report.results)
        if report.failure:
            err.print(f"[red]error:[/red] the run failed: {escape(report.failure)}")
            if report.results:
                err.print(
                    f"{saved(len(report.results))} in {out}. Once the "
                    f"cause is fixed, resume with:\n  {escape(resume_command(options))}"
                )
            raise typer.Exit(1)
        if report.interrupted:
            err.print(
                f"[yellow]interrupted:[/yellow] {saved(len(report.results))} in {out}; "
                f"episodes in flight were cancelled. Resume with:\n  "
                f"{escape(resume_command(options))}"
            )
            raise typer.Exit(130)
        stop_if_failed_fast(report, out, options, err)
    else:
        err.print(f"nothing to play: every planned episode ({len(specs)}) is already in {out}")
    check, both = table(out, report, resolver, loaded, Console(), err, the_label)
    finish(report, check, unwritten, len(todo), out, options, both, err)


def main() -> None:
    typer.run(run)


if __name__ == "__main__":
    main()
