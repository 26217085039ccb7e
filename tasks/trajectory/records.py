"""Episode-log events as validated dicts: the fast reading side of trajectory format v1.

The pydantic models in format.py define the format (the JSON Schema is generated from
them) and are what writers use. Reading thousands of logs, though, is dominated by
building model instances, so readers validate each event into one of these TypedDicts
instead: the same fields and checks, validated in Rust, returned as plain dicts. A test
keeps the two definitions in lockstep.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

Seq = Annotated[int, Field(ge=1)]
Seconds = Annotated[float, Field(ge=0)]
Millis = Annotated[float, Field(ge=0)]


class DialogueActRecord(TypedDict):
    intent: Annotated[str, Field(min_length=1)]
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


Tokens = Annotated[int, Field(ge=0, le=9_007_199_254_740_991)]  # MAX_SAFE_INT
Cost = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class UsageRecord(TypedDict):
    prompt_tokens: NotRequired[Tokens | None]
    completion_tokens: NotRequired[Tokens | None]
    cost_usd: NotRequired[Cost | None]


Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


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
    input_messages: NotRequired[Annotated[int, Field(ge=0)] | None]
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
