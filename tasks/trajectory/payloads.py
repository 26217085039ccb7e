"""Event lines read with their payloads kept as bytes: what scoring reads logs with.

The tool results' `content` and the model calls' `output` and `settings` are most of a
log's bytes, and a verdict seldom needs them: replay compares a result with the catalog's
only when a log is replayed, and a recommend call's result is read only when it disclosed
something. So `decode_events_lazily` decodes every event line in one msgspec call (a
tagged union of structs with the same field checks as records.py's TypedDicts), keeps
those payloads as `msgspec.Raw` (the bytes of the value, checked to be well-formed JSON;
the log's UTF-8 is checked once, whole), and turns the structs into the same dicts
`decode_events` gives in one more call. Readers decode a payload with `payload(value)`,
which passes a decoded value through unchanged. The bytes stay covered by the hash chain
and the HMAC, which are checked over the file as written.

One difference from decoding every payload remains: a number in a payload beyond a
double's range (`1e999`) is found only when that payload is decoded (the taurec server,
which writes with orjson, never writes one).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from taurec.tasks.trajectory.records import ActsBy, DialogueActRecord, UsageRecord

Seq = Annotated[int, Meta(ge=1)]
Seconds = Annotated[float, Meta(ge=0)]
Millis = Annotated[float, Meta(ge=0)]
Sha256 = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}\Z")]


class _Event(Struct, tag_field="type", kw_only=True):
    """Fields left out of a line stay UNSET, which the dicts leave out (NotRequired)."""

    seq: Seq
    t: Seconds
    latency_ms: Millis | UnsetType | None = UNSET
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
    settings: Raw | UnsetType = UNSET  # an object: checked by `model_call_ok`
    input: Sha256 | UnsetType | None = UNSET
    input_messages: Annotated[int, Meta(ge=0)] | UnsetType | None = UNSET
    tools: Sha256 | UnsetType | None = UNSET
    output: Raw | UnsetType = UNSET  # an object or null: checked by `model_call_ok`
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
    hmac: str | UnsetType | None = UNSET


EventStruct = UserMessage | AgentMessage | ToolCall | ToolResult | ModelCall | End
#: Every event line of a log at once: the lines joined into one JSON array.
EVENTS = msgspec.json.Decoder(list[EventStruct])
_RAW = (Raw,)
_decode = msgspec.json.decode


def model_call_ok(ev: ModelCall) -> bool:
    """What records.py's types check of the payloads kept as bytes: `settings` is an
    object, `output` an object or null (a Raw holds the value's bytes from its first)."""
    settings, output = ev.settings, ev.output
    if settings is not UNSET and not bytes(settings).startswith(b"{"):
        return False
    return output is UNSET or bytes(output).startswith((b"{", b"null"))


def decode_struct_events(body: bytes) -> list[EventStruct] | None:
    """The event lines of a log (`body`: newline-separated, none blank) as structs, the
    payloads as bytes; None when a line fails a check or is not UTF-8, the seqs are not
    1, 2, 3, ..., or the end record is not the last and only one (then the caller reads
    the log the slow way, which names the problem)."""
    if not body.isascii():
        try:
            body.decode()
        except UnicodeDecodeError:
            return None
    try:
        events = EVENTS.decode(b"[" + body.replace(b"\n", b",") + b"]")
    except msgspec.DecodeError:  # its ValidationError too
        return None
    last = len(events)
    for i, ev in enumerate(events, 1):
        if ev.seq != i or (type(ev) is End) != (i == last):
            return None
        if type(ev) is ModelCall and not model_call_ok(ev):
            return None
    return events


def decode_events_lazily(body: bytes) -> list[dict[str, Any]] | None:
    """`decode_struct_events` as the dicts records.py describes, payloads as `msgspec.Raw`."""
    events = decode_struct_events(body)
    if events is None:
        return None
    out: list[dict[str, Any]] = msgspec.to_builtins(events, builtin_types=_RAW)
    return out


def is_null(value: Any) -> bool:
    """Whether a value (a payload kept as bytes or not) is JSON null, or absent (None)."""
    return value is None or (type(value) is Raw and bytes(value) == b"null")


def payload(value: Any) -> Any:
    """A payload as its JSON value: decoded when it was kept as bytes, else as it is."""
    return _decode(value) if type(value) is Raw else value
