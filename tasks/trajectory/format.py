"""Trajectory format v1: the episode log, next to the task it records.

One append-only JSON Lines file per episode. Line 1 is a `header`; then ordered events
(`user_message`, `agent_message`, `tool_call`, `tool_result`, `model_call`) and exactly one
`end`. A `model_call` records what a model was sent and answered; it never decides a
verdict (scoring reads it only for tokens and cost).
Any harness can write it: the JSON Schema is `trajectory.schema.json` beside this file
and docs/trajectory.md explains it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from taurec.tasks.trajectory.dialogue_acts import ActsBy, DialogueAct

TRAJECTORY_FORMAT: Final = "taurec-trajectory"
#: What the server writes: 2 (the prefix chain, see signing.py); readers take 1 and 2.
TRAJECTORY_FORMAT_VERSION: Final = 2
#: The most of an agent's traceback an end record keeps (its last bytes, UTF-8).
MAX_TRACEBACK_BYTES: Final = 8192
#: A batch the server made for calls that came, naming no batch, while a commit ran: this,
#: then the committing call's id (server/recommendation/batches.py).
CONCURRENT_BATCH: Final = "concurrent:"


class EndReason(StrEnum):
    RECOMMENDED = "recommended"  # committed a catalog item
    ABSTAINED = "abstained"  # committed to "nothing fits"
    USER_LEFT = "user_left"  # the simulated user ended the conversation
    MAX_TURNS = "max_turns"  # the turn budget ran out
    AGENT_ERROR = "agent_error"  # the agent crashed, timed out or stopped without committing
    INFRA_ERROR = "infra_error"  # the harness or a provider failed: not the agent's fault


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


_CHAIN_DOC = (
    "Optional tamper evidence. Format v2: SHA-256 (hex) of 'taurec-trajectory-v2\\0' and "
    "every byte of the file before this line's ',\"chain\":'. Format v1: SHA-256 (hex) of "
    "the previous line's chain (for the header, GENESIS) followed by this line's bytes "
    "before ',\"chain\":'. Written last (before hmac). See docs/trajectory.md."
)


class _Chained(_Record):
    chain: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$", description=_CHAIN_DOC)


class AgentInfo(_Record):
    label: str = Field(min_length=1, description="Groups episodes in reports, e.g. 'gpt-x@t0'.")
    kind: str | None = Field(default=None, description="scripted, oracle, llm, human, ...")
    model: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)

    def identity(self) -> str:
        """Who the agent is, its label left out (kind, model, settings: for a custom agent
        its class and a digest of its code), as one comparable string: two runs under one
        label are one agent only when these agree."""
        doc = {"kind": self.kind, "model": self.model, "settings": self.settings}
        return json.dumps(doc, sort_keys=True, default=str)


class SimulatorInfo(_Record):
    kind: str = Field(description="'rule' (deterministic) or 'llm-single' / 'llm-dual'.")
    model: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)


class SuiteRef(_Record):
    id: str
    spec: str | None = Field(
        default=None, description="How to load it: builtin, a path, tau-rec:PATH."
    )


class Header(_Chained):
    type: Literal["header"] = "header"
    format: Literal["taurec-trajectory"] = TRAJECTORY_FORMAT
    format_version: Literal[1, 2] = TRAJECTORY_FORMAT_VERSION
    run_id: str
    episode_id: str
    kind: str = Field(
        default="recommendation",
        min_length=1,
        description="The task kind (see taurec.tasks.kinds); logs without one are 'recommendation'.",
    )
    agent: AgentInfo
    task_id: str
    task_sha256: str = Field(
        pattern=r"^[0-9a-f]{64}$", description="RecommendationTask.sha256() as run."
    )
    suite: SuiteRef
    catalog_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    trial: int = Field(ge=0)
    seed: int
    simulator: SimulatorInfo
    server_version: str
    started_at: datetime
    mode: Literal["open", "sealed"] | None = Field(
        default=None,
        description="'sealed': played under a run plan (see docs/security); 'open': any "
        "client could start it under any label. Absent in logs of other harnesses.",
    )
    plan_id: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{32}$", description="The run plan (sealed mode)."
    )


class _Event(_Chained):
    seq: int = Field(ge=1, description="1, 2, 3, ... in file order.")
    t: float = Field(ge=0, description="Seconds since the header's started_at.")
    latency_ms: float | None = Field(default=None, ge=0, description="Time this step took.")


class UserMessage(_Event):
    type: Literal["user_message"] = "user_message"
    text: str
    left: bool = Field(default=False, description="The user ended the conversation with this.")
    acts: list[DialogueAct] | None = Field(
        default=None, description="What the message meant (IARD user intents); see acts_by."
    )
    acts_by: ActsBy | None = Field(
        default=None,
        description="Who gave the acts: 'rule' (the simulator's own), 'llm' (an LLM user's "
        "structured output), 'llm-classifier' (a classification pass over its text).",
    )


class AgentMessage(_Event):
    type: Literal["agent_message"] = "agent_message"
    text: str
    delivered: bool = Field(
        default=True,
        description="False for text the agent produced alongside tool calls but did not send.",
    )
    acts: list[DialogueAct] | None = Field(
        default=None, description="What the message meant (agent intents); see acts_by."
    )
    acts_by: ActsBy | None = Field(
        default=None,
        description="Who read the acts off the text: 'nlu' (the deterministic agent-side NLU "
        "over the catalog's titles) or 'llm-nlu'.",
    )


class ToolCall(_Event):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    batch: str | None = Field(
        default=None,
        description="The model response this call came in, as the client named it: calls "
        "with the same batch were made together. 'concurrent:<call id>': the client named "
        "none, and the call came while that committing call ran. Absent otherwise.",
    )


class ToolResult(_Event):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    is_error: bool = False
    refused: bool = Field(
        default=False,
        description="With is_error: the server refused the call before the tool ran "
        "(arguments the MCP layer rejected, or a server limit). Replay skips such calls.",
    )
    content: Any = Field(description="The payload exactly as the agent saw it.")


#: The largest integer every JSON reader holds exactly (2**53 - 1).
MAX_SAFE_INT: Final = 9_007_199_254_740_991


class Usage(_Record):
    prompt_tokens: int | None = Field(default=None, ge=0, le=MAX_SAFE_INT)
    completion_tokens: int | None = Field(default=None, ge=0, le=MAX_SAFE_INT)
    cost_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)


class ModelCall(_Event):
    type: Literal["model_call"] = "model_call"
    caller: Literal["agent", "user", "nlu"] = Field(
        description="Whose call: the agent's (reported by its client), the simulated user's "
        "or customer's, or the NLU's that reads the agent's messages (both the server's)."
    )
    model: str = Field(description="The model as the caller named it (a litellm string).")
    purpose: str | None = Field(
        default=None, description="What the call was for, e.g. 'reply', 'acts:user'."
    )
    settings: dict[str, Any] = Field(
        default_factory=dict, description="temperature, max_tokens, seed, ... as sent."
    )
    input: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="The messages sent: a prompt in the run's prompt store (prompts.store), "
        "named by its sha256; see docs/trajectory.md.",
    )
    input_messages: int | None = Field(default=None, ge=0, description="How many messages.")
    tools: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="The tool definitions offered, by sha256 in the prompt store.",
    )
    output: dict[str, Any] | None = Field(
        default=None, description="The completion: the assistant message (text, tool calls)."
    )
    usage: Usage | None = None
    cache_hit: bool | None = Field(default=None, description="Answered from a cache.")
    error: str | None = Field(default=None, description="Why the call failed, if it did.")
    detail: str | None = Field(
        default=None,
        description="The server's note on a record it refused or cut (malformed, over the "
        "per-episode cap): then the call's content is not logged.",
    )


class End(_Event):
    type: Literal["end"] = "end"
    reason: EndReason
    item_id: str | None = Field(default=None, description="The committed item; None otherwise.")
    detail: str | None = None
    traceback: str | None = Field(
        default=None,
        description="The agent's traceback, when its harness aborted the episode because "
        'the agent raised (request `_meta` "taurec/traceback"): its last '
        f"{MAX_TRACEBACK_BYTES} bytes at most, as the taurec server writes it.",
    )
    usage: Usage | None = None
    simulator: dict[str, Any] | None = Field(
        default=None,
        description="The simulated user's own counters, e.g. an LLM user's calls, cost, "
        "leaks caught, regenerations and rule-based fallbacks.",
    )
    key_id: str | None = Field(
        default=None, description="Names the key of `hmac` (a hash of the key, not the key)."
    )
    hmac: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="HMAC-SHA256 of this record's chain under the server's log key; the "
        "last member of the line.",
    )


Event = Annotated[
    UserMessage | AgentMessage | ToolCall | ToolResult | ModelCall | End,
    Field(discriminator="type"),
]
EVENT_TYPES = ("user_message", "agent_message", "tool_call", "tool_result", "model_call", "end")


def traceback_tail(text: str, max_bytes: int = MAX_TRACEBACK_BYTES) -> str:
    """`text` cut to its last `max_bytes` bytes (UTF-8), where a traceback says most: a cut
    one starts with a line saying how much went."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= max_bytes:
        return text
    note = f"[{len(raw) - max_bytes:,} earlier bytes cut]\n".encode()
    kept = raw[len(raw) - max_bytes + len(note) :]
    return (note + kept).decode("utf-8", "ignore")


@dataclass(frozen=True)
class Trajectory:
    """One parsed episode log: the header, and the events as validated dicts
    (see records.py; each has the fields of its model above)."""

    header: Header
    events: list[dict[str, Any]]

    @property
    def end(self) -> dict[str, Any] | None:
        last = self.events[-1] if self.events else None
        return last if last is not None and last["type"] == "end" else None


def trajectory_json_schema() -> dict[str, Any]:
    """The JSON Schema of one log line (header or event), for other harnesses."""
    from pydantic import TypeAdapter

    line = TypeAdapter(
        Annotated[
            Header | UserMessage | AgentMessage | ToolCall | ToolResult | ModelCall | End,
            Field(discriminator="type"),
        ]
    )
    schema = line.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "taurec trajectory (format versions 1 and 2): one JSONL line"
    return schema
