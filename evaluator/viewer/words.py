"""The words the viewer's search box looks through besides each row's verdicts: the
user's and the agent's messages of every episode (the first MAX_CHARS of them) and its
end record's detail and traceback, read from its log as far as `evaluator score` reads
one (`Resolver.max_log_bytes`).

Served apart from the list (`api/words`, or `data/words.js` in a bundle) and only once a
search is typed, so the list the page polls stays small. The messages are what the
episode page shows anyway, live tasks included; nothing of the answer key is in them.
"""

from __future__ import annotations

import threading
from typing import Any

from taurec.evaluator.viewer.data import LogSet, read_capped, signature
from taurec.tasks.trajectory.secrets import scrub

#: The characters of one episode's messages (and of its end) that are searched.
MAX_CHARS = 20_000
_SAID = ("user_message", "agent_message")


def episode_words(path: str, max_bytes: int) -> str:
    """The messages of the log at `path`, one a line, cut at MAX_CHARS, then its end's
    detail and traceback, cut at MAX_CHARS too ("" without a log)."""
    if not path.endswith(".jsonl"):
        return ""  # a planned episode that has not started has no log
    log, _ = read_capped(path, max_bytes)
    if log is None:
        return ""
    lines: list[str] = []
    ended: list[str] = []
    size = 0
    for event in log.events:
        kind = event.get("type")
        if kind == "end":  # how it ended: the detail and the agent's traceback, if any
            how = (event.get("detail"), event.get("traceback"))
            ended = [t for t in how if isinstance(t, str) and t]
            continue
        text = event.get("text") if kind in _SAID else None
        if not isinstance(text, str) or size >= MAX_CHARS:
            continue
        lines.append(text)
        size += len(text) + 1
    said = "\n".join(lines)[:MAX_CHARS]
    end = "\n".join(ended)[:MAX_CHARS]
    return f"{said}\n{end}" if said and end else said or end


class EpisodeWords:
    """The words of the episodes `logs` lists, read again only for logs that changed."""

    def __init__(self, logs: LogSet) -> None:
        self.logs = logs
        self._cache: dict[str, tuple[tuple[int, int] | None, str]] = {}  # by log path
        self._lock = threading.Lock()

    def document(self) -> dict[str, Any]:
        """{key: words} of every row, with the list's revision they belong to."""
        with self._lock:
            revision, rows = self.logs.revision, self.logs.rows
            cache: dict[str, tuple[tuple[int, int] | None, str]] = {}
            words: dict[str, str] = {}
            for row in rows:
                path = row["path"]
                sig = signature(path)
                hit = self._cache.get(path)
                if hit is None or hit[0] != sig or sig is None:
                    found = episode_words(path, self.logs.resolver.max_log_bytes)
                    hit = (sig, scrub(found))  # no key a traceback held is searchable
                cache[path] = hit
                words[row["key"]] = hit[1]
            self._cache = cache
            return {"format": "taurec-episode-words", "revision": revision, "words": words}
