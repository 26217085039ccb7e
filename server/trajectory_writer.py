"""Writing one episode's log in trajectory format v1 (see docs/trajectory.md).

The header is validated by the format's own model before anything is written. Each
event is one complete JSON line written with a single append, so the file on disk is
always a valid prefix of the episode: a crash leaves a log without its `end` record,
which the evaluator reports as incomplete, never a half-written line. No file
descriptor is held between events (an abandoned episode costs no descriptor); the end
record is fsynced.

Every line is chained to the one before it, and the end record is signed with the log
key (see taurec.tasks.trajectory_signing), so an edited, reordered, truncated or forged
log fails `evaluator score --verify`.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio.to_thread
import orjson

from taurec.tasks.trajectory import EndReason, Header, Usage
from taurec.tasks.trajectory_signing import CHAIN_MARK, GENESIS, HMAC_MARK, LogKey, chain_next


class LogClosedError(RuntimeError):
    """An event after the end record: the format allows exactly one end, last."""


def log_path(log_dir: Path, run_label: str, task_id: str, trial: int, episode_id: str) -> Path:
    """Where an episode's log goes: <log_dir>/<run_label>/<task_id>/trial<k>-<id prefix>.jsonl."""
    return log_dir / run_label / task_id / f"trial{trial}-{episode_id[:12]}.jsonl"


def now_utc() -> datetime:
    return datetime.now(UTC)


class TrajectoryWriter:
    """Append-only writer of one episode log. Not safe for concurrent use: the episode's
    lock serialises callers."""

    def __init__(self, path: Path, header: Header, key: LogKey | None = None) -> None:
        """`key` signs the end record; without one the log is chained but unsigned."""
        self.path = path
        self._clock = time.perf_counter()  # `t` is measured from here, the header's started_at
        self._seq = 0
        self._ended = False
        self._key = key
        self._chain = GENESIS
        path.parent.mkdir(parents=True, exist_ok=True)
        record = header.model_dump(mode="json", exclude={"chain"})
        line, chain = self._chained(record, sign=False)
        # O_EXCL: two episodes never share a file, and no earlier log is ever overwritten.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        try:
            _write_all(fd, line)
        finally:
            os.close(fd)
        self._chain = chain

    @property
    def seq(self) -> int:
        """The seq of the last event written (0 before any)."""
        return self._seq

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def chain(self) -> str:
        """The chain hash of the last line on disk: it pins the whole file so far."""
        return self._chain

    def elapsed(self) -> float:
        """Seconds since the header's started_at."""
        return time.perf_counter() - self._clock

    def user_message(
        self,
        text: str,
        *,
        left: bool = False,
        latency_ms: float | None = None,
        accepted: str | None = None,
    ) -> int:
        fields: dict[str, Any] = {"text": text, "left": left}
        if accepted is not None:  # the simulator's verdict on a pitched or committed item
            fields["accepted"] = accepted
        return self._event("user_message", fields, latency_ms)

    def agent_message(self, text: str, *, delivered: bool = True) -> int:
        return self._event("agent_message", {"text": text, "delivered": delivered}, None)

    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> int:
        return self._event(
            "tool_call", {"call_id": call_id, "name": name, "arguments": arguments}, None
        )

    def tool_result(
        self,
        call_id: str,
        content: Any,
        *,
        is_error: bool,
        latency_ms: float | None,
        refused: bool = False,
    ) -> int:
        """`refused`: the server turned the call down before the tool ran (an error)."""
        fields: dict[str, Any] = {"call_id": call_id, "is_error": is_error, "content": content}
        if refused:
            fields["refused"] = True
        return self._event("tool_result", fields, latency_ms)

    async def end(
        self,
        reason: EndReason,
        *,
        item_id: str | None = None,
        detail: str | None = None,
        usage: Usage | None = None,
        simulator: dict[str, Any] | None = None,
    ) -> int:
        """Write the end record and fsync the file (in a worker thread: fsync may be slow).
        `usage` is the agent's reported LLM usage, when it reported any."""
        fields: dict[str, Any] = {"reason": reason.value, "item_id": item_id}
        if detail is not None:
            fields["detail"] = detail
        if usage is not None:
            fields["usage"] = usage.model_dump(mode="json")
        if simulator:
            fields["simulator"] = simulator
        if self._key is not None:
            fields["key_id"] = self._key.key_id
        line, chain = self._line("end", fields, None, sign=True)
        try:
            await anyio.to_thread.run_sync(self._append, line, True)
        finally:
            self._ended = True  # even if the write failed: nothing may follow an end attempt
        self._seq += 1
        self._chain = chain
        return self._seq

    def _event(self, kind: str, fields: dict[str, Any], latency_ms: float | None) -> int:
        line, chain = self._line(kind, fields, latency_ms, sign=False)
        self._append(line, False)
        # only once the line is on disk: a failed write leaves no seq gap and no broken chain
        self._seq += 1
        self._chain = chain
        return self._seq

    def _line(
        self, kind: str, fields: dict[str, Any], latency_ms: float | None, *, sign: bool
    ) -> tuple[bytes, str]:
        if self._ended:
            raise LogClosedError(f"{self.path}: the episode log already has its end record")
        record: dict[str, Any] = {"type": kind, "seq": self._seq + 1, "t": round(self.elapsed(), 6)}
        if latency_ms is not None:
            record["latency_ms"] = round(latency_ms, 3)
        record.update(fields)
        return self._chained(record, sign=sign)

    def _chained(self, record: dict[str, Any], *, sign: bool) -> tuple[bytes, str]:
        """The line for `record` with its chain (and, when signing, its HMAC) appended."""
        body = orjson.dumps(record)[:-1]  # without the closing brace
        chain = chain_next(self._chain, body)
        tail = CHAIN_MARK + chain.encode("ascii")
        if sign and self._key is not None:
            tail += HMAC_MARK + self._key.mac(chain).encode("ascii")
        return body + tail + b'"}\n', chain

    def _append(self, line: bytes, sync: bool) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            _write_all(fd, line)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
