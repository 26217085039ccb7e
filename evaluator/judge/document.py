"""What a judge file's JSON must hold, checked member by member before anything reads it.

A judge file comes from disk, where anyone who can write the log folder can change it:
every member is checked for its type and every score for its range (1 to 5, or null for
"no score"), so a damaged file is one line naming the first thing wrong (JudgeFileError),
never a traceback and never a score outside the rubric in the report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

from taurec.evaluator.judge.prompt import SCORE_RANGE, JudgeScore
from taurec.evaluator.text import plain

#: The members every stored JudgeScore has (JudgeScore.as_json).
SCORE_FIELDS: Final = ("mean", "spread", "samples", "failures", "model")
#: Samples per aspect a file may hold (the CLI asks for far fewer).
MAX_SAMPLES: Final = 10_000
_LOW, _HIGH = SCORE_RANGE
_WHERE_CHARS: Final = 60


class JudgeFileError(ValueError):
    """A judge file that cannot be used: the message is one line, starting with the path."""


@dataclass(frozen=True)
class JudgeDocument:
    """The checked contents of a judge file."""

    model: str
    calls: dict[str, dict[str, Any]]
    episodes: dict[str, dict[str, JudgeScore]]
    settings: dict[str, Any]


def _name(text: str) -> str:
    """A file-supplied key, short and printable, for a message."""
    shown = plain(text)
    return shown if len(shown) <= _WHERE_CHARS else shown[:_WHERE_CHARS] + "..."


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise JudgeFileError(f"{where}: expected an object, got {_type_name(value)}")
    return value


def _score(value: Any, where: str) -> float:
    """A score from 1 to 5, or NaN for null ("no score")."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise JudgeFileError(f"{where}: expected a number or null, got {_type_name(value)}")
    number = float(value)
    if not _LOW <= number <= _HIGH:  # also refuses NaN and infinities
        raise JudgeFileError(f"{where}: {value!r:.30} is outside {_LOW:g}..{_HIGH:g}")
    return number


def _spread(value: Any, where: str) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise JudgeFileError(f"{where}: expected a number or null, got {_type_name(value)}")
    if not 0.0 <= float(value) <= _HIGH - _LOW:
        raise JudgeFileError(f"{where}: {value!r:.30} is outside 0..{_HIGH - _LOW:g}")
    return float(value)


def judge_score(data: Any, where: str) -> JudgeScore:
    """One stored JudgeScore, checked."""
    data = _mapping(data, where)
    missing = [f for f in SCORE_FIELDS if f not in data]
    if missing:
        raise JudgeFileError(f"{where}: missing {', '.join(missing)}")
    samples = data["samples"]
    if not isinstance(samples, list):
        raise JudgeFileError(f"{where}.samples: expected a list, got {_type_name(samples)}")
    if len(samples) > MAX_SAMPLES:
        raise JudgeFileError(f"{where}.samples: {len(samples)} samples, at most {MAX_SAMPLES}")
    failures = data["failures"]
    if isinstance(failures, bool) or not isinstance(failures, int):
        raise JudgeFileError(f"{where}.failures: expected an integer, got {_type_name(failures)}")
    if not 0 <= failures <= len(samples):
        raise JudgeFileError(f"{where}.failures: {failures} is outside 0..{len(samples)}")
    if not isinstance(data["model"], str):
        raise JudgeFileError(f"{where}.model: expected a string, got {_type_name(data['model'])}")
    return JudgeScore(
        mean=_score(data["mean"], f"{where}.mean"),
        spread=_spread(data["spread"], f"{where}.spread"),
        samples=[_score(s, f"{where}.samples[{i}]") for i, s in enumerate(samples)],
        failures=failures,
        model=data["model"],
    )


def _calls(value: Any) -> dict[str, dict[str, Any]]:
    calls = _mapping(value, "calls")
    for key, answer in calls.items():
        where = f"calls[{_name(key)!r}]"
        _score(_mapping(answer, where).get("score"), f"{where}.score")
        for name in ("prompt_tokens", "completion_tokens"):
            count = answer.get(name, 0)
            if isinstance(count, bool) or not isinstance(count, int | None) or (count or 0) < 0:
                raise JudgeFileError(f"{where}.{name}: expected a count, got {count!r:.30}")
        cost = answer.get("cost_usd")
        if cost is not None and (
            isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost)
        ):
            raise JudgeFileError(f"{where}.cost_usd: expected a number, got {cost!r:.30}")
    return calls


def judge_document(doc: dict[str, Any]) -> JudgeDocument:
    """The checked contents of a parsed judge file (its format already known); the first
    problem found is a JudgeFileError naming the member (the caller adds the path)."""
    missing = [m for m in ("model", "episodes", "calls") if m not in doc]
    if missing:
        raise JudgeFileError(f"missing {', '.join(missing)}")
    if not isinstance(doc["model"], str):
        raise JudgeFileError(f"model: expected a string, got {_type_name(doc['model'])}")
    episodes: dict[str, dict[str, JudgeScore]] = {}
    for episode, aspects in _mapping(doc["episodes"], "episodes").items():
        where = f"episodes[{_name(episode)!r}]"
        episodes[episode] = {
            aspect: judge_score(score, f"{where}[{_name(aspect)!r}]")
            for aspect, score in _mapping(aspects, where).items()
        }
    return JudgeDocument(
        model=doc["model"],
        calls=_calls(doc["calls"]),
        episodes=episodes,
        settings=dict(_mapping(doc.get("settings", {}), "settings")),
    )
