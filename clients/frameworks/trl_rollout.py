"""Multi-turn taurec episodes for TRL's GRPOTrainer, through its `rollout_func` hook
(TRL >= 1.0), without importing TRL:

    rollout = make_rollout_func(suite="ranking:builtin", log_dir="logs/grpo")
    trainer = GRPOTrainer(model=..., reward_funcs=env_reward_func, rollout_func=rollout,
                          train_dataset=taurec_dataset("ranking:builtin", multi_turn=True),
                          args=GRPOConfig(use_vllm=True, scale_rewards="none", ...))

TRL calls `rollout(prompts, trainer)` with its batch's prompts (each group's prompt once
per generation); each prompt is a task id, as `taurec_dataset(..., multi_turn=True)`
writes them, and each is played as one whole episode of that task (any kind) on a
VectorEnv over one EnvHost, all episodes of the batch turn by turn together.

Tokens: one episode is one training sequence. `prompt_ids` are the chat template's
rendering of the system message and the episode's opening; `completion_ids` hold every
model turn (env_mask 1, with the sampler's logprobs) and, between turns, the
environment's reply (env_mask 0, logprob 0.0: TRL leaves it out of the loss). Each turn
is generated from exactly the tokens before it. The environment's tokens are the
template's rendering of the conversation with the observation appended (as a user
message), from the end of what the model has seen; when the template re-renders earlier
turns so that what the model saw is no longer a prefix, they are the template's rendering
of the observation after a neutral exchange. A plain-text reply is tokenized and ended
with the tokenizer's EOS token, as a sampler that stopped there would give it.

Generation: `generate(text) -> str | dict` per turn (any model: an OpenAI-compatible
server, a test double; one marked `takes_messages`, as trl_chat.ChatGenerate is, gets
the conversation as chat messages instead); a dict gives "text" and/or vLLM's "completion_ids" and
"logprobs". With generate=None the trainer's own vLLM generates
(GRPOConfig(use_vllm=True)), from the token ids; that call is collective across training
processes while episodes end at different turns, so it serves one training process (pass
a generate for more). When any turn comes without logprobs, "logprobs" is None. When
`generate` raises, the batch's open episodes are ended before the error goes on: as
infra_error with the cause when the model's provider or the connection to it failed
(agents/outages.py), else as agent_error.

Returned, besides those: per rollout `env_reward` (the evaluator's reward of the episode's
log), `task_id`, `end_reason` and `episode_log`; TRL passes them to the reward functions
(`env_reward_func` reads env_reward).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.clients.agents.llm import system_prompt as contestant_prompt
from taurec.clients.agents.ranking.llm import SYSTEM_PROMPT as RANKING_SYSTEM
from taurec.clients.envs import EnvHost, TaurecEnv, VectorEnv
from taurec.clients.envs.env import MAX_STEPS
from taurec.tasks.suite import Suite

#: The system message of a kind with no prompt of its own (the stream kind).
GENERIC_SYSTEM = (
    "You are the recommender in a taurec {kind} episode. Act only through the tools, "
    'called as <tool_call>{{"name": ..., "arguments": {{...}}}}</tool_call>.'
)
#: The exchange the environment's tokens are rendered after when the template re-renders
#: earlier turns (any short user/assistant pair would do).
_NEUTRAL = [{"role": "user", "content": "."}, {"role": "assistant", "content": "."}]

#: The rendered text so far, or (marked `takes_messages`) the conversation -> the reply.
Generate = Callable[[Any], Any]


class _Tokens:
    """The few tokenizer calls a rollout makes (a Hugging Face tokenizer or processor)."""

    def __init__(self, tokenizer: Any) -> None:
        if tokenizer is None:
            raise DataError(
                "tokenizer: expected one (make_rollout_func(tokenizer=...) or the "
                "trainer's processing_class), got none"
            )
        self.template = tokenizer
        self.inner = getattr(tokenizer, "tokenizer", tokenizer)  # a processor wraps one
        eos = getattr(self.inner, "eos_token_id", None)
        self.eos = [eos] if isinstance(eos, int) else []

    def render(self, messages: list[dict[str, Any]], tools: Any, generation: bool) -> str:
        return self.template.apply_chat_template(
            messages, tools=tools, add_generation_prompt=generation, tokenize=False
        )

    def encode(self, text: str) -> list[int]:
        return list(self.inner.encode(text, add_special_tokens=False))

    def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        return self.inner.decode(ids, skip_special_tokens=skip_special_tokens)


@dataclass
class _Rollout:
    task_id: str
    messages: list[dict[str, Any]]
    tools: Any  # the schemas given to the chat template (None: they are in the prompt)
    context: str  # the text of `ids`: what the model has seen and written
    ids: list[int]  # prompt then completion tokens
    prompt_len: int
    logprobs: list[float] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    sampled_logprobs: bool = True
    reward: float = 0.0
    end_reason: str = ""
    log: str = ""

    def take(self, out: Any, tok: _Tokens) -> str:
        """Add one model turn (`generate`'s answer); the reply text, the env's action."""
        if isinstance(out, str):
            out = {"text": out}
        if not isinstance(out, Mapping):
            raise DataError(
                "generate: expected the reply's text or a dict with 'text' or "
                f"'completion_ids', got {type(out).__name__}"
            )
        given, logprobs = out.get("completion_ids"), out.get("logprobs")
        text: Any = out.get("text")
        ids = list(given) if given is not None else [*tok.encode(str(text or "")), *tok.eos]
        if not isinstance(text, str):
            text = tok.decode(ids, skip_special_tokens=True)
        if logprobs is None or len(logprobs) != len(ids):
            self.sampled_logprobs, logprobs = False, [0.0] * len(ids)
        self._extend(ids, [float(lp) for lp in logprobs], 1)
        self.context += tok.decode(ids, skip_special_tokens=False)
        self.messages.append({"role": "assistant", "content": text})
        return text

    def observe(self, observation: str, tok: _Tokens) -> None:
        """Add the environment's reply as the template renders it (see the module doc)."""
        message = {"role": "user", "content": observation}
        self.messages.append(message)
        full = tok.render(self.messages, self.tools, True)
        if full.startswith(self.context):
            text = full[len(self.context) :]
        else:
            before = tok.render(_NEUTRAL, self.tools, False)
            after = tok.render([*_NEUTRAL, message], self.tools, True)
            if not after.startswith(before):
                raise DataError(
                    "tokenizer: its chat template does not extend a conversation by "
                    "appending to it; the environment's tokens cannot be placed"
                )
            text = after[len(before) :]
        self.context += text
        ids = tok.encode(text)
        self._extend(ids, [0.0] * len(ids), 0)

    def _extend(self, ids: list[int], logprobs: list[float], mask: int) -> None:
        self.ids += ids
        self.logprobs += logprobs
        self.mask += [mask] * len(ids)


class TaurecRollout:
    """`rollout(prompts, trainer)` for GRPOTrainer(rollout_func=...); see the module doc.
    `close()` ends its host when it built one."""

    def __init__(
        self,
        host: EnvHost,
        generate: Generate | None,
        *,
        tokenizer: Any = None,
        system_prompt: str | None = None,
        max_turns: int = MAX_STEPS,
        owns_host: bool = False,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns: expected at least 1, got {max_turns}")
        self.host, self.generate, self.tokenizer = host, generate, tokenizer
        self.system_prompt, self.max_turns, self.owns_host = system_prompt, max_turns, owns_host
        self.schemas = TaurecEnv(host).tool_schemas()
        self._systems: dict[str, str] = {}

    def __call__(self, prompts: Sequence[Any], trainer: Any = None) -> dict[str, Any]:
        task_ids = [self._task_id(p) for p in prompts]
        given = self.tokenizer
        tok = _Tokens(given if given is not None else getattr(trainer, "processing_class", None))
        generate = self._generator(trainer)
        model = policy_name(trainer)
        rollouts: list[_Rollout] = []
        if task_ids:
            with VectorEnv(self.host, n=len(task_ids), max_steps=self.max_turns) as vec:
                openings = vec.reset(task_ids, agent={"kind": "trl", "model": model})
                rollouts = [
                    self._start(env, opening, tok)
                    for env, opening in zip(vec.envs, openings, strict=True)
                ]
                try:
                    self._play(vec, rollouts, generate, tok, model)
                except Exception as exc:  # an outage ends the open episodes as infra_error
                    vec.end_on_error(exc)
                    raise
        return _output(rollouts)

    def close(self) -> None:
        if self.owns_host:
            self.host.close()

    def __enter__(self) -> TaurecRollout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _play(
        self,
        vec: VectorEnv,
        rollouts: list[_Rollout],
        generate: Callable[[list[_Rollout]], list[Any]],
        tok: _Tokens,
        model: str,
    ) -> None:
        while not all(vec.done):
            active = [i for i, done in enumerate(vec.done) if not done]
            outs = generate([rollouts[i] for i in active])
            if len(outs) != len(active):
                raise DataError(f"generate: expected {len(active)} replies, got {len(outs)}")
            actions: list[Any] = [None] * len(rollouts)
            for i, out in zip(active, outs, strict=True):
                sent = list(rollouts[i].messages)
                before = len(rollouts[i].ids)
                actions[i] = rollouts[i].take(out, tok)
                # the turn, logged as a model call before the step it leads to
                vec.envs[i].log_model_call(
                    model=model,
                    messages=sent,
                    output=rollouts[i].messages[-1],
                    usage={"completion_tokens": len(rollouts[i].ids) - before},
                )
            results = vec.step(actions)
            for i in active:
                result, rollout = results[i], rollouts[i]
                if result.done:
                    rollout.reward = float(result.reward)
                    rollout.end_reason = str(result.info.get("end_reason", ""))
                    rollout.log = str(result.info.get("log", ""))
                else:
                    rollout.observe(result.observation, tok)

    def _start(self, env: TaurecEnv, opening: str, tok: _Tokens) -> _Rollout:
        # the ranking prompt holds the tools itself, as AgenticRec's does
        inline = self.system_prompt is None and self.host.kind == "ranking"
        tools = None if inline else self.schemas
        messages = [
            {"role": "system", "content": self._system(env)},
            {"role": "user", "content": opening},
        ]
        text = tok.render(messages, tools, True)
        ids = tok.encode(text)
        return _Rollout(env.task.id, messages, tools, text, ids, len(ids))

    def _system(self, env: TaurecEnv) -> str:
        if self.system_prompt is not None:
            return self.system_prompt
        if env.task.id not in self._systems:
            kind = self.host.kind
            if kind == "ranking":
                text = RANKING_SYSTEM.format(tools_schema=json.dumps(self.schemas))
            elif kind == "recommendation":  # the prompt the LLM contestant gets
                text = self.host.call(contestant_prompt, env.episode)
            else:
                text = GENERIC_SYSTEM.format(kind=kind)
            self._systems[env.task.id] = text
        return self._systems[env.task.id]

    def _generator(self, trainer: Any) -> Callable[[list[_Rollout]], list[Any]]:
        if self.generate is not None:
            generate = self.generate
            if getattr(generate, "takes_messages", False):  # a chat endpoint (trl_chat.py)
                return lambda rollouts: [generate(list(r.messages)) for r in rollouts]
            return lambda rollouts: [generate(r.context) for r in rollouts]
        vllm = getattr(trainer, "vllm_generation", None)
        if not getattr(trainer, "use_vllm", False) or vllm is None:
            raise DataError(
                "generate: none given and the trainer has no vLLM generation; set "
                "GRPOConfig(use_vllm=True) or pass make_rollout_func(generate=...)"
            )

        def on_vllm(rollouts: list[_Rollout]) -> list[Any]:
            prompts = [list(r.ids) for r in rollouts]
            _, ids, logprobs, _ = vllm.generate(prompts=prompts, images=None, num_generations=1)
            return [
                {
                    "completion_ids": list(ids[n]),
                    "logprobs": None if logprobs is None else [_top(lp) for lp in logprobs[n]],
                }
                for n in range(len(ids))
            ]

        return on_vllm

    def _task_id(self, prompt: Any) -> str:
        if isinstance(prompt, str) and self.host.suite.get(prompt) is not None:
            return prompt
        shown = repr(prompt) if len(repr(prompt)) <= 60 else repr(prompt)[:57] + "..."
        raise DataError(
            f"prompt: expected a task id of suite {self.host.suite.spec!r} (rows from "
            f"taurec_dataset(suite, multi_turn=True)), got {shown}"
        )


def policy_name(trainer: Any) -> str:
    """The trained model's name (its checkpoint's path or hub id), for the log headers;
    "policy" when the trainer does not say (or no trainer is given)."""
    model = getattr(trainer, "model", None)
    config = getattr(model, "config", None)
    for name in (getattr(model, "name_or_path", None), getattr(config, "_name_or_path", None)):
        if isinstance(name, str) and name:
            return name
    return "policy"


def _top(logprob: Any) -> float:
    """vLLM gives each token's top-k logprobs, the sampled token's first."""
    return float(logprob[0] if isinstance(logprob, list | tuple) else logprob)


def _output(rollouts: list[_Rollout]) -> dict[str, Any]:
    sampled = all(r.sampled_logprobs for r in rollouts)
    return {
        "prompt_ids": [r.ids[: r.prompt_len] for r in rollouts],
        "completion_ids": [r.ids[r.prompt_len :] for r in rollouts],
        "logprobs": [r.logprobs for r in rollouts] if sampled else None,
        "env_mask": [r.mask for r in rollouts],
        "env_reward": [r.reward for r in rollouts],
        "task_id": [r.task_id for r in rollouts],
        "end_reason": [r.end_reason for r in rollouts],
        "episode_log": [r.log for r in rollouts],
    }


def make_rollout_func(
    generate: Generate | None = None,
    *,
    suite: str | Suite | EnvHost = "ranking:builtin",
    tokenizer: Any = None,
    system_prompt: str | None = None,
    max_turns: int = MAX_STEPS,
    log_dir: str | Path | None = None,
    label: str = "grpo",
    **settings: Any,
) -> TaurecRollout:
    """The rollout function for `GRPOTrainer(rollout_func=...)` (see the module doc): on
    an EnvHost built here over `suite` (episodes logged under `label` to `log_dir`, a
    temporary folder when None; `settings` are EnvHost settings), or on the EnvHost given.
    `tokenizer` defaults to the trainer's processing_class; `system_prompt` to the kind's
    own (AgenticRec's for ranking, the contestant prompt for recommendation); an episode
    still open after `max_turns` model turns is ended by the environment and scored."""
    if isinstance(suite, EnvHost):
        host, owns = suite, False
    else:
        host, owns = EnvHost(suite, log_dir=log_dir, label=label, **settings), True
    try:
        return TaurecRollout(
            host,
            generate,
            tokenizer=tokenizer,
            system_prompt=system_prompt,
            max_turns=max_turns,
            owns_host=owns,
        )
    except BaseException:
        if owns:
            host.close()
        raise
