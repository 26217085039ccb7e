"""What the viewer reads: no log past the scorer's size limit, and no suite a log names
that the scorer refused."""

from __future__ import annotations

from pathlib import Path

import orjson

from taurec.evaluator import resolver as resolver_module
from taurec.evaluator.defaults import MAX_LOG_BYTES
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer import data
from taurec.evaluator.viewer.data import LogSet


def _sparse_log(logs, size: int) -> Path:
    """A log with a valid header, grown to `size` bytes without writing them (sparse)."""
    path = logs.out / "huge" / "episode.jsonl"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as f:
        f.write(orjson.dumps(logs.header("ta", 0, "huge")) + b"\n")
        f.truncate(size)
    return path


def test_an_oversized_log_is_an_error_entry_and_is_never_read(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")
    huge = _sparse_log(logs, 600 * 1024 * 1024)
    assert huge.stat().st_size > MAX_LOG_BYTES
    parsed: list[str] = []
    real = data.parse_log_bytes
    monkeypatch.setattr(data, "parse_log_bytes", lambda raw, p: parsed.append(p) or real(raw, p))
    view = LogSet([logs.out], Resolver(suite=logs.spec))
    view.refresh(force=True)
    (row,) = [r for r in view.rows if r["path"] == str(huge)]
    assert row["infra_error"] and "over the evaluator's limit" in row["problems"][0]
    detail = view.detail(row["key"])
    assert detail is not None and detail["conversation"] == []
    assert any("log not read" in p for p in detail["verdicts"]["problems"])
    assert str(huge) not in parsed


def test_a_log_that_grew_past_the_limit_after_scoring_is_not_read(logs):
    path = logs.episode("ta", 0, item="c1")
    view = LogSet([logs.out], Resolver(suite=logs.spec, max_log_bytes=path.stat().st_size))
    view.refresh(force=True)
    with open(path, "ab") as f:
        f.truncate(path.stat().st_size + 1)
    detail = view.detail(view.rows[0]["key"])
    assert detail is not None and detail["conversation"] == []
    assert any("log not read" in p for p in detail["verdicts"]["problems"])


def test_a_suite_the_scorer_refused_is_never_loaded_by_the_viewer(logs, monkeypatch):
    logs.episode("ta", 0, item="c1")  # names its own suite folder: no plan, no --suite
    loaded: list[str] = []
    real = resolver_module.load_suite
    monkeypatch.setattr(
        resolver_module, "load_suite", lambda spec, **kw: loaded.append(spec) or real(spec, **kw)
    )
    view = LogSet([logs.out], Resolver())
    view.refresh(force=True)
    (row,) = view.rows
    assert row["infra_error"] and "cannot load the suite" in row["problems"][0]
    detail = view.detail(row["key"])
    assert detail is not None and detail["ranking"] is None
    assert loaded == []
