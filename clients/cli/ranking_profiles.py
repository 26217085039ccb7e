"""`taurec tasks profiles SUITE --model M`: write an LLM profile of each task's user into
the ranking suite's folder (profiles.jsonl), for `get_user_profile` to return instead of
the deterministic summary (see taurec.server.ranking.profiles).

Cached profiles are skipped, so a re-run makes no calls and an interrupted run resumes.
Exit codes: 0 = every task has a profile, 2 = the suite, the model or a call failed (what
was written so far is kept).
"""

from __future__ import annotations

from typing import Annotated

import typer

from taurec.clients.cli.output import console, fail

SuiteArg = Annotated[str, typer.Argument(help="A ranking suite: ranking:builtin or a folder.")]


def profiles_cmd(
    suite: SuiteArg,
    model: Annotated[str, typer.Option("--model", help="The litellm model string.")],
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Start profiles.jsonl afresh (e.g. for another model)."),
    ] = False,
    retries: Annotated[
        int, typer.Option("--retries", min=0, help="Retries of a failed call (litellm's).")
    ] = 3,
) -> None:
    """Write an LLM-written user profile per task (from the records before its target)."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.llm_runtime import load_litellm
    from taurec.clients.cli.startup import missing_key
    from taurec.server.ranking.app import ranking_data
    from taurec.server.ranking.profiles import suite_folder, write_profiles
    from taurec.tasks.suite import load_suite

    try:
        loaded = load_suite(suite)
    except DataError as exc:
        fail(exc)
    if loaded.kind != "ranking":
        fail(f"{suite}: a {loaded.kind} suite; expected a ranking suite")
    folder = suite_folder(loaded)
    if folder is None:
        fail(f"{suite}: not a suite folder; expected ranking:builtin or a folder")
    missing = missing_key({"--model": model})
    if missing:
        fail(missing)
    try:
        rd = ranking_data(loaded)
    except DataError as exc:
        fail(exc)
    litellm = load_litellm()
    out = console()

    def completion(**kwargs: object) -> object:
        return litellm.completion(**kwargs, num_retries=retries)

    def progress(done: int, total: int, task_id: str) -> None:
        if done % 10 == 0 or done == total:
            out.print(f"{done}/{total} tasks ({task_id})")

    try:
        summary = write_profiles(
            folder, loaded.tasks, rd.data, model, completion, replace=replace, progress=progress
        )
    except DataError as exc:
        fail(exc)
    except Exception as exc:  # a provider error: what was written is kept, a re-run resumes
        fail(
            f"{model}: {type(exc).__name__}: {exc} (profiles written so far are kept; re-run to resume)"
        )
    out.print(
        f"{summary.path}: {summary.written} profiles written, {summary.cached} already cached "
        f"({model})"
    )
