"""The run register: one signed line per start and end of a sealed run's episodes.

A sealed server keeps one register per plan, `<log dir>/<plan run id>/run.register`
(JSON Lines; not `*.jsonl`, so it is never taken for an episode log). Records:

- `plan`: the first line; the plan without its token (see plan.py).
- `start`: an episode of (task_id, trial) was started: its episode_id, attempt and log.
- `end`: how it ended (reason, detail) and its log's last chain hash, which pins the
  whole log.
- `interrupted`: a start the server found without an end when it started again (it
  crashed or was killed); that (task, trial) may be played once more, as may one the
  server itself ended on shutdown (`end` with `cut_by_server`). At most MAX_ATTEMPTS
  attempts per planned episode; every attempt stays on record.
- `restart`: the server started again on this register.

Every line is hash-chained like an episode log (same GENESIS and chain rule) and carries
an HMAC of its chain under the server's log key in its own domain, so register lines and
log end records cannot stand in for each other. The chain needs no key to check; the
HMAC does (`evaluator score --verify`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from taurec.tasks.trajectory.signing import (
    CHAIN_MARK,
    GENESIS,
    HMAC_MARK,
    LogKey,
    StepChain,
    chain_next,
)

REGISTER_NAME: Final = "run.register"
#: Attempts a planned episode may have: the first, and one more if the server cut it off.
MAX_ATTEMPTS: Final = 2
REGISTER_DOMAIN: Final = b"taurec-register-v1\x00"
RECORD_TYPES: Final = frozenset({"plan", "start", "end", "interrupted", "restart"})


def register_line(previous_chain: str, record: dict[str, Any], key: LogKey) -> tuple[bytes, str]:
    """The register line for `record` after a line whose chain is `previous_chain`."""
    line, chain, _ = StepChain(previous_chain).line(orjson.dumps(record)[:-1], key, REGISTER_DOMAIN)
    return line, chain


@dataclass
class Attempt:
    """One start of a planned episode, and what became of it."""

    task_id: str
    trial: int
    episode_id: str
    attempt: int
    log: str  # path relative to the register's folder
    end_reason: str | None = None
    end_detail: str | None = None
    log_chain: str | None = None  # the log's last chain hash, from the end record
    interrupted: bool = False
    cut_by_server: bool = False  # the server ended it while stopping

    @property
    def ended(self) -> bool:
        return self.end_reason is not None or self.interrupted


def may_play_again(attempt: Attempt) -> bool:
    """Whether a planned episode whose latest attempt is `attempt` may be started once more:
    the server cut it off (a crash or kill left it open, or it ended it while stopping),
    never anything the agent sent, and an attempt is left. The server marks an open
    attempt `interrupted` when it reopens the register; until then it is still playing."""
    return (attempt.interrupted or attempt.cut_by_server) and attempt.attempt < MAX_ATTEMPTS


@dataclass
class RegisterState:
    """A register read back: its plan record, every attempt, and the first problem."""

    plan: dict[str, Any] | None = None
    attempts: list[Attempt] = field(default_factory=list)
    problem: str | None = None  # None: every line intact (and signed, when a key was given)
    last_chain: str = GENESIS
    lines: int = 0
    _index: dict[str, Attempt] = field(default_factory=dict, repr=False)

    def latest(self) -> dict[tuple[str, int], Attempt]:
        """(task, trial) -> its latest attempt."""
        out: dict[tuple[str, int], Attempt] = {}
        for a in self.attempts:
            out[(a.task_id, a.trial)] = a
        return out

    def attempt_of(self, episode_id: str) -> Attempt | None:
        return self._index.get(episode_id)


def read_register(raw: bytes, key: LogKey | None) -> RegisterState:
    """Parse and check a register. Reading stops at the first line that is torn, unchained,
    edited or (with `key`) wrongly signed; `problem` says which. What came before it stands."""
    state = RegisterState()
    lines = raw.split(b"\n")
    torn = lines[-1] != b""
    lines.pop()
    previous = GENESIS
    for lineno, line in enumerate(lines, 1):
        problem = _check_line(line, previous, key)
        if problem is not None:
            state.problem = f"line {lineno}: {problem}"
            return state
        at = line.rfind(CHAIN_MARK)
        chain = line[at + len(CHAIN_MARK) : at + len(CHAIN_MARK) + 64].decode("ascii")
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            state.problem = f"line {lineno}: not JSON"
            return state
        problem = _apply(state, record, lineno)
        if problem is not None:
            state.problem = f"line {lineno}: {problem}"
            return state
        previous = chain
        state.last_chain = chain
        state.lines = lineno
    if torn:
        state.problem = f"line {len(lines) + 1}: incomplete (the register was truncated)"
    elif state.plan is None:
        state.problem = "empty register (no plan record)"
    return state


def _check_line(line: bytes, previous: str, key: LogKey | None) -> str | None:
    at = line.rfind(CHAIN_MARK)
    if at < 0:
        return "no chain hash"
    expected = chain_next(previous, line[:at])
    end = at + len(CHAIN_MARK) + 64
    if line[at + len(CHAIN_MARK) : end].decode("ascii", "replace") != expected:
        return "chain hash mismatch (the register was edited, reordered or spliced here)"
    tail = line[end:]
    if not (tail.startswith(HMAC_MARK) and tail.endswith(b'"}')):
        return "no HMAC"
    mac = tail[len(HMAC_MARK) : -2].decode("ascii", "replace")
    if key is not None and not key.verify(expected, mac, REGISTER_DOMAIN):
        return "HMAC does not match (forged, or signed with another key)"
    return None


def _apply(state: RegisterState, record: Any, lineno: int) -> str | None:
    if not isinstance(record, dict) or record.get("type") not in RECORD_TYPES:
        return "not a register record"
    kind = record["type"]
    if lineno == 1:
        if kind != "plan" or not isinstance(record.get("plan"), dict):
            return "the first record is not the plan"
        state.plan = record["plan"]
        return None
    if kind == "plan":
        return "a second plan record"
    if kind == "start":
        try:
            attempt = Attempt(
                task_id=str(record["task_id"]),
                trial=int(record["trial"]),
                episode_id=str(record["episode_id"]),
                attempt=int(record["attempt"]),
                log=str(record["log"]),
            )
        except (KeyError, TypeError, ValueError):
            return "a start record without task_id, trial, episode_id, attempt and log"
        if attempt.episode_id in state._index:
            return f"episode {attempt.episode_id} started twice"
        state.attempts.append(attempt)
        state._index[attempt.episode_id] = attempt
        return None
    if kind in ("end", "interrupted"):
        found = state.attempt_of(str(record.get("episode_id")))
        if found is None or found.ended:
            return f"an {kind} record for an episode not open here"
        if kind == "interrupted":
            found.interrupted = True
        else:
            found.end_reason = str(record.get("reason"))
            detail = record.get("detail")
            found.end_detail = detail if isinstance(detail, str) else None
            chain = record.get("log_chain")
            found.log_chain = chain if isinstance(chain, str) else None
            found.cut_by_server = record.get("cut_by_server") is True
    return None
