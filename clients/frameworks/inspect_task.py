"""A taurec suite as an Inspect AI task: `inspect eval taurec/taurec_suite -T suite=...`.

    inspect eval taurec/taurec_suite -T suite=ranking:builtin --model openai/gpt-4o-mini
    inspect eval clients/frameworks/inspect_task.py@taurec_suite -T suite=builtin --limit 2

    from inspect_ai import eval
    eval(taurec_suite(suite="ranking:builtin", limit=2), model="mockllm/model")

One sample per task of the suite (id: the task id); epoch e plays trial e - 1, so
`--epochs k` gives the trials pass^k reads. The solver (`taurec_agent`) starts the
episode itself, through MCP, on a `taurec serve` subprocess of its own (an MCP session of
the harness's own, so each model call can go to the log in a request's `_meta`), puts the server's opening in place of the sample's input (the
opening is the server's to make: a dialogue's depends on the trial's seed), and lets the
model act with the episode's tools until the episode ends (see inspect_episode.py). The
scorer (`taurec_score`) is the evaluator's `score_file` on the episode's own taurec log:
the value is `evaluator score`'s reward, the metadata its metrics, whether it passed,
why it ended and the log's path (also in the sample's metadata, `taurec_log`).

Why a solver that starts the episode rather than a bound server: a server started with
`--task` serves one episode whose tools need no episode_id, but only dialogue servers
have that mode (ranking and stream tools always take the id). Starting the episode in the
solver and filling the id into every tool works for every kind, and is how every other
taurec harness runs an episode, so the logs are alike.

The taurec logs go to `log_dir` (default logs/taurec) under `run_label`; Inspect's own
log goes where Inspect is told (--log-dir, INSPECT_LOG_DIR). Installed with taurec,
Inspect finds this task through the `inspect_ai` entry point (inspect_registry.py).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    execute_tools,
    get_model,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef
from pydantic import ValidationError

from taurec.catalog.errors import DataError
from taurec.catalog.store import Catalog
from taurec.clients.agents.llm import HARNESS_NOTE
from taurec.clients.agents.outages import outage_cause, outage_detail
from taurec.clients.agents.ranking.llm import SYSTEM_PROMPT as RANKING_PROMPT
from taurec.clients.frameworks.inspect_episode import McpEpisode, served
from taurec.evaluator.defaults import DEFAULT_RULES
from taurec.evaluator.logs import score_file
from taurec.evaluator.recommendation.rules import RULES
from taurec.evaluator.resolver import Resolver
from taurec.policies.document import policy_text
from taurec.server.run_facts import default_run_label
from taurec.server.settings import ServerSettings
from taurec.tasks.runs.plan import label_problem
from taurec.tasks.suite import Suite, load_suite

#: Model calls one episode may make before the harness ends it (agent_error).
MAX_STEPS: Final = 64
#: The sample metadata key that holds the path of the episode's taurec log.
LOG_KEY: Final = "taurec_log"
_NOT_IN_LABEL = re.compile(r"[^A-Za-z0-9_.@+:/=-]")

STREAM_NOTE: Final = """\
You recommend products to one customer over a stream of shopping episodes.

## How this harness runs the stream

- The stream has already started (skip start_stream): its first episode is the first
  user message below. The episode id is filled in for you; no tool takes it.
- In each episode, ask the customer questions with ask_question (within the question
  budget), then recommend one item of the episode's choice set with recommend_item; its
  result carries the customer's feedback. Then call next_episode.
- Act with tool calls only: there is no one to read plain text.
- The stream ends with the last episode's recommendation.
"""


def _function_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    """The offered tools as OpenAI-style function tools (for a prompt that lists them)."""
    defined = [ToolDef(tool) for tool in tools]
    return [
        {
            "type": "function",
            "function": {
                "name": d.name,
                "description": d.description,
                "parameters": d.parameters.model_dump(exclude_none=True),
            },
        }
        for d in defined
    ]


def _ranking_prompt(episode: McpEpisode, tools: list[Tool]) -> str:
    return RANKING_PROMPT.format(tools_schema=json.dumps(_function_tools(tools)))


def _dialogue_prompt(episode: McpEpisode, tools: list[Tool]) -> str:
    turns = episode.max_turns
    budget = f"you have {turns} messages in all" if turns else "the budget is limited"
    return policy_text() + "\n\n" + HARNESS_NOTE.format(budget=budget)


def _stream_prompt(episode: McpEpisode, tools: list[Tool]) -> str:
    return STREAM_NOTE


#: The system prompt of each task kind: the one taurec's own LLM contestants get.
SYSTEM_PROMPTS: Final[dict[str, Callable[[McpEpisode, list[Tool]], str]]] = {
    "ranking": _ranking_prompt,
    "recommendation": _dialogue_prompt,
    "stream": _stream_prompt,
}


def agent_label(model: object, label: str | None = None) -> str:
    """The taurec agent label of the episodes: `label`, or 'inspect:<model>'."""
    return label or ("inspect:" + _NOT_IN_LABEL.sub("-", str(model)))[:200]


def chosen_tasks(suite: Suite, tasks: str | list[str] | None, limit: int | None) -> list[Any]:
    """The suite's tasks named by `tasks` (ids, a list or comma-separated; None: all, in
    suite order), the first `limit` of them. Raises ValueError naming a bad id or limit."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit: expected a whole number of tasks, at least 1; got {limit!r}")
    if tasks is None:
        chosen = list(suite.tasks)
    else:
        ids = tasks.split(",") if isinstance(tasks, str) else [str(t) for t in tasks]
        ids = [i.strip() for i in ids if i.strip()]
        unknown = [i for i in ids if suite.get(i) is None]
        if unknown or not ids:
            some = ", ".join(t.id for t in suite.tasks[:3])
            raise ValueError(
                f"tasks: {', '.join(map(repr, unknown)) or 'none given'} not in suite "
                f"{suite.id!r}; expected task ids such as {some}"
            )
        chosen = [suite.get(i) for i in ids]
    return chosen[:limit]


def server_settings(**fields: Any) -> ServerSettings:
    """ServerSettings, or a one-line ValueError naming the field that is wrong."""
    try:
        return ServerSettings(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "settings"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ValueError(f"taurec server settings: {where}: {message}") from None


@task
def taurec_suite(
    suite: str = "builtin",
    tasks: str | list[str] | None = None,
    limit: int | None = None,
    log_dir: str = "logs/taurec",
    run_label: str | None = None,
    label: str | None = None,
    simulator: str = "rule",
    simulator_model: str | None = None,
    patience: int | None = None,
    catalog: str | None = None,
    rules: str | None = None,
    max_steps: int = MAX_STEPS,
    system_prompt: str | None = None,
) -> Task:
    """The tasks of a taurec suite ('builtin', 'ranking:builtin', 'stream:builtin', a
    suite folder, ...; its kind is the suite's), each sample one episode on a taurec
    server of its own, scored by taurec's evaluator.

    Args:
      suite: The suite spec, as `taurec run --suite` takes it.
      tasks: Task ids to play (a list, or comma-separated); default every task.
      limit: Play only the first `limit` of them (Inspect's --limit works too).
      log_dir: Where the taurec episode logs go (under `run_label`).
      run_label: The taurec run's name (default run-<UTC time>-<random>).
      label: The agent label in the taurec logs (default 'inspect:<model>').
      simulator: The simulated user ('rule', 'abus', 'llm-sp', ...; dialogue suites).
      simulator_model: The LLM user's litellm model (the LLM simulators).
      patience: The rule-based user's patience.
      catalog: A catalog file to use instead of the suite's own.
      rules: The rules profile the evaluator scores by (default taurec's).
      max_steps: Model calls per episode before the harness ends it (agent_error).
      system_prompt: Replaces the kind's system prompt.
    """
    try:
        loaded = load_suite(suite)
    except DataError as exc:
        raise ValueError(f"suite: {exc}") from None
    if catalog is not None:
        try:
            Catalog.load(catalog)
        except DataError as exc:
            raise ValueError(f"catalog: {exc}") from None
    settings = server_settings(
        suite=loaded.spec,
        catalog=catalog,
        log_dir=Path(log_dir).resolve(),  # the server subprocess and the scorer agree
        run_label=run_label or default_run_label(),
        simulator=simulator,
        simulator_model=simulator_model,
        patience=patience,
    )
    if max_steps < 1:
        raise ValueError(f"max_steps: expected at least 1 model call, got {max_steps}")
    if label is not None and (problem := label_problem(label)) is not None:
        raise ValueError(f"label: {problem}")
    if rules is not None and rules not in RULES:
        raise ValueError(f"rules: expected one of {', '.join(RULES)}; got {rules!r}")
    samples = [
        Sample(
            id=t.id,
            input=f"taurec {loaded.kind} task {t.id}: the server gives the opening when the "
            "episode starts",
            metadata={"kind": loaded.kind, "suite": loaded.spec, "task_id": t.id},
        )
        for t in chosen_tasks(loaded, tasks, limit)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=loaded.id),
        solver=taurec_agent(
            server=settings.model_dump(mode="json", exclude_defaults=True),
            max_steps=max_steps,
            label=label,
            system_prompt=system_prompt,
        ),
        scorer=taurec_score(suite=loaded.spec, catalog=catalog, rules=rules),
        metadata={"taurec_suite": loaded.spec, "taurec_kind": loaded.kind},
    )


@solver
def taurec_agent(
    server: dict[str, Any],
    max_steps: int = MAX_STEPS,
    label: str | None = None,
    system_prompt: str | None = None,
) -> Solver:
    """Play the sample's task (trial: epoch - 1) on a `taurec serve` subprocess started
    with `server` (ServerSettings fields): start the episode, then one model call per
    step (its tool calls run through MCP; a reply without any is acted on as
    McpEpisode.reply says) until the episode ends. An episode still open after
    `max_steps` calls, or when the model or a limit stops the sample, is ended as
    agent_error (an outage of the model's provider: infra_error with its cause), so its
    log always has an end."""
    settings = server_settings(**server)
    suite = load_suite(settings.suite)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task_ = suite.get(str(state.sample_id))
        if task_ is None:
            raise ValueError(f"sample {state.sample_id!r} is not a task of {suite.id!r}")
        async with served(settings) as session:
            episode = await McpEpisode.start(
                session,
                settings,
                kind=suite.kind,
                task=task_,
                trial=state.epoch - 1,
                label=agent_label(state.model, label),
                model=str(state.model),
            )
            state.metadata.update(episode.links())
            tools = episode.offered()
            prompt = system_prompt or SYSTEM_PROMPTS[suite.kind](episode, tools)
            state.messages = [
                ChatMessageSystem(content=prompt),
                ChatMessageUser(content=episode.opening),
            ]
            state.tools = tools
            try:
                await _play(state, episode, tools, max_steps)
            except BaseException as exc:  # a limit, an error, a cancel: the log still ends
                if not episode.ended:
                    await _end_stopped(episode, exc)
                raise
        return state

    return solve


async def _end_stopped(episode: McpEpisode, exc: BaseException) -> None:
    """End an episode the sample stopped: an outage (the model's provider or the connection
    to it failed) as infra_error with its cause, anything else as agent_error."""
    cause = outage_cause(exc)
    if cause is not None:
        await episode.abort(outage_detail(cause), reason="infra_error")
        return
    why = f"{type(exc).__name__}: {exc}"[:500]
    await episode.abort(f"the sample stopped before the episode ended ({why})")


async def _play(state: TaskState, episode: McpEpisode, tools: list[Tool], max_steps: int) -> None:
    model = get_model()
    for _ in range(max_steps):
        started = time.perf_counter()
        state.output = await model.generate(state.messages, tools)
        _record(episode, state, time.perf_counter() - started)
        state.messages.append(state.output.message)
        if state.output.message.tool_calls:
            executed = await execute_tools(state.messages, tools)
            state.messages.extend(executed.messages)
        else:
            answer = await episode.reply(state.output.completion)
            if not episode.ended:
                state.messages.append(ChatMessageUser(content=answer))
        if episode.ended:
            return
    await episode.abort(f"the harness's step limit ({max_steps} model calls) was reached")


def _record(episode: McpEpisode, state: TaskState, took: float) -> None:
    """The model call just made, for the episode's log (sent with its next tool call)."""
    usage = state.output.usage
    episode.record_model_call(
        messages=[m.model_dump(mode="json", exclude_none=True) for m in state.messages],
        output=state.output.message.model_dump(mode="json", exclude_none=True),
        usage=None
        if usage is None
        else {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens},
        latency_ms=took * 1000,
    )


@metric
def passed() -> Metric:
    """The share of episodes that passed (the evaluator's `passed`)."""

    def share(scores: list[SampleScore]) -> float:
        if not scores:
            return 0.0
        return sum(bool((s.score.metadata or {}).get("passed")) for s in scores) / len(scores)

    return share


@scorer(metrics=[mean(), stderr(), passed()])
def taurec_score(suite: str, catalog: str | None = None, rules: str | None = None) -> Any:
    """taurec's evaluator on the sample's episode log (`evaluator score`'s own figures):
    value = the episode's reward; metadata = its metrics, passed, end reason and log."""
    resolver = Resolver(suite=suite, catalog=catalog, rules=rules or DEFAULT_RULES)

    async def score(state: TaskState, target: Target) -> Score:
        log = state.metadata.get(LOG_KEY)
        if not log:
            raise ValueError(
                f"taurec_score: sample {state.sample_id!r} has no taurec episode log "
                f"(metadata {LOG_KEY!r}); play it with the taurec_agent solver"
            )
        result = score_file(Path(log), resolver)
        return Score(
            value=float(result.reward),
            answer=result.item_id or result.outcome,
            explanation=f"ended: {result.end_reason}; taurec log: {log}",
            metadata={
                "log": str(log),
                "passed": bool(result.passed),
                "end_reason": result.end_reason,
                "metrics": dict(result.metrics),
                "kind": result.kind,
                "trial": result.trial,
                "problems": list(result.problems),
                "verification": result.verification,
            },
        )

    return score
