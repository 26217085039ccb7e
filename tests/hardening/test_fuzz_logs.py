"""The evaluator fed corrupted logs: it never crashes, and it reports every bad file.

Real logs (written by the server for the scripted agent) are corrupted the ways a crash,
a bad disk or a cheater would: truncated, reordered, retyped, with a duplicate or missing
end record, with a forged tool result, or with arbitrary bytes flipped. Each corrupted
file must come out of scoring as a reported problem (or a replay mismatch), and, under
`--verify`, as a verification failure.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner import run_agent
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver, find_logs, score_log, score_paths, verification_problem
from taurec.tasks.trajectory.reader import parse_log_bytes
from taurec.tasks.trajectory.signing import load_log_key

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RESOLVER = Resolver()


class Logs(list[bytes]):
    def __repr__(self) -> str:  # failing examples print this, not 50 kB of logs
        return f"<{len(self)} logs>"


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    out = tmp_path_factory.mktemp("fuzz-logs")
    run_agent(ScriptedAgent(), tasks=["t001", "t014", "t033", "t052"], trials=1, out=out)
    return Logs(p.read_bytes() for p in find_logs([out]))


def score_bytes(raw: bytes) -> tuple[EpisodeScore, str | None]:
    """What `evaluator score` and `--verify` make of one file's bytes. Never raises."""
    log = parse_log_bytes(raw, "fuzzed.jsonl")
    score = score_log(log, RESOLVER)
    return score, verification_problem(raw, log, load_log_key())


def reported(score: EpisodeScore) -> bool:
    return score.infra_error or bool(score.problems) or score.replay_mismatches > 0


def pick(originals: list[bytes], data: st.DataObject) -> bytes:
    """One of the logs, drawn by index (a short repr when an example fails)."""
    return originals[data.draw(st.integers(0, len(originals) - 1), label="log")]


def lines_of(raw: bytes) -> list[bytes]:
    return raw.splitlines(keepends=True)


def test_the_originals_are_clean(originals):
    for raw in originals:
        score, problem = score_bytes(raw)
        assert not reported(score) and problem is None


@FUZZ
@given(data=st.data())
def test_truncation_anywhere_is_reported(originals, data):
    raw = pick(originals, data)
    cut = data.draw(st.integers(0, len(raw) - 1))
    score, problem = score_bytes(raw[:cut])
    assert problem is not None
    if cut == len(raw) - 1:
        return  # only the final newline lost: every record is whole, so it still scores
    assert score.infra_error and score.problems


@FUZZ
@given(data=st.data())
def test_reordered_lines_are_reported(originals, data):
    lines = lines_of(pick(originals, data))
    order = data.draw(st.permutations(range(len(lines))))
    if order == list(range(len(lines))):
        return
    score, problem = score_bytes(b"".join(lines[i] for i in order))
    assert score.infra_error and score.problems
    assert problem is not None


TYPED_FIELDS = {
    "seq": ["1", None, 1.5, -3, [1]],
    "t": ["soon", None, -1.0, {}],
    "text": [5, None, ["hi"], {"a": 1}],
    "call_id": [7, None, []],
    "name": [3, None, {}],
    "reason": ["won", 1, None],
    "is_error": ["no", 2, {}],
    "type": ["tool_kall", 1, None, "header"],
    "latency_ms": ["fast", -5, []],
    "left": ["yes", 3],
    "delivered": ["maybe", []],
    "task_id": [1, None],
    "trial": [-1, "zero", None],
    "agent": ["me", None, {"kind": "x"}],
}


@FUZZ
@given(data=st.data())
def test_a_field_of_the_wrong_type_is_reported(originals, data):
    lines = lines_of(pick(originals, data))
    at = data.draw(st.integers(0, len(lines) - 1))
    record = orjson.loads(lines[at])
    present = sorted(k for k in TYPED_FIELDS if k in record)
    if not present:
        return
    key = data.draw(st.sampled_from(present))
    wrong = [v for v in TYPED_FIELDS[key] if v != record[key]]
    record[key] = data.draw(st.sampled_from(wrong))
    lines[at] = orjson.dumps(record) + b"\n"
    score, problem = score_bytes(b"".join(lines))
    assert score.infra_error and score.problems
    assert problem is not None


@FUZZ
@given(data=st.data())
def test_a_duplicate_or_missing_end_is_reported(originals, data):
    lines = lines_of(pick(originals, data))
    how = data.draw(st.sampled_from(["duplicate", "drop", "early"]))
    if how == "duplicate":
        lines.append(lines[-1])
    elif how == "drop":
        lines.pop()
    else:  # the end record moved before the last event
        at = data.draw(st.integers(1, len(lines) - 2))
        lines.insert(at, lines.pop())
    score, problem = score_bytes(b"".join(lines))
    assert score.infra_error and score.problems
    assert problem is not None


def _catalog_results(lines: list[bytes]) -> list[int]:
    replayable = {
        "get_item",
        "check_availability",
        "filter_catalog",
        "search_catalog",
        "get_user_history",
        "check_content_preference",
    }
    names = {}
    out = []
    for i, line in enumerate(lines):
        rec = orjson.loads(line)
        if rec.get("type") == "tool_call":
            names[rec["call_id"]] = rec["name"]
        elif rec.get("type") == "tool_result" and names.get(rec["call_id"]) in replayable:
            out.append(i)
    return out


@FUZZ
@given(data=st.data())
def test_a_forged_catalog_result_is_caught_by_replay_and_verify(originals, data):
    lines = lines_of(pick(originals, data))
    at = data.draw(st.sampled_from(_catalog_results(lines)))
    record = orjson.loads(lines[at])
    forged = data.draw(
        st.sampled_from(
            [
                {"items": [], "total": 0},
                {"available": True},
                "everything is available",
                None,
                {**record["content"], "forged": True}
                if isinstance(record["content"], dict)
                else {"x": 1},
            ]
        )
    )
    record["content"] = forged
    lines[at] = orjson.dumps(record) + b"\n"
    score, problem = score_bytes(b"".join(lines))
    assert score.replay_mismatches == 1 or score.infra_error
    assert problem is not None


@FUZZ
@given(data=st.data())
def test_any_changed_byte_fails_verification_and_never_crashes(originals, data):
    raw = bytearray(pick(originals, data))
    n = data.draw(st.integers(1, 4))
    for _ in range(n):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255).filter(lambda b, old=raw[at]: b != old))
    score, problem = score_bytes(bytes(raw))  # must not raise, whatever the bytes
    assert problem is not None
    assert isinstance(score.problems, list)


@FUZZ
@given(junk=st.binary(max_size=2000) | st.text(max_size=500).map(str.encode))
def test_arbitrary_bytes_are_an_infra_error_never_a_crash(junk):
    score, problem = score_bytes(junk)
    assert score.infra_error and score.problems
    assert problem is not None


def test_a_directory_of_mixed_corruptions_scores_the_good_and_reports_every_bad(
    originals, tmp_path
):
    good = originals[0]
    lines = lines_of(originals[1])
    bad = {
        "truncated": originals[1][:-40],
        "no-end": b"".join(lines[:-1]),
        "dup-end": b"".join([*lines, lines[-1]]),
        "reordered": b"".join([lines[0], lines[2], lines[1], *lines[3:]]),
        "not-json": b"this is not a log\n",
        "empty": b"",
        "unknown-event": b"".join(
            [*lines[:2], b'{"type":"teleport","seq":2,"t":0.1}\n', *lines[2:]]
        ),
    }
    (tmp_path / "good.jsonl").write_bytes(good)
    for name, raw in bad.items():
        (tmp_path / f"{name}.jsonl").write_bytes(raw)
    scores = score_paths([tmp_path], Resolver(), workers=1)
    by_name = {Path(s.path).stem: s for s in scores}
    assert set(by_name) == {"good", *bad}
    assert not reported(by_name["good"])
    for name in bad:
        assert by_name[name].infra_error and by_name[name].problems, name
    groups = aggregate(scores)
    assert sum(g["n_episodes"] for g in groups) == 1 + len(bad)  # none silently dropped
    assert sum(g["infra_errors"] for g in groups) == len(bad)
