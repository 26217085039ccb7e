"""An on-disk cache of LLM replies, so a rerun of an LLM-simulated episode is free and
gives the same words.

One JSON file per call, named by the sha256 of everything that shapes the reply (see
`cache_key`), under a two-character fan-out folder. Writes go to a temporary file in the
same folder and are renamed into place, so a reader sees a whole entry or none, also
with several episodes (threads or processes) writing at once. A corrupt or unreadable
entry counts as a miss and is rewritten; a cache that cannot be written is skipped
with a warning. The cache never fails an episode.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

log = logging.getLogger(__name__)


def cache_key(**parts: Any) -> str:
    """sha256 of `parts` as canonical JSON (sorted keys; values must be JSON-serialisable)."""
    blob = orjson.dumps(parts, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return hashlib.sha256(blob).hexdigest()


class ReplyCache:
    """Reply texts by key, under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The cached text, or None when absent, unreadable or corrupt."""
        path = self.path(key)
        try:
            entry = orjson.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, orjson.JSONDecodeError) as exc:
            log.warning("ignoring unreadable reply-cache entry %s: %s", path, exc)
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            log.warning("ignoring malformed reply-cache entry %s", path)
            return None
        text: str = entry["text"]
        return text

    def put(self, key: str, text: str, **meta: Any) -> None:
        """Store `text` (plus `meta` for people reading the file) atomically."""
        path = self.path(key)
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps({"text": text, **meta}, option=orjson.OPT_INDENT_2))
            os.replace(tmp, path)
            tmp = None
        except (OSError, TypeError) as exc:  # TypeError: meta that is not JSON
            log.warning("could not write reply-cache entry %s: %s", path, exc)
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
