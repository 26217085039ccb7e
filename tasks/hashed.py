"""What every task kind's model shares: its identity, the sha256 of its canonical JSON."""

from __future__ import annotations

from functools import cached_property
from hashlib import sha256

import orjson
from pydantic import BaseModel


class HashedTask(BaseModel):
    """A task model whose `sha256()` hashes every field (sorted-key JSON): the hash of the
    task as run, which each episode log's header records."""

    def sha256(self) -> str:
        return self._sha256

    @cached_property
    def _sha256(self) -> str:
        blob = orjson.dumps(self.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
        return sha256(blob).hexdigest()
