"""The on-disk reply cache: round trips, atomic writes, and entries it cannot trust."""

from __future__ import annotations

from pathlib import Path

from taurec.server.recommendation.simulator.reply_cache import ReplyCache, cache_key


def test_a_stored_reply_comes_back(tmp_path: Path):
    cache = ReplyCache(tmp_path)
    cache.put("ab12", "Hello there.", model="m")
    assert cache.get("ab12") == "Hello there."


def test_a_missing_entry_is_a_miss(tmp_path: Path):
    assert ReplyCache(tmp_path / "nowhere").get("ab12") is None


def test_a_corrupt_entry_is_a_miss_and_a_put_rewrites_it(tmp_path: Path):
    cache = ReplyCache(tmp_path)
    cache.put("ab12", "first")
    cache.path("ab12").write_bytes(b'{"text": "trunc')
    assert cache.get("ab12") is None
    cache.put("ab12", "second")
    assert cache.get("ab12") == "second"


def test_an_entry_without_text_is_a_miss(tmp_path: Path):
    cache = ReplyCache(tmp_path)
    cache.path("ab12").parent.mkdir(parents=True)
    cache.path("ab12").write_text('{"text": 3}')
    assert cache.get("ab12") is None


def test_writes_leave_no_temporary_files(tmp_path: Path):
    cache = ReplyCache(tmp_path)
    for n in range(3):
        cache.put(f"ab{n}", "x")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["ab", "ab0.json", "ab1.json", "ab2.json"]


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = ReplyCache(blocker)
    cache.put("ab12", "x")  # no exception
    assert cache.get("ab12") is None


def test_the_key_depends_on_content_not_argument_order():
    a = cache_key(model="m", messages=[{"role": "user", "content": "hi"}], purpose="reply")
    b = cache_key(purpose="reply", messages=[{"role": "user", "content": "hi"}], model="m")
    c = cache_key(model="m", messages=[{"role": "user", "content": "hi!"}], purpose="reply")
    assert a == b != c and len(a) == 64
