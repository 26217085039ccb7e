"""The viewer's data: the episodes under some log folders, scored as `evaluator score`
scores them, as rows (a list) and one detailed view per episode.

`refresh()` looks at the folders again and scores only the logs that are new or changed
since (by size and modification time), so a viewer left open over a run that is still
writing logs stays current at the cost of the new logs only.

While a task is being played its answer key is withheld (answers.py). A log is read
only up to the limit `evaluator score` applies (`Resolver.max_log_bytes`), and an
episode's suite is loaded only as the scorer would load it: a suite named by a log the
scorer refused is never loaded.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from taurec.catalog.errors import DataError
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.model_calls import StoreCache, attach_messages
from taurec.evaluator.episodes.rows import episode_row
from taurec.evaluator.episodes.view import episode_view
from taurec.evaluator.evaluate import evaluate
from taurec.evaluator.files import JUDGE_DIR, find_run_files
from taurec.evaluator.labels import LabelFilter
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.answers import live_tasks, withhold_detail, withhold_row
from taurec.tasks.trajectory.reader import ParsedLog, parse_log_bytes
from taurec.tasks.trajectory.secrets import Scrubber

#: Seconds between two looks at the folders, however often the page asks.
MIN_REFRESH_S = 1.0


def episode_key(score: EpisodeScore) -> str:
    """A stable, URL-safe key of one episode (its log path, task and trial)."""
    blob = f"{score.path}\0{score.label}\0{score.task_id}\0{score.trial}".encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def run_identity(score: EpisodeScore) -> dict[str, str | None]:
    """What tells one run from another beside its label and plan: the model the agent
    reported, the suite and when the episode started (the viewer adds the folder)."""
    return {"model": score.agent_model, "suite": score.suite_id, "started_at": score.started_at}


def load_judged(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """Judge scores by episode id from `<logdir>/judge/`, where the judge has run."""
    from taurec.evaluator.judge.store import load_judgements

    judged: dict[str, dict[str, Any]] = {}
    for p in paths:
        if p.is_dir():
            try:
                judged.update(load_judgements(p))
            except (OSError, ValueError, DataError):
                continue  # a damaged judge file must not hide the episodes
    return judged


def signature(path: str | Path) -> tuple[int, int] | None:
    """A file's size and modification time (None when it cannot be read): a change in
    either means it is read again."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _judge_signatures(paths: list[Path]) -> dict[str, tuple[int, int] | None]:
    """Size and modification time of every judge file load_judged reads."""
    from taurec.evaluator.judge.store import SUFFIX

    return {
        str(f): signature(f)
        for p in paths
        if (p / JUDGE_DIR).is_dir()
        for f in sorted((p / JUDGE_DIR).glob(f"*{SUFFIX}"))
    }


def read_capped(path: str, max_bytes: int) -> tuple[ParsedLog | None, str | None]:
    """The parsed log at `path`, or why it was not read (too big, unreadable): a file over
    `max_bytes` is never read, whatever its size on disk."""
    try:
        with open(path, "rb", buffering=0) as f:  # one open: its size, then all of it
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                return None, f"log not read: {size:,} bytes, over the limit of {max_bytes:,}"
            raw = f.read(max_bytes + 1)  # grown since fstat: still no more than the limit
    except OSError as exc:
        return None, f"log not read: {exc.strerror or exc}"
    if len(raw) > max_bytes:
        return None, f"log not read: over the limit of {max_bytes:,} bytes"
    return parse_log_bytes(raw, path), None


class LogSet:
    """The episodes under `paths`, kept current by refresh(). `show_hidden`: show every
    episode's answer key, even while its task is live (`--show-hidden`)."""

    def __init__(
        self,
        paths: list[Path],
        resolver: Resolver,
        *,
        show_hidden: bool = False,
        labels: LabelFilter | None = None,
    ) -> None:
        self.paths = paths
        self.resolver = resolver
        self.show_hidden = show_hidden
        self.labels = labels or LabelFilter()  # the episodes shown: of these labels only
        self.labels_found: set[str] = set()  # every label under `paths`, shown or not
        self.revision = 0
        self.updated_at = ""
        self.rows: list[dict[str, Any]] = []
        self.judged: dict[str, dict[str, Any]] = {}
        self._scores: dict[str, EpisodeScore] = {}  # by key
        self._seen: dict[str, tuple[tuple[int, int] | None, EpisodeScore]] = {}  # by log path
        self._lock = threading.Lock()
        self._last = 0.0
        self._on_disk: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        self._judge_sig: dict[str, tuple[int, int] | None] | None = None
        self._live: frozenset[str] = frozenset()  # task ids with a live episode
        self._plan_specs: frozenset[str] = frozenset()  # suites of the plans scored
        self._prompt_stores = StoreCache()  # the runs' prompt stores, as last read

    def refresh(self, *, force: bool = False) -> bool:
        """Score what changed on disk; True when the rows changed."""
        with self._lock:
            if not force and time.monotonic() - self._last < MIN_REFRESH_S:
                return False
            self._last = time.monotonic()
            # signatures before scoring: a log that grows meanwhile is scored again next time
            files = find_run_files(self.paths)
            signatures = {str(p): signature(p) for p in files.logs}
            on_disk = (signatures, {str(p): signature(p) for p in files.registers})
            # judge files are read again only when one changed (they hold every answer)
            judge_sig = _judge_signatures(self.paths)
            judge_moved = judge_sig != self._judge_sig
            judged = load_judged(self.paths) if judge_moved else self.judged
            if on_disk == self._on_disk and not judge_moved and not force:
                return False  # nothing moved: no scoring, no rows rebuilt
            self._on_disk, self._judge_sig = on_disk, judge_sig
            known = {
                path: score
                for path, (sig, score) in self._seen.items()
                if sig is not None and sig == signatures.get(path)
            }
            check = evaluate(self.paths, self.resolver, known=known)
            excluded = {id(s): why for s, why in check.excluded}
            everything = check.scores + [s for s, _ in check.excluded]
            self._seen = {
                s.path: (signatures[s.path], s) for s in everything if s.path in signatures
            }
            live = frozenset() if self.show_hidden else live_tasks(everything)
            self.labels_found = {s.label for s in everything}
            everything = [s for s in everything if self.labels.matches(s.label)]
            rows = []
            scores = {}
            scrubber = Scrubber()  # logs of older servers may hold a key in a detail
            for s in everything:
                key = episode_key(s)
                scores[key] = s
                row = episode_row(s)
                if s.task_id in live:
                    row = withhold_row(row, s)
                row["key"] = key
                row["excluded"] = excluded.get(id(s))
                row.update(run_identity(s))
                rows.append(scrubber.tree(row))
            self._plan_specs = frozenset(
                str(run["suite"]["spec"])
                for run in check.runs
                if isinstance(run.get("suite"), dict) and isinstance(run["suite"].get("spec"), str)
            )
            if rows == self.rows and not judge_moved:
                return False
            self.rows, self._scores, self.judged, self._live = rows, scores, judged, live
            self.revision += 1
            self.updated_at = datetime.now(UTC).isoformat(timespec="seconds")
            return True

    def document(self) -> dict[str, Any]:
        """The list the viewer shows."""
        return {
            "format": "taurec-episodes",
            "revision": self.revision,
            "updated_at": self.updated_at,
            "paths": [str(p) for p in self.paths],
            "rows": self.rows,
        }

    def detail(self, key: str) -> dict[str, Any] | None:
        """The detailed view of one episode, None for an unknown key."""
        with self._lock:  # the resolver's suite cache is shared with refresh()
            return self._detail(key)

    def _detail(self, key: str) -> dict[str, Any] | None:
        score = self._scores.get(key)
        if score is None:
            return None
        log, unread = None, None
        if score.path.endswith(".jsonl"):
            log, unread = read_capped(score.path, self.resolver.max_log_bytes)
        header = log.header.model_dump(mode="json") if log and log.header else None
        events = log.events if log else []
        task, title_of = self._task(score)
        doc = episode_view(
            score,
            header,
            events,
            task=task,
            title_of=title_of,
            judged=self.judged.get(score.episode_id or ""),
        )
        if unread is not None:
            doc["verdicts"]["problems"].append(unread)
        attach_messages(doc, score.path, self.resolver.max_log_bytes, self._prompt_stores)
        if score.task_id in self._live:
            doc = withhold_detail(doc)
            doc["row"] = withhold_row(doc["row"], score)
        doc["row"]["key"] = key
        doc["row"].update(run_identity(score))
        scrubbed: dict[str, Any] = Scrubber().tree(doc)  # tracebacks, details, model errors
        return scrubbed

    def _task(self, score: EpisodeScore) -> tuple[Any, Any]:
        """The episode's task and a title lookup in its catalog (None, no titles when the
        suite does not load: the episode was scored without it anyway)."""
        if score.suite_spec is None:
            return None, lambda _: None
        # only the suites the scorer accepts (built-in, --suite, a plan's): never one a
        # log names for itself, even though the log's score carries that name
        resolver = replace(
            self.resolver, allowed_specs=self.resolver.allowed_specs | self._plan_specs
        )
        try:
            ctx = resolver.context(score.suite_spec)
        except DataError:
            return None, lambda _: None
        catalog = ctx.catalog

        def title_of(item_id: str) -> str | None:
            item = catalog.get(item_id)
            return item.title if item is not None else None

        return ctx.suite.get(score.task_id), title_of
