"""Judge answers on disk: `LOGDIR/judge/<model-slug>.judge.json`, one file per judge
model, beside the logs and apart from them (a `.json` in the `judge/` folder, which log
discovery skips, so judging never changes what `evaluator score` reads).

The file holds every answer the model gave (`calls`, keyed by prompt, aspect, sample,
model and rubric version: the cache) and the per-episode JudgeScores of the last run
(`episodes`). `load_judgements(logdir)` reads the latter.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from taurec.evaluator.files import JUDGE_DIR
from taurec.evaluator.judge.prompt import JudgeScore

FORMAT: Final = "taurec-judge"
SUFFIX: Final = ".judge.json"


def model_slug(model: str) -> str:
    """A file-name-safe name for a model string ("openai/gpt-4o" -> "openai_gpt-4o")."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"
    return slug[:80]


def judge_path(logdir: Path, model: str) -> Path:
    return logdir / JUDGE_DIR / f"{model_slug(model)}{SUFFIX}"


def call_key(digest: str, aspect: str, sample: int, model: str, rubric_version: str) -> str:
    """The cache key of one judge call."""
    raw = f"{digest}|{aspect}|{sample}|{model}|{rubric_version}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


@dataclass
class JudgeFile:
    """The contents of one judge file (see the module docstring)."""

    model: str
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    episodes: dict[str, dict[str, JudgeScore]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        doc = {
            "format": FORMAT,
            "format_version": 1,
            "model": self.model,
            "settings": self.settings,
            "episodes": {
                eid: {name: s.as_json() for name, s in aspects.items()}
                for eid, aspects in self.episodes.items()
            },
            "calls": self.calls,
        }
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)

    @classmethod
    def read(cls, path: Path) -> JudgeFile:
        """The file at `path`; ValueError (naming it) when it is not a judge file."""
        try:
            doc = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ValueError(f"{path}: not a judge file ({exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"{path}: not a judge file (expected format {FORMAT!r})")
        return cls(
            model=str(doc.get("model", "")),
            calls=dict(doc.get("calls", {})),
            episodes={
                eid: {name: JudgeScore.from_json(s) for name, s in aspects.items()}
                for eid, aspects in doc.get("episodes", {}).items()
            },
            settings=dict(doc.get("settings", {})),
        )

    def write(self, path: Path) -> None:
        """Write atomically (a crash leaves the old file or the new one, never half), first
        taking in what another run saved to the same file since this one read it: two runs
        judging one folder at once both keep every answer either paid for (under a lock
        on the judge folder; the answers of this run win where both hold one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.parent):
            if path.exists():
                with contextlib.suppress(ValueError):  # not a judge file: replaced
                    self._take_in(JudgeFile.read(path))
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(self.to_bytes())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise

    def _take_in(self, other: JudgeFile) -> None:
        self.calls = {**other.calls, **self.calls}
        for eid, aspects in other.episodes.items():
            self.episodes[eid] = {**aspects, **self.episodes.get(eid, {})}


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on `folder`, held for the block (released when the process dies)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def load_judge_file(logdir: Path, model: str) -> JudgeFile:
    """The judge file of `model` under `logdir`, or an empty one."""
    path = judge_path(logdir, model)
    return JudgeFile.read(path) if path.exists() else JudgeFile(model=model)


def load_judgements(
    logdir: str | Path, model: str | None = None
) -> dict[str, dict[str, JudgeScore]]:
    """{episode_id: {aspect: JudgeScore}} from the judge files under `logdir`: the one of
    `model`, or all of them (merged in file-name order, so a later model's score for the
    same episode and aspect wins). {} when nothing was judged."""
    folder = Path(logdir) / JUDGE_DIR
    if model is not None:
        paths = [judge_path(Path(logdir), model)]
    else:
        paths = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    merged: dict[str, dict[str, JudgeScore]] = {}
    for path in paths:
        if not path.exists():
            continue
        for eid, aspects in JudgeFile.read(path).episodes.items():
            merged.setdefault(eid, {}).update(aspects)
    return merged
