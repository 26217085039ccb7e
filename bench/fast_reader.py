"""The fastest log reader the scoring bench can build, for its ceiling rows: every field
check of the evaluator's reader (tasks/trajectory/records.py and the header model), the
event lines decoded in one msgspec call as a tagged union of structs, the tool results'
payloads (and the model calls' outputs and settings) kept as raw bytes, nothing turned
into dicts. What it returns no scorer reads; its time is what reading with these checks
costs at least.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from taurec.tasks.trajectory.records import ActsBy, DialogueActRecord, UsageRecord

Seq = Annotated[int, Meta(ge=1)]
Seconds = Annotated[float, Meta(ge=0)]
Millis = Annotated[float, Meta(ge=0)] | None | UnsetType
Sha256 = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}\Z")]
Nonempty = Annotated[str, Meta(min_length=1)]


class _Event(Struct, tag_field="type", kw_only=True):
    seq: Seq
    t: Seconds
    latency_ms: Millis = UNSET
    chain: str | UnsetType | None = UNSET


class UserMessage(_Event, tag="user_message", kw_only=True):
    text: str
    left: bool | UnsetType = UNSET
    acts: list[DialogueActRecord] | UnsetType | None = UNSET
    acts_by: ActsBy | UnsetType | None = UNSET


class AgentMessage(_Event, tag="agent_message", kw_only=True):
    text: str
    delivered: bool | UnsetType = UNSET
    acts: list[DialogueActRecord] | UnsetType | None = UNSET
    acts_by: ActsBy | UnsetType | None = UNSET


class ToolCall(_Event, tag="tool_call", kw_only=True):
    call_id: str
    name: str
    arguments: dict[str, Any] | UnsetType = UNSET
    batch: str | UnsetType | None = UNSET


class ToolResult(_Event, tag="tool_result", kw_only=True):
    call_id: str
    is_error: bool | UnsetType = UNSET
    refused: bool | UnsetType = UNSET
    content: Raw


class ModelCall(_Event, tag="model_call", kw_only=True):
    caller: Literal["agent", "user", "nlu"]
    model: str
    purpose: str | UnsetType | None = UNSET
    settings: Raw = Raw(b"{}")
    input: Sha256 | UnsetType | None = UNSET
    input_messages: Annotated[int, Meta(ge=0)] | UnsetType | None = UNSET
    tools: Sha256 | UnsetType | None = UNSET
    output: Raw = Raw(b"null")
    usage: UsageRecord | UnsetType | None = UNSET
    cache_hit: bool | UnsetType | None = UNSET
    error: str | UnsetType | None = UNSET
    detail: str | UnsetType | None = UNSET


class End(_Event, tag="end", kw_only=True):
    reason: Literal[
        "recommended", "abstained", "user_left", "max_turns", "agent_error", "infra_error"
    ]
    item_id: str | UnsetType | None = UNSET
    detail: str | UnsetType | None = UNSET
    traceback: str | UnsetType | None = UNSET
    usage: UsageRecord | UnsetType | None = UNSET
    simulator: dict[str, Any] | UnsetType | None = UNSET
    key_id: str | UnsetType | None = UNSET
    hmac: Sha256 | UnsetType | None = UNSET


class _Agent(Struct):
    label: Nonempty
    kind: str | None = None
    model: str | None = None
    settings: Raw = Raw(b"{}")


class _Simulator(Struct):
    kind: str
    model: str | None = None
    settings: Raw = Raw(b"{}")


class _SuiteRef(Struct):
    id: str
    spec: str | None = None


class Header(Struct, kw_only=True):
    type: Literal["header"]
    format: Literal["taurec-trajectory"]
    format_version: Literal[1, 2]
    run_id: str
    episode_id: str
    kind: Nonempty = "recommendation"
    agent: _Agent
    task_id: str
    task_sha256: Sha256
    suite: _SuiteRef
    catalog_sha256: Sha256
    trial: Annotated[int, Meta(ge=0)]
    seed: int
    simulator: _Simulator
    server_version: str
    started_at: datetime
    mode: Literal["open", "sealed"] | None = None
    plan_id: Annotated[str, Meta(pattern=r"^[0-9a-f]{32}\Z")] | None = None
    chain: Sha256 | None = None


_EVENTS = msgspec.json.Decoder(
    list[UserMessage | AgentMessage | ToolCall | ToolResult | ModelCall | End]
)
_HEADER = msgspec.json.Decoder(Header)


def fast_read(raw: bytes) -> tuple[Header, list[Any]] | None:
    """The header and events of a clean log (None when any check fails): one decode for
    the header, one for every event line, the seq order and the one end record checked."""
    cut = raw.find(b"\n")
    if cut < 0 or not raw.endswith(b"\n") or (not raw.isascii() and not _utf8(raw)):
        return None
    try:
        header = _HEADER.decode(raw[:cut])
        events = _EVENTS.decode(b"[" + raw[cut + 1 : -1].replace(b"\n", b",") + b"]")
    except msgspec.DecodeError:
        return None
    if not events or not isinstance(events[-1], End):
        return None
    last = len(events)
    for i, ev in enumerate(events, 1):
        if ev.seq != i or (i != last and isinstance(ev, End)):
            return None
    return header, events


def _utf8(raw: bytes) -> bool:
    """Payloads kept as bytes are not decoded, so their UTF-8 is checked here once."""
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True
