from importlib.resources import files

import orjson

from taurec.tasks.trajectory.format import EndReason, trajectory_json_schema
from taurec.tasks.trajectory.reader import parse_log_bytes

HEADER = {
    "type": "header",
    "format": "taurec-trajectory",
    "format_version": 1,
    "run_id": "r1",
    "episode_id": "e1",
    "agent": {"label": "scripted"},
    "task_id": "t1",
    "task_sha256": "0" * 64,
    "suite": {"id": "builtin", "spec": "builtin"},
    "catalog_sha256": "1" * 64,
    "trial": 0,
    "seed": 7,
    "simulator": {"kind": "rule"},
    "server_version": "0.1.0",
    "started_at": "2026-01-01T00:00:00Z",
}
EVENTS = [
    {"type": "user_message", "seq": 1, "t": 0.0, "text": "Something funny please."},
    {"type": "agent_message", "seq": 2, "t": 0.1, "text": "How long?"},
    {
        "type": "tool_call",
        "seq": 3,
        "t": 0.2,
        "call_id": "c1",
        "name": "get_item",
        "arguments": {"item_id": "x"},
    },
    {"type": "tool_result", "seq": 4, "t": 0.3, "call_id": "c1", "content": {"id": "x"}},
    {"type": "end", "seq": 5, "t": 0.4, "reason": "recommended", "item_id": "x"},
]


def jsonl(*records: dict) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def test_committed_schema_file_matches_the_models():
    committed = orjson.loads(
        (files("taurec.tasks.trajectory") / "trajectory.schema.json").read_bytes()
    )
    assert committed == orjson.loads(orjson.dumps(trajectory_json_schema()))


def test_clean_log_parses_into_a_trajectory_with_its_end():
    log = parse_log_bytes(jsonl(HEADER, *EVENTS), "ep.jsonl")
    assert log.ok and log.problems == []
    traj = log.trajectory
    assert traj is not None
    assert traj.end is not None and traj.end["reason"] == EndReason.RECOMMENDED
    assert [e["type"] for e in traj.events] == [e["type"] for e in EVENTS]


def test_malformed_line_is_reported_with_file_and_line():
    raw = jsonl(HEADER, EVENTS[0]) + b"{not json\n" + jsonl(*EVENTS[1:])
    log = parse_log_bytes(raw, "ep.jsonl")
    assert not log.ok
    assert next(str(p) for p in log.problems) == "ep.jsonl:3: not valid JSON"


def test_truncated_last_line_is_reported_as_truncated_and_incomplete():
    raw = jsonl(HEADER, *EVENTS[:3]) + orjson.dumps(EVENTS[3])[:20]
    msgs = [str(p) for p in parse_log_bytes(raw, "ep.jsonl").problems]
    assert "ep.jsonl:5: truncated last line (the writer stopped mid-record)" in msgs
    assert any("no end record" in m for m in msgs)


def test_unknown_event_type_names_the_expected_types():
    raw = jsonl(HEADER, {"type": "telepathy", "seq": 1, "t": 0}, *EVENTS)
    (problem,) = [p for p in parse_log_bytes(raw, "ep.jsonl").problems if p.line == 2]
    assert "unknown event type 'telepathy'" in problem.message
    assert "user_message" in problem.message


def test_missing_end_record_marks_the_log_incomplete():
    log = parse_log_bytes(jsonl(HEADER, *EVENTS[:-1]), "ep.jsonl")
    assert not log.ok and log.trajectory is None
    assert any("no end record" in p.message for p in log.problems)


def test_events_after_the_end_record_are_reported():
    extra = {**EVENTS[-1], "seq": 6}
    log = parse_log_bytes(jsonl(HEADER, *EVENTS, extra), "ep.jsonl")
    assert any("after the end record" in p.message for p in log.problems)


def test_missing_header_is_reported_on_line_one():
    log = parse_log_bytes(jsonl(*EVENTS), "ep.jsonl")
    assert log.header is None
    assert log.problems[0].line == 1 and "header" in log.problems[0].message


def test_wrong_field_type_names_the_field():
    bad = {**EVENTS[2], "arguments": "item_id=x"}
    log = parse_log_bytes(jsonl(HEADER, *EVENTS[:2], bad, *EVENTS[3:]), "ep.jsonl")
    assert any(p.line == 4 and "arguments" in p.message for p in log.problems)


def test_out_of_order_seq_is_reported():
    swapped = [EVENTS[1], EVENTS[0], *EVENTS[2:]]
    log = parse_log_bytes(jsonl(HEADER, *swapped), "ep.jsonl")
    assert any("out of order" in p.message for p in log.problems)


def test_empty_file_says_it_is_empty():
    log = parse_log_bytes(b"", "ep.jsonl")
    assert "empty log" in log.problems[0].message


def test_reading_records_and_writing_models_define_the_same_events():
    """The fast reading TypedDicts must accept and reject exactly what the models do."""
    from pydantic import TypeAdapter

    from taurec.tasks.trajectory.format import Event
    from taurec.tasks.trajectory.records import EVENT_RECORD

    def fields(schema: dict) -> dict[str, tuple[set[str], set[str]]]:
        defs = schema["$defs"]
        out = {}
        for ref in schema["oneOf"]:
            d = defs[ref["$ref"].split("/")[-1]]
            kind = d["properties"]["type"].get("const") or d["properties"]["type"]["enum"][0]
            out[kind] = (set(d["properties"]), set(d.get("required", [])) - {"type"})
        return out

    models = fields(TypeAdapter(Event).json_schema())
    records = fields(EVENT_RECORD.json_schema())
    # models give `type` a default, so it is not "required" there; compare the rest
    assert models == records


def test_header_without_a_kind_reads_as_a_recommendation_episode():
    log = parse_log_bytes(jsonl({k: v for k, v in HEADER.items() if k != "kind"}, *EVENTS), "e")
    assert log.header is not None and log.header.kind == "recommendation"


def test_messages_with_dialogue_acts_parse_and_logs_without_them_still_do():
    acts = [{"intent": "accept", "slot": None, "value": None, "items": ["x"]}]
    with_acts = [
        {**EVENTS[0], "acts": acts, "acts_by": "rule"},
        {**EVENTS[1], "acts": [{"intent": "elicit", "slot": "length"}], "acts_by": "nlu"},
        *EVENTS[2:],
    ]
    assert parse_log_bytes(jsonl(HEADER, *with_acts), "ep.jsonl").ok
    assert parse_log_bytes(jsonl(HEADER, *EVENTS), "ep.jsonl").ok


def test_an_unknown_acts_by_is_a_problem():
    bad = [{**EVENTS[0], "acts": [], "acts_by": "guesswork"}, *EVENTS[1:]]
    assert not parse_log_bytes(jsonl(HEADER, *bad), "ep.jsonl").ok
