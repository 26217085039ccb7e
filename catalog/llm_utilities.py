"""Utilities scored by language models, as BIEL scores them (optional; cached on disk).

For one (persona, category, choice set): each model scores the items in chunks of 20
at temperature 0.1, sent as JSON `{persona_description, category, products: [{id,
title, price, store, attributes}], instructions}` and answered as `{"results": [{"id",
"score"}]}`. A model's scores are rescaled (×100 when the largest is ≤ 1, ×10 when ≤
10) and clipped to 0-100; when they look degenerate (more than max(3, 0.12n) scores ≤
0.51; or mean ≤ 10 and sd ≤ 5; or max ≤ 15 and sd ≤ 4) the model scores once more and
that answer stands. The utility is the mean over the models that answered in full (one
alone when the other failed). A category whose best utility is below 60 is skipped
(`None`). Replies are cached per call under `cache_dir`, so a rebuild makes no calls.
Tests mock litellm; nothing here runs unless asked for.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.choice_items import ChoiceItem

log = logging.getLogger(__name__)

CHUNK: Final = 20
MIN_BEST: Final = 60.0
INSTRUCTIONS: Final = (
    "You are this person. For each product, give a score from 0 to 100 for how much you "
    "would want to buy it for yourself, shopping in this category. Reply with JSON only: "
    '{"results": [{"id": <product id>, "score": <0-100>}]} covering every product.'
)

Completion = Callable[..., Any]  # litellm.completion's signature


class UtilityScoringError(RuntimeError):
    """No model gave usable scores for a choice set."""


class LLMUtilitySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    models: tuple[str, ...] = Field(
        default=("openai/gpt-4o", "gemini/gemini-1.5-pro"),
        min_length=1,
        description="litellm model strings; their scores are averaged.",
    )
    temperature: float = Field(default=0.1, ge=0, le=2)
    chunk: int = Field(default=CHUNK, ge=1, le=100)
    min_best: float = Field(default=MIN_BEST, ge=0, le=100)
    cache_dir: Path | None = Field(default=None, description="Where replies are cached.")


def rescaled(scores: Sequence[float]) -> list[float]:
    """×100 when the largest score is ≤ 1, ×10 when ≤ 10; then clipped to 0-100."""
    top = max(scores, default=0.0)
    factor = 100.0 if top <= 1 else 10.0 if top <= 10 else 1.0
    return [min(100.0, max(0.0, s * factor)) for s in scores]


def degenerate(scores: Sequence[float]) -> bool:
    """BIEL's guard against a collapsed answer (on rescaled scores)."""
    n = len(scores)
    if n == 0:
        return True
    values = np.asarray(scores, dtype=float)
    mean, sd, top = float(values.mean()), float(values.std()), float(values.max())
    near_zero = int((values <= 0.51).sum())
    return near_zero > max(3, 0.12 * n) or (mean <= 10 and sd <= 5) or (top <= 15 and sd <= 4)


def _product(item: ChoiceItem) -> dict[str, Any]:
    attributes = {
        k: v
        for k, v in {
            "categories": item.categories,
            "year": item.year,
            "runtime": item.runtime,
            "rating": item.rating,
            "language": item.language,
            "keywords": item.keywords,
            "description": item.description,
        }.items()
        if v not in (None, [], "")
    }
    return {
        "id": item.id,
        "title": item.title,
        "price": item.price,
        "store": item.maker,
        "attributes": attributes,
    }


class _Cache:
    def __init__(self, root: Path | None) -> None:
        self.root = root

    def get(self, key: str) -> list[float] | None:
        if self.root is None:
            return None
        try:
            value = orjson.loads((self.root / key[:2] / f"{key}.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        return [float(v) for v in value] if isinstance(value, list) else None

    def put(self, key: str, scores: list[float]) -> None:
        if self.root is None:
            return
        folder = self.root / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps(scores))
            os.replace(tmp, folder / f"{key}.json")
        except OSError as exc:  # a cache that cannot be written is skipped
            log.warning("utility cache not written: %s", exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)


def _parse(reply: Any, ids: list[str]) -> list[float]:
    """Scores in `ids` order from a completion; ValueError when any is missing."""
    text = reply.choices[0].message.content or ""
    start, end = text.find("{"), text.rfind("}")
    data = orjson.loads(text[start : end + 1]) if start >= 0 < end else None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise ValueError("the reply has no 'results' list")
    by_id = {str(r.get("id")): r.get("score") for r in results if isinstance(r, dict)}
    out = []
    for i in ids:
        value = by_id.get(i)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError(f"the reply has no numeric score for {i!r}")
        out.append(float(value))
    return out


class LLMUtilityScorer:
    """Scores choice sets for personas with the models of `settings`."""

    def __init__(self, settings: LLMUtilitySettings, completion: Completion | None = None):
        self.settings = settings
        self._completion = completion
        self._cache = _Cache(settings.cache_dir)
        self.calls = 0

    def _complete(self, **kwargs: Any) -> Any:
        if self._completion is None:
            from taurec.catalog.llm_runtime import load_litellm  # quiet, offline prices

            self._completion = load_litellm().completion
        self.calls += 1
        return self._completion(**kwargs)

    def _chunk(
        self, model: str, persona: str, category: str, chunk: list[ChoiceItem], attempt: int
    ) -> list[float]:
        payload = {
            "persona_description": persona,
            "category": category,
            "products": [_product(i) for i in chunk],
            "instructions": INSTRUCTIONS,
        }
        blob = orjson.dumps(
            {"model": model, "t": self.settings.temperature, "attempt": attempt, **payload},
            option=orjson.OPT_SORT_KEYS,
        )
        key = hashlib.sha256(blob).hexdigest()
        cached = self._cache.get(key)
        if cached is not None and len(cached) == len(chunk):
            return cached
        messages = [{"role": "user", "content": orjson.dumps(payload).decode()}]
        if attempt:
            messages.append({"role": "user", "content": "Score again, spreading the scores."})
        reply = self._complete(
            model=model, messages=messages, temperature=self.settings.temperature
        )
        scores = _parse(reply, [i.id for i in chunk])
        self._cache.put(key, scores)
        return scores

    def _model_scores(
        self, model: str, persona: str, category: str, items: Sequence[ChoiceItem]
    ) -> list[float]:
        size = self.settings.chunk
        scores: list[float] = []
        for attempt in (0, 1):
            scores = []
            for start in range(0, len(items), size):
                scores += self._chunk(
                    model, persona, category, list(items[start : start + size]), attempt
                )
            scores = rescaled(scores)
            if not degenerate(scores):
                break
        return scores

    def score(
        self, persona: str, category: str, items: Sequence[ChoiceItem]
    ) -> dict[str, float] | None:
        """Utilities of `items` for the persona (mean over models), or None when the best
        is below `min_best` (the category is skipped)."""
        per_model: list[list[float]] = []
        problems = []
        for model in self.settings.models:
            try:
                per_model.append(self._model_scores(model, persona, category, items))
            except Exception as exc:  # one model failing leaves the other's scores
                problems.append(f"{model}: {exc}")
                log.warning("utility scoring with %s failed: %s", model, exc)
        if not per_model:
            raise UtilityScoringError(
                f"no model scored category {category!r}: {'; '.join(problems)}"
            )
        mean = np.mean(np.asarray(per_model), axis=0)
        utilities = {i.id: round(float(u) * 2) / 2 for i, u in zip(items, mean, strict=True)}
        if max(utilities.values()) < self.settings.min_best:
            return None
        return utilities
