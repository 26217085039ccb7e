"""What the viewer's search looks through: each episode's messages (`api/words`), read
again when a log changes and cut at MAX_CHARS; and what tells runs apart in each row."""

from __future__ import annotations

import orjson
from starlette.testclient import TestClient

from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer import words as words_module
from taurec.evaluator.viewer.app import viewer_app
from taurec.evaluator.viewer.data import LogSet
from taurec.evaluator.viewer.words import EpisodeWords, episode_words

TOKEN = "t" * 43


def _logset(logs) -> LogSet:
    view = LogSet([logs.out], Resolver(suite=logs.spec))
    view.refresh(force=True)
    return view


def _say(path, text: str) -> None:
    """Put `text` in the user's opening message of the log at `path`."""
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    next(r for r in records if r["type"] == "user_message")["text"] = text
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def test_the_words_of_an_episode_are_its_users_and_agents_messages(logs):
    path = logs.episode("ta", 0, item="c1")
    assert episode_words(str(path), 1 << 20) == "Hi\nWhat do you like?"


def test_the_words_are_served_by_row_key_to_token_holders(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    view = _logset(logs)
    client = TestClient(viewer_app(view, TOKEN), base_url="http://127.0.0.1")
    doc = client.get("/api/words", headers={"Authorization": f"token {TOKEN}"}).json()
    assert doc["revision"] == view.revision
    assert doc["words"] == {r["key"]: "Hi\nWhat do you like?" for r in view.rows}
    assert client.get("/api/words").status_code == 403


def test_a_changed_log_is_read_again(logs):
    path = logs.episode("ta", 0, item="c1")
    view = _logset(logs)
    said = EpisodeWords(view)
    (key,) = said.document()["words"]
    _say(path, "I want a quiet western, please")
    assert "quiet western" in said.document()["words"][key]


def test_the_words_of_one_episode_are_cut_at_the_limit(logs, monkeypatch):
    monkeypatch.setattr(words_module, "MAX_CHARS", 10)
    path = logs.episode("ta", 0, item="c1")
    _say(path, "x" * 50)
    assert episode_words(str(path), 1 << 20) == "x" * 10


def test_a_planned_episode_without_a_log_has_no_words(tmp_path):
    assert episode_words(str(tmp_path / "run.register"), 1 << 20) == ""


def test_each_row_names_the_model_suite_and_start_of_its_run(logs):
    path = logs.episode("ta", 0, item="c1")
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    records[0]["agent"]["model"] = "acme/recommender-1"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    (row,) = _logset(logs).rows
    assert row["model"] == "acme/recommender-1"
    assert row["suite"] == "tiny" and row["started_at"] == "2026-01-01T00:00:00+00:00"
