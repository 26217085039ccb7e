"""The words the viewer's search box looks through besides each row's verdicts: the
user's and the agent's messages of every episode, read from its log as far as
`evaluator score` reads one (`Resolver.max_log_bytes`), the first MAX_CHARS of them.

Served apart from the list (`api/words`, or `data/words.js` in a bundle) and only once a
search is typed, so the list the page polls stays small. The messages are what the
episode page shows anyway, live tasks included; nothing of the answer key is in them.
"""

from __future__ import annotations

import threading
from typing import Any

from taurec.evaluator.viewer.data import LogSet, read_capped, signature
from taurec.tasks.trajectory.secrets import scrub

#: The characters of one episode's messages that are searched.
MAX_CHARS = 20_000
_SAID = ("user_message", "agent_message")


def episode_words(path: str, max_bytes: int) -> str:
    """The messages of the log at `path`, one a line, cut at MAX_CHARS ("" without a log)."""
    if not path.endswith(".jsonl"):
        return ""  # a planned episode that has not started has no log
    log, _ = read_capped(path, max_bytes)
    if log is None:
        return ""
    lines: list[str] = []
    size = 0
    for event in log.events:
        text = event.get("text") if event.get("type") in _SAID else None
        if not isinstance(text, str):
            continue
        lines.append(text)
        size += len(text) + 1
        if size >= MAX_CHARS:
            break
    return "\n".join(lines)[:MAX_CHARS]


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
