"""The fastest log reader the scoring bench can build, for its ceiling rows: every field
check of the evaluator's reader (tasks/trajectory/records.py and the header model), the
event lines decoded in one msgspec call as a tagged union of structs with the tool
results' payloads (and the model calls' outputs and settings) kept as raw bytes
(tasks/trajectory/payloads.py), the header by a msgspec struct, nothing turned into dicts
or models. What it returns no scorer reads; its time is what reading with these checks
costs at least.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Raw, Struct

from taurec.tasks.trajectory.payloads import EventStruct, decode_struct_events

Sha256 = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}\Z")]
Nonempty = Annotated[str, Meta(min_length=1)]


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


_HEADER = msgspec.json.Decoder(Header)


def fast_read(raw: bytes) -> tuple[Header, list[EventStruct]] | None:
    """The header and events of a clean log (None when any check fails): one decode for
    the header, one for every event line (payloads.decode_struct_events, which checks the
    seq order, the one end record and the UTF-8)."""
    cut = raw.find(b"\n")
    if cut < 0 or not raw.endswith(b"\n"):
        return None
    try:
        header = _HEADER.decode(raw[:cut])
    except msgspec.DecodeError:
        return None
    events = decode_struct_events(raw[cut + 1 : -1])
    return None if events is None else (header, events)
