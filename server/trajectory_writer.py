"""Writing one episode's log in trajectory format v1 (see docs/trajectory.md).

The header is validated by the format's own model before anything is written. Each
event is one complete JSON line written with a single append, so the file on disk is
always a valid prefix of the episode: a crash leaves a log without its `end` record,
which the evaluator reports as incomplete, never a half-written line. A write that fails
(a full disk, say) is cut back to the last whole line and raises LogWriteError; a header
that cannot be written leaves no file. No file descriptor is held between events (an
abandoned episode costs no descriptor); the end record is fsynced.

Logs are private to the server's user: files 0600, folders this writer makes 0700 (a
log's header names its episode id, which is all a client needs to act on the episode).

Every line is chained to the one before it, and the end record is signed with the log
key (see taurec.tasks.trajectory.signing), so an edited, reordered, truncated or forged
log fails `evaluator score --verify`. Model calls are events like the others: an attached
model-call log (model_call_log.py) writes those the current request reports before the
first other event the request causes.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio.to_thread
import orjson

from taurec.server.episode_end import ABORTED
from taurec.server.http_fairness import outside_the_gate
from taurec.server.request_meta import reported_traceback
from taurec.tasks.trajectory.dialogue_acts import DialogueAct, acts_record
from taurec.tasks.trajectory.format import EndReason, Header, Usage
from taurec.tasks.trajectory.secrets import Scrubber
from taurec.tasks.trajectory.signing import GENESIS, LogKey, PrefixChain, StepChain, chain_for

log = logging.getLogger(__name__)

#: The mode of every episode log file, and of every folder made for logs.
LOG_FILE_MODE = 0o600
LOG_DIR_MODE = 0o700
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
#: What every message about a log that could not be written says (clients look for it).
LOG_UNWRITTEN = "could not write the episode log"


class LogClosedError(RuntimeError):
    """An event after the end record: the format allows exactly one end, last."""


class LogWriteError(RuntimeError):
    """An episode log could not be written (the disk is full, the folder is gone, ...).
    The file holds only whole lines. `agent_text` says so in one line, without the path
    or the system's error text; `str()` has both, for the server's own log."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(f"{path}: {cause.strerror or cause}")
        self.path = path
        self.errno = cause.errno
        self.disk_full = cause.errno in _DISK_FULL

    @property
    def agent_text(self) -> str:
        if self.disk_full:
            return f"the server's disk is full, so it {LOG_UNWRITTEN}"
        return f"the server {LOG_UNWRITTEN}"

    @property
    def cause(self) -> str:
        """The cause in a few words, for an end record's detail."""
        name = errno.errorcode.get(self.errno or 0, "error")
        return f"{name} ({os.strerror(self.errno)})" if self.errno else name


def make_log_dirs(folder: Path) -> None:
    """Make `folder` and its missing parents, each with mode 0700 (existing ones are left
    as they are)."""
    missing = []
    for path in (folder, *folder.parents):
        if path.is_dir():
            break
        missing.append(path)
    for path in reversed(missing):
        try:
            os.mkdir(path, LOG_DIR_MODE)
        except FileExistsError:  # another episode made it first
            continue
        os.chmod(path, LOG_DIR_MODE)  # whatever the umask


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
        #: How the next line is chained (by the header's format version), and how the one
        #: after it will be once the line being written is on disk
        self._state: PrefixChain | StepChain = chain_for(header.format_version)
        self._next_state: PrefixChain | StepChain | None = None
        #: The episode's model-call log, once one is attached (see model_call_log.py):
        #: before any other event it logs the model calls the current request reports.
        self.model_calls: Any = None
        record = header.model_dump(mode="json", exclude={"chain"})
        line, chain = self._chained(record, sign=False)
        try:
            make_log_dirs(path.parent)
            # O_EXCL: two episodes never share a file, and no earlier log is ever overwritten.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, LOG_FILE_MODE)
        except FileExistsError:
            raise
        except OSError as exc:
            raise LogWriteError(path, exc) from exc
        try:
            os.fchmod(fd, LOG_FILE_MODE)  # whatever the umask
            _write_all(fd, line)
        except OSError as exc:
            os.close(fd)
            _remove(path)
            raise LogWriteError(path, exc) from exc
        os.close(fd)
        self._adopt(chain)
        #: Bytes of the log on disk (whole lines written so far)
        self.size = len(line)

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
        acts: Sequence[DialogueAct] = (),
        acts_by: str | None = None,
    ) -> int:
        """`acts`, `acts_by`: what the message meant and who said so (logged when
        `acts_by` is given)."""
        fields: dict[str, Any] = {"text": text, "left": left}
        if accepted is not None:  # the simulator's verdict on a pitched or committed item
            fields["accepted"] = accepted
        if acts_by is not None:
            fields["acts"], fields["acts_by"] = acts_record(acts), acts_by
        return self._event("user_message", fields, latency_ms)

    def agent_message(
        self,
        text: str,
        *,
        delivered: bool = True,
        acts: Sequence[DialogueAct] = (),
        acts_by: str | None = None,
    ) -> int:
        fields: dict[str, Any] = {"text": text, "delivered": delivered}
        if acts_by is not None:
            fields["acts"], fields["acts_by"] = acts_record(acts), acts_by
        return self._event("agent_message", fields, None)

    def tool_call(
        self, call_id: str, name: str, arguments: dict[str, Any], batch: str | None = None
    ) -> int:
        """`batch`: the model response the call came in, when the client named it."""
        fields: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": arguments}
        if batch is not None:
            fields["batch"] = batch
        return self._event("tool_call", fields, None)

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

    def model_call(self, fields: dict[str, Any], latency_ms: float | None) -> int:
        """A model_call event (fields as format.ModelCall has them; see model_call_log.py)."""
        return self._event("model_call", fields, latency_ms)

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
        `usage` is the agent's reported LLM usage, when it reported any. An abort's end
        keeps the traceback its request reported (request_meta.py). The detail and the
        traceback are scrubbed of secrets (taurec.tasks.trajectory.secrets)."""
        self._reported_calls()
        fields: dict[str, Any] = {"reason": reason.value, "item_id": item_id}
        if detail is not None:
            scrubber = Scrubber()  # no credential of the environment, nothing shaped like a key
            fields["detail"] = scrubber.text(detail)
            if detail.startswith(ABORTED) and (traceback := reported_traceback()) is not None:
                fields["traceback"] = scrubber.text(traceback)
        if usage is not None:
            fields["usage"] = usage.model_dump(mode="json")
        if simulator:
            fields["simulator"] = simulator
        if self._key is not None:
            fields["key_id"] = self._key.key_id
        line, chain = self._line("end", fields, None, sign=True)
        try:
            async with outside_the_gate():  # an fsync may wait on the disk: the turn goes on
                await anyio.to_thread.run_sync(self._append, line, True)
        finally:
            self._ended = True  # even if the write failed: nothing may follow an end attempt
        self._seq += 1
        self._adopt(chain)
        return self._seq

    def _event(self, kind: str, fields: dict[str, Any], latency_ms: float | None) -> int:
        self._reported_calls()
        line, chain = self._line(kind, fields, latency_ms, sign=False)
        self._append(line, False)
        # only once the line is on disk: a failed write leaves no seq gap and no broken chain
        self._seq += 1
        self._adopt(chain)
        return self._seq

    def _reported_calls(self) -> None:
        """The model calls the current request reports come before what they caused (and
        before the server's own; each request's are taken once)."""
        if self.model_calls is not None and not self._ended:
            self.model_calls.take_request()

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
        line, chain, self._next_state = self._state.line(body, self._key if sign else None)
        return line, chain

    def _adopt(self, chain: str) -> None:
        """The line whose chain this is is on disk: chain the next one to it."""
        self._chain = chain
        if self._next_state is not None:
            self._state, self._next_state = self._next_state, None

    def _append(self, line: bytes, sync: bool) -> None:
        append_whole(self.path, line, sync=sync)
        self.size += len(line)


def append_whole(path: Path, line: bytes, *, sync: bool = False) -> None:
    """Append `line` to the file at `path` whole, or raise LogWriteError with the file as
    it was. The caller makes sure no one else appends meanwhile."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as exc:
        raise LogWriteError(path, exc) from exc
    try:
        size = os.fstat(fd).st_size
        try:
            _write_all(fd, line)
            if sync:
                os.fsync(fd)
        except OSError:
            _cut_back(fd, size, path)
            raise
    except OSError as exc:
        raise LogWriteError(path, exc) from exc
    finally:
        os.close(fd)


def _cut_back(fd: int, size: int, path: Path) -> None:
    """Truncate a failed append away: the file ends at its last whole line again."""
    try:
        os.ftruncate(fd, size)
    except OSError:  # pragma: no cover - truncating frees space, it does not need any
        log.exception("%s: could not cut a failed write back to %d bytes", path, size)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:  # pragma: no cover - the folder vanished with it
        log.exception("%s: could not remove a log whose header failed", path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
