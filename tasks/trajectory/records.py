"""Episode-log events as validated dicts: the fast reading side of the trajectory format.

The pydantic models in format.py define the format (the JSON Schema is generated from
them) and are what writers use. Reading thousands of logs, though, is dominated by
building model instances, so readers validate each event into one of these TypedDicts
instead: the same fields and checks, returned as plain dicts. Lines in the order the
server writes them (type first) are parsed and checked in one pass by msgspec
(`decode_events`), which reads the `Meta` beside each pydantic `Field`; any other line is
parsed by orjson and checked by pydantic. Tests keep the models, the TypedDicts and the
two checkers in lockstep.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, cast

import msgspec
from msgspec import Meta
from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

Seq = Annotated[int, Field(ge=1), Meta(ge=1)]
Seconds = Annotated[float, Field(ge=0), Meta(ge=0)]
Millis = Annotated[float, Field(ge=0), Meta(ge=0)]


class DialogueActRecord(TypedDict):
    intent: Annotated[str, Field(min_length=1), Meta(min_length=1)]
    slot: NotRequired[str | None]
    value: NotRequired[str | None]
    items: NotRequired[list[str]]


ActsBy = Literal["rule", "llm", "llm-classifier", "nlu", "llm-nlu"]


class UserMessageRecord(TypedDict):
    type: Literal["user_message"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    text: str
    left: NotRequired[bool]
    acts: NotRequired[list[DialogueActRecord] | None]
    acts_by: NotRequired[ActsBy | None]


class AgentMessageRecord(TypedDict):
    type: Literal["agent_message"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    text: str
    delivered: NotRequired[bool]
    acts: NotRequired[list[DialogueActRecord] | None]
    acts_by: NotRequired[ActsBy | None]


class ToolCallRecord(TypedDict):
    type: Literal["tool_call"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    call_id: str
    name: str
    arguments: NotRequired[dict[str, Any]]
    batch: NotRequired[str | None]


class ToolResultRecord(TypedDict):
    type: Literal["tool_result"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    call_id: str
    is_error: NotRequired[bool]
    refused: NotRequired[bool]
    content: Any


Tokens = Annotated[
    int, Field(ge=0, le=9_007_199_254_740_991), Meta(ge=0, le=9_007_199_254_740_991)
]  # MAX_SAFE_INT
Cost = Annotated[float, Field(ge=0, allow_inf_nan=False), Meta(ge=0)]  # JSON has no inf/nan


class UsageRecord(TypedDict):
    prompt_tokens: NotRequired[Tokens | None]
    completion_tokens: NotRequired[Tokens | None]
    cost_usd: NotRequired[Cost | None]


# Python's `$` also matches before a final newline; Rust's (pydantic's) does not: \Z here
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$"), Meta(pattern=r"^[0-9a-f]{64}\Z")]


class ModelCallRecord(TypedDict):
    type: Literal["model_call"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    caller: Literal["agent", "user", "nlu"]
    model: str
    purpose: NotRequired[str | None]
    settings: NotRequired[dict[str, Any]]
    input: NotRequired[Sha256 | None]
    input_messages: NotRequired[Annotated[int, Field(ge=0), Meta(ge=0)] | None]
    tools: NotRequired[Sha256 | None]
    output: NotRequired[dict[str, Any] | None]
    usage: NotRequired[UsageRecord | None]
    cache_hit: NotRequired[bool | None]
    error: NotRequired[str | None]
    detail: NotRequired[str | None]


class EndRecord(TypedDict):
    type: Literal["end"]
    seq: Seq
    t: Seconds
    latency_ms: NotRequired[Millis | None]
    chain: NotRequired[str | None]
    reason: Literal[
        "recommended", "abstained", "user_left", "max_turns", "agent_error", "infra_error"
    ]
    item_id: NotRequired[str | None]
    detail: NotRequired[str | None]
    traceback: NotRequired[str | None]
    usage: NotRequired[UsageRecord | None]
    simulator: NotRequired[dict[str, Any] | None]
    key_id: NotRequired[str | None]
    hmac: NotRequired[str | None]


EventRecord = Annotated[
    UserMessageRecord
    | AgentMessageRecord
    | ToolCallRecord
    | ToolResultRecord
    | ModelCallRecord
    | EndRecord,
    Field(discriminator="type"),
]
# Typed as plain dicts: readers index them by key, and the union's members all are dicts.
EVENT_RECORD = cast("TypeAdapter[dict[str, Any]]", TypeAdapter(EventRecord))
EVENT_RECORDS = cast("TypeAdapter[list[dict[str, Any]]]", TypeAdapter(list[EventRecord]))


#: Each event type's msgspec decoder: the same TypedDicts, checked by msgspec (which reads
#: the `Meta` beside each pydantic `Field` above) while it parses the line.
_DECODERS: dict[bytes, Callable[[bytes], Any]] = {
    kind.encode(): msgspec.json.Decoder(record).decode
    for kind, record in (
        ("user_message", UserMessageRecord),
        ("agent_message", AgentMessageRecord),
        ("tool_call", ToolCallRecord),
        ("tool_result", ToolResultRecord),
        ("model_call", ModelCallRecord),
        ("end", EndRecord),
    )
}
#: How every event line the server writes starts: its type first.
_TYPE_FIRST = b'{"type":"'


def decode_events(body: bytes) -> list[dict[str, Any]] | None:
    """The event lines of a log (`body`: newline-separated, none blank), each parsed and
    checked in one pass by its type's decoder; None when a line does not start with its
    type as the server writes it, or fails its check (then the caller validates the slow
    way, which accepts exactly the same and names the problem).

    Where this and pydantic could differ, this is the stricter: a line it refuses is only
    read more slowly. One difference remains in free-form payloads (`content`,
    `arguments`, ...): an integer beyond 64 bits stays an exact int here, where orjson
    reads it as a float. The server never writes one."""
    out: list[dict[str, Any]] = []
    append, decoder, start = out.append, _DECODERS.get, len(_TYPE_FIRST)
    try:
        for line in body.split(b"\n"):
            if not line.startswith(_TYPE_FIRST):
                return None
            decode = decoder(line[start : line.find(b'"', start)])
            if decode is None:
                return None
            append(decode(line))
    except ValueError:  # msgspec's DecodeError and ValidationError; bad UTF-8
        return None
    return out
