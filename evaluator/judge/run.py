"""Running the LLM judge over a log folder: one litellm call per dialogue, aspect and
sample, answers cached in the judge file (store.py) so that a re-run only asks what
it has not asked before (same dialogue, aspect, sample, model and rubric version).

This is the one part of the evaluator that calls a model; it imports litellm (quiet,
through catalog/llm_runtime.py) when it first needs to call one, after the credentials
check, and never touches the logs or the deterministic scores. The model `mock` answers
every call with a fixed reply (mock.py), offline.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taurec.evaluator.files import find_logs
from taurec.evaluator.judge.mock import is_mock_judge, mock_call
from taurec.evaluator.judge.model_io import judge_model_call
from taurec.evaluator.judge.prompt import (
    JudgeScore,
    Turn,
    combine,
    dialogue,
    has_dialogue,
    parse_reply,
    prompt,
    prompt_digest,
)
from taurec.evaluator.judge.rubrics import ASPECTS, RUBRIC_VERSION, aspect
from taurec.evaluator.judge.store import (
    JudgeFile,
    JudgeFileError,
    call_key,
    judge_path,
    load_judge_file,
)
from taurec.tasks.trajectory.reader import read_log
from taurec.tasks.trajectory.signing import LogKey, load_log_key

#: Answers written to disk after this many new calls (an interrupted run keeps them).
SAVE_EVERY = 25


class JudgeError(Exception):
    """Judging cannot go on (missing credentials, a refused key); the message is one line."""


@dataclass(frozen=True)
class JudgeSettings:
    model: str  # a litellm model string
    samples: int = 1  # calls per dialogue and aspect
    aspects: tuple[str, ...] = tuple(ASPECTS)
    concurrency: int = 4  # calls in flight at once
    #: Replaces litellm.completion (tests, custom clients); takes litellm's keyword arguments.
    completion: Callable[..., Any] | None = None
    litellm_kwargs: dict[str, Any] = field(default_factory=dict)  # e.g. temperature
    check_credentials: bool = True
    #: Signs the judge file; default the log key (created, like the server does, if absent).
    key: LogKey | None = None


@dataclass(frozen=True)
class Skipped:
    path: str
    why: str


@dataclass
class JudgeReport:
    """What a judge run did and found."""

    path: Path  # the judge file
    model: str
    aspects: tuple[str, ...]
    samples: int
    scores: dict[str, dict[str, JudgeScore]] = field(default_factory=dict)  # episode -> aspect
    labels: dict[str, str] = field(default_factory=dict)  # episode -> agent label
    skipped: list[Skipped] = field(default_factory=list)
    #: the judge file found there could not be trusted (why): its answers were not reused
    discarded: str | None = None
    calls_made: int = 0
    cached: int = 0
    call_errors: int = 0
    first_error: str | None = None  # the first failed call's error, one line
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    @property
    def failures(self) -> int:
        """Samples without a score (unreadable replies and failed calls)."""
        return sum(s.failures for aspects in self.scores.values() for s in aspects.values())


@dataclass(frozen=True)
class _Call:
    key: str
    episode: str
    aspect: str
    sample: int
    prompt: str


def judge_logs(logdir: Path, settings: JudgeSettings) -> JudgeReport:
    """Judge every dialogue under `logdir` (see the module docstring). Raises UnknownAspect
    for an aspect name not in ASPECTS, JudgeError when calls cannot be made."""
    for name in settings.aspects:
        aspect(name)
    if settings.samples < 1:
        raise ValueError(f"--samples must be at least 1, got {settings.samples}")
    log_key = settings.key or _signing_key()
    report = JudgeReport(
        judge_path(logdir, settings.model), settings.model, settings.aspects, settings.samples
    )
    try:
        store = load_judge_file(logdir, settings.model, log_key)
    except JudgeFileError as exc:  # a forged cache must not be signed anew: start afresh
        report.discarded = str(exc)
        store = JudgeFile(model=settings.model)
    dialogues = _dialogues(logdir, report)
    todo: list[_Call] = []
    prompts = {
        (episode, name): prompt(turns, ASPECTS[name])
        for episode, turns in dialogues.items()
        for name in settings.aspects
    }
    for (episode, name), text in prompts.items():
        digest = prompt_digest(text)
        for sample in range(settings.samples):
            key = call_key(digest, name, sample, settings.model, RUBRIC_VERSION)
            if key in store.calls:
                report.cached += 1
            else:
                todo.append(_Call(key, episode, name, sample, text))
    if todo:
        _call_all(todo, settings, store, report, log_key)
        if report.call_errors == len(todo):
            raise JudgeError(
                f"all {len(todo)} judge calls to {settings.model!r} failed; the first: "
                f"{report.first_error}"
            )
    for episode in dialogues:
        report.scores[episode] = {
            name: combine(
                [
                    _score_of(
                        store.calls.get(
                            call_key(
                                prompt_digest(prompts[episode, name]),
                                name,
                                i,
                                settings.model,
                                RUBRIC_VERSION,
                            )
                        )
                    )
                    for i in range(settings.samples)
                ],
                settings.model,
            )
            for name in settings.aspects
        }
        store.episodes.setdefault(episode, {}).update(report.scores[episode])
    store.settings = {"samples": settings.samples, "rubric_version": RUBRIC_VERSION}
    store.write(report.path, log_key)
    return report


def _signing_key() -> LogKey:
    from taurec.catalog.errors import DataError

    try:
        return load_log_key(create=True)
    except DataError as exc:
        raise JudgeError(f"cannot sign the judge file: {exc}") from None


def _score_of(answer: dict[str, Any] | None) -> float:
    return math.nan if answer is None or answer.get("score") is None else float(answer["score"])


def _dialogues(logdir: Path, report: JudgeReport) -> dict[str, list[Turn]]:
    """episode id -> dialogue, for every log with one; the rest go to report.skipped."""
    found: dict[str, list[Turn]] = {}
    for path in find_logs([logdir]):
        parsed = read_log(path)
        if parsed.header is None:
            report.skipped.append(Skipped(str(path), "no readable header"))
            continue
        turns = dialogue(parsed.events)
        kind = getattr(parsed.header, "kind", "recommendation")
        if not has_dialogue(turns):
            report.skipped.append(
                Skipped(str(path), f"{kind} episode without user and agent messages")
            )
            continue
        found[parsed.header.episode_id] = turns
        report.labels[parsed.header.episode_id] = parsed.header.agent.label
    return found


def _call_all(
    todo: Sequence[_Call],
    settings: JudgeSettings,
    store: JudgeFile,
    report: JudgeReport,
    log_key: LogKey,
) -> None:
    completion = settings.completion
    if completion is None:
        if settings.check_credentials:  # before litellm's slow import: told at once
            _check_credentials(settings.model)
        from taurec.catalog.llm_runtime import load_litellm

        completion = load_litellm().completion
    with ThreadPoolExecutor(max_workers=max(settings.concurrency, 1)) as pool:
        futures: dict[Future[dict[str, Any]], _Call] = {
            pool.submit(_ask, completion, settings, call): call for call in todo
        }
        pending = set(futures)
        unsaved = 0
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    call = futures[future]
                    try:
                        answer = future.result()
                    except JudgeError:
                        raise
                    except Exception as exc:
                        report.call_errors += 1
                        report.first_error = report.first_error or _one_line(exc)
                        continue
                    store.calls[call.key] = answer
                    _count(report, answer)
                    unsaved += 1
                if unsaved >= SAVE_EVERY:
                    store.write(report.path, log_key)
                    unsaved = 0
        except BaseException:
            for future in pending:
                future.cancel()
            store.write(report.path, log_key)  # keep what was paid for
            raise


def _count(report: JudgeReport, answer: dict[str, Any]) -> None:
    report.calls_made += 1
    report.prompt_tokens += int(answer.get("prompt_tokens") or 0)
    report.completion_tokens += int(answer.get("completion_tokens") or 0)
    if answer.get("cost_usd") is not None:
        report.cost_usd = (report.cost_usd or 0.0) + float(answer["cost_usd"])


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text if len(text) <= 200 else text[:200] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _check_credentials(model: str) -> None:
    """The check `taurec run` makes for its LLM agent and user (a local provider such as
    ollama needs no base URL): one line naming what is missing."""
    from taurec.catalog.llm_runtime import missing_credentials

    missing = missing_credentials(model)
    if missing:
        raise JudgeError(f"judge model {model!r} needs {', '.join(missing)} set in the environment")


def _ask(completion: Callable[..., Any], settings: JudgeSettings, call: _Call) -> dict[str, Any]:
    """One judge call; the answer as stored in the cache."""
    mock = mock_call(call.aspect) if is_mock_judge(settings.model) else {}
    started = time.perf_counter()
    try:
        response = completion(
            **{"model": settings.model, **mock},
            messages=[{"role": "user", "content": call.prompt}],
            **{"max_retries": 0, **settings.litellm_kwargs},  # a refused key: no retries
        )
    except Exception as exc:
        if type(exc).__name__ == "AuthenticationError":  # litellm's: retrying cannot help
            raise JudgeError(
                f"judge model {settings.model!r} refused the credentials: {str(exc).splitlines()[0]}"
            ) from None
        raise
    reply = response.choices[0].message.content
    score, explanation = parse_reply(reply)
    usage = getattr(response, "usage", None)
    return {
        "episode": call.episode,
        "aspect": call.aspect,
        "sample": call.sample,
        "rubric_version": RUBRIC_VERSION,
        "reply": reply,
        "score": None if math.isnan(score) else score,
        "score_explanation": explanation,
        "prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
        "completion_tokens": getattr(usage, "completion_tokens", 0) or 0,
        "cost_usd": 0.0 if mock else _cost(response),
        "model_call": judge_model_call(
            settings.model, settings.litellm_kwargs, call.prompt, response, started
        ),
    }


def _cost(response: Any) -> float | None:
    """The call's cost in USD from litellm's price map; None when the model has no price."""
    try:
        from taurec.catalog.llm_runtime import load_litellm

        return float(load_litellm().completion_cost(completion_response=response))
    except Exception:
        return None
