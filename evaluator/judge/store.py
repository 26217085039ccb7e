"""Judge answers on disk: `LOGDIR/judge/<model-slug>.judge.json`, one file per judge
model, beside the logs and apart from them (a `.json` in the `judge/` folder, which log
discovery skips, so judging never changes what `evaluator score` reads).

The file holds every answer the model gave (`calls`, keyed by prompt, aspect, sample,
model and rubric version: the cache) and the per-episode JudgeScores of the last run
(`episodes`), signed with the log key (signature.py). `read_judgements(logdir)` reads the
latter for the report and the viewer: a file that is unsigned, altered or malformed is
left out, with one line saying which and why, never trusted and never a traceback.
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

from taurec.catalog.errors import DataError
from taurec.evaluator.files import JUDGE_DIR
from taurec.evaluator.judge.document import JudgeFileError, judge_document
from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.judge.signature import sign, signature_problem
from taurec.evaluator.text import plain
from taurec.tasks.trajectory.signing import LogKey, load_log_key

FORMAT: Final = "taurec-judge"
#: 2: signed (version 1 files were not, and are read as unsigned)
FORMAT_VERSION: Final = 2
SUFFIX: Final = ".judge.json"
#: A judge file larger than this is refused unread (answers are a few kB per dialogue).
MAX_JUDGE_BYTES: Final = 256 * 2**20


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

    def to_bytes(self, key: LogKey | None = None) -> bytes:
        """The file's bytes, signed with `key` (default: the log key, created if absent)."""
        doc = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "model": self.model,
            "settings": self.settings,
            "episodes": {
                eid: {name: s.as_json() for name, s in aspects.items()}
                for eid, aspects in self.episodes.items()
            },
            "calls": self.calls,
        }
        signed = sign(doc, key or load_log_key(create=True))
        return orjson.dumps(signed, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)

    @classmethod
    def read(cls, path: Path, key: LogKey | None = None) -> JudgeFile:
        """The file at `path`, its signature checked under `key` (default: the log key);
        JudgeFileError (a ValueError), one line starting with the path, when it cannot be
        trusted or read: unsigned, altered, not JSON, wrong types, scores out of range."""
        try:
            if path.stat().st_size > MAX_JUDGE_BYTES:
                raise JudgeFileError(f"{path}: larger than {MAX_JUDGE_BYTES // 2**20} MiB")
            raw = path.read_bytes()
        except OSError as exc:
            raise JudgeFileError(f"{path}: cannot be read ({exc.strerror})") from None
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise JudgeFileError(f"{path}: not JSON ({plain(exc)})") from None
        if not isinstance(doc, dict):
            raise JudgeFileError(f"{path}: not a judge file (a JSON {type(doc).__name__})")
        if doc.get("format") != FORMAT:
            raise JudgeFileError(f"{path}: not a judge file (expected format {FORMAT!r})")
        if key is None:
            try:
                key = load_log_key()
            except DataError as exc:
                raise JudgeFileError(f"{path}: its signature cannot be checked: {exc}") from None
        problem = signature_problem(doc, key)
        if problem is not None:
            raise JudgeFileError(f"{path}: {problem}")
        try:
            checked = judge_document(doc)
        except JudgeFileError as exc:
            raise JudgeFileError(f"{path}: {exc}") from None
        return cls(checked.model, checked.calls, checked.episodes, checked.settings)

    def write(self, path: Path, key: LogKey | None = None) -> None:
        """Write atomically (a crash leaves the old file or the new one, never half), signed
        with `key` (default: the log key), first taking in what another run saved to the
        same file since this one read it: two runs judging one folder at once both keep
        every answer either paid for (under a lock on the judge folder; the answers of this
        run win where both hold one). A file there that fails its check is replaced, never
        taken in (its answers would be signed anew)."""
        key = key or load_log_key(create=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.parent):
            if path.exists():
                with contextlib.suppress(JudgeFileError):
                    self._take_in(JudgeFile.read(path, key))
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(self.to_bytes(key))
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


def load_judge_file(logdir: Path, model: str, key: LogKey | None = None) -> JudgeFile:
    """The judge file of `model` under `logdir`, or an empty one; JudgeFileError when the
    file there cannot be trusted or read."""
    path = judge_path(logdir, model)
    return JudgeFile.read(path, key) if path.exists() else JudgeFile(model=model)


@dataclass
class JudgeFiles:
    """What the judge files under a log folder hold that can be trusted."""

    #: episode id -> aspect -> score, from the files that passed their checks
    scores: dict[str, dict[str, JudgeScore]] = field(default_factory=dict)
    #: one line per file left out: its path and why (print each as a warning)
    skipped: list[str] = field(default_factory=list)


def read_judgements(
    logdir: str | Path, model: str | None = None, *, key: LogKey | None = None
) -> JudgeFiles:
    """The judge scores under `logdir` (the file of `model`, or all of them merged in
    file-name order, so a later model's score for the same episode and aspect wins), each
    file's signature checked under `key` (default: the log key). A file that is unsigned,
    altered or malformed is skipped and named in `skipped`; this never raises for one.
    The report and the viewer both read judge files through this."""
    folder = Path(logdir) / JUDGE_DIR
    if model is not None:
        paths = [judge_path(Path(logdir), model)]
    else:
        paths = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    found = JudgeFiles()
    paths = [p for p in paths if p.exists()]
    if paths and key is None:
        try:
            key = load_log_key()
        except DataError as exc:
            found.skipped += [f"{p}: its signature cannot be checked: {exc}" for p in paths]
            return found
    for path in paths:
        try:
            judged = JudgeFile.read(path, key)
        except JudgeFileError as exc:
            found.skipped.append(plain(exc))
            continue
        for eid, aspects in judged.episodes.items():
            found.scores.setdefault(eid, {}).update(aspects)
    return found


def load_judgements(
    logdir: str | Path, model: str | None = None, *, key: LogKey | None = None
) -> dict[str, dict[str, JudgeScore]]:
    """{episode_id: {aspect: JudgeScore}}: read_judgements' scores, the files it skipped
    left out silently ({} when nothing was judged). Prefer read_judgements, which says
    which files were left out."""
    return read_judgements(logdir, model, key=key).scores
