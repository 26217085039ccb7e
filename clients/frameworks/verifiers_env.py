"""taurec as a `verifiers` environment (PrimeIntellect's library for RL environments and
evals): `load_environment(kind)` returns a multi-turn environment whose rollouts are
taurec episodes, for `vf-eval`, `env.evaluate(...)` and trainers that drive verifiers
environments (prime-rl).

    env = load_environment("ranking")              # or "dialogue", "stream"; suite=...
    results = await env.evaluate(client=vf.OpenAIChatCompletionsClient(AsyncOpenAI(...)),
                                 model="...", num_examples=5)
    results["outputs"][0]["reward"], results["outputs"][0]["info"]["taurec"]["log"]

Each dataset row is one task of the suite (`info.task_id`). A rollout plays one episode
of it on a `TaurecEnv` sharing the environment's in-process server (verifiers_rollout.py):
the episode's opening is the user message (a dialogue's depends on the trial's simulated
user, so the row's prompt is a stand-in until the rollout starts), taurec's episode tools
are offered as tools, each model reply is one `env.step(text, message=...)`, and what the
episode returns comes back as tool messages (one per tool call) or a user message. The
reward is the evaluator's score of the episode's own log, the figure `evaluator score`
gives; the log's path is in the rollout's `info["taurec"]["log"]`.

Logs go to a temporary folder removed when the environment is torn down, unless
`log_dir` is given. Other keyword arguments are ServerSettings fields (simulator,
patience, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import verifiers as vf
from datasets import Dataset

from taurec.catalog.errors import DataError
from taurec.clients.envs.env import MAX_STEPS, TaurecEnv
from taurec.clients.envs.host import EnvHost
from taurec.clients.frameworks.verifiers_rollout import TaurecVerifiersEnv
from taurec.server.settings import ServerSettings
from taurec.tasks.shipped import BUILTIN_BY_KIND
from taurec.tasks.suite import Suite, load_suite

#: The kinds this environment speaks of, each with its suite kind and default suite.
KINDS: dict[str, tuple[str, str]] = {
    name: (kind, BUILTIN_BY_KIND[kind])
    for name, kind in (("ranking", "ranking"), ("dialogue", "recommendation"), ("stream", "stream"))
}
#: The ServerSettings a caller may set (the environment sets the suite, logs and label).
SETTINGS = frozenset(ServerSettings.model_fields) - {"suite", "log_dir", "agent_label"} | {"rules"}
#: The agent label verifiers episodes are logged under unless another is given.
LABEL = "verifiers"


def load_environment(
    kind: str = "ranking",
    suite: str | Suite | None = None,
    *,
    log_dir: str | Path | None = None,
    max_steps: int = MAX_STEPS,
    system_prompt: str | None = None,
    label: str = LABEL,
    **settings: Any,
) -> TaurecVerifiersEnv:
    """A verifiers environment over the tasks of `suite` (default: the builtin suite of
    `kind`). `max_steps` bounds the model replies of one episode (the episode is then
    ended as agent_error and scored); `system_prompt` replaces the server's contestant
    prompt (a dialogue's protocol and policy; ranking and stream openings say it all)."""
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}; got {kind!r}")
    if suite is not None and not isinstance(suite, str | Suite):
        raise ValueError(f"suite: expected a suite spec such as 'ranking:builtin', got {suite!r}")
    if max_steps < 1:
        raise ValueError(f"max_steps: expected at least 1 reply per episode, got {max_steps}")
    unknown = sorted(set(settings) - SETTINGS)
    if unknown:
        raise ValueError(
            f"unknown setting(s) {', '.join(unknown)}; expected ServerSettings fields: "
            + ", ".join(sorted(SETTINGS))
        )
    suite_kind, default = KINDS[kind]
    loaded = suite if isinstance(suite, Suite) else load_suite(suite or default)
    if loaded.kind != suite_kind:
        raise DataError(
            f"suite {loaded.spec!r} holds {loaded.kind} tasks; kind {kind!r} expects "
            f"{suite_kind} tasks (its builtin suite is {default!r})"
        )
    host = EnvHost(loaded, log_dir=log_dir, label=label, **settings)
    tools = [_tool(schema) for schema in TaurecEnv(host).tool_schemas()]
    rows = task_rows(loaded, kind)
    return TaurecVerifiersEnv(
        host,
        max_steps=max_steps,
        server_prompt=system_prompt is None,
        dataset=lambda: Dataset.from_list(rows),
        eval_dataset=lambda: Dataset.from_list(rows),
        system_prompt=system_prompt,
        tool_defs=tools,
        rubric=taurec_rubric(),
        max_turns=-1,  # the episode's own limit (max_steps) ends it, and is scored
    )


def task_rows(suite: Suite, kind: str) -> list[dict[str, Any]]:
    """One row per task: the task id in `info`, and a stand-in user message that the
    rollout replaces with the episode's opening."""
    return [
        {
            "prompt": [{"role": "user", "content": f"(the opening of taurec {kind} task {t.id})"}],
            "answer": "",
            "info": {"task_id": t.id},
        }
        for t in suite.tasks
    ]


def _tool(schema: dict[str, Any]) -> vf.Tool:
    """An OpenAI function tool as verifiers' provider-neutral Tool."""
    function = schema["function"]
    return vf.Tool(
        name=function["name"],
        description=function.get("description") or "",
        parameters=function.get("parameters") or {"type": "object", "properties": {}},
    )


async def taurec_reward(state: vf.State) -> float:
    """The evaluator's reward of the episode's log (0 when no episode was scored: the
    rollout's error says why)."""
    return float((state.get("taurec") or {}).get("reward", 0.0))


async def taurec_passed(state: vf.State) -> float:
    """1 when the evaluator counts the episode as passed, else 0."""
    return 1.0 if (state.get("taurec") or {}).get("passed") else 0.0


def taurec_rubric() -> vf.Rubric:
    """The reward is taurec's reward alone; `taurec_passed` is reported beside it."""
    rubric = vf.Rubric(funcs=[taurec_reward], weights=[1.0])
    rubric.add_metric(taurec_passed)
    return rubric
