"""The viewer's HTTP surface: the page, the episode list and one episode, loopback only,
to holders of the token."""

from __future__ import annotations

from starlette.testclient import TestClient

from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.app import viewer_app
from taurec.evaluator.viewer.data import LogSet

TOKEN = "t" * 43


def _client(logs) -> TestClient:
    """A client that carries the token (as a header; test_access.py tries the others)."""
    return TestClient(
        viewer_app(LogSet([logs.out], Resolver(suite=logs.spec)), TOKEN),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"token {TOKEN}"},
    )


def test_the_page_loads_its_own_script_and_nothing_from_elsewhere(logs):
    logs.run({"ta": 1}, trials=1)
    page = _client(logs).get("/")
    assert page.status_code == 200 and '<script src="viewer.js">' in page.text
    assert "http" not in page.text.replace('name="viewport"', "")
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_the_list_endpoint_returns_the_rows(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    doc = _client(logs).get("/api/episodes").json()
    assert doc["format"] == "taurec-episodes" and len(doc["rows"]) == 2


def test_the_list_endpoint_says_unchanged_for_the_current_revision(logs):
    logs.run({"ta": 1}, trials=1)
    client = _client(logs)
    revision = client.get("/api/episodes").json()["revision"]
    again = client.get(f"/api/episodes?since={revision}").json()
    assert again == {"revision": revision, "unchanged": True}


def test_one_episode_is_served_by_its_key_and_an_unknown_key_is_404(logs):
    logs.run({"ta": 1}, trials=1)
    client = _client(logs)
    (row,) = client.get("/api/episodes").json()["rows"]
    doc = client.get(f"/api/episode/{row['key']}").json()
    assert doc["row"]["task"] == "ta" and doc["verdicts"]["constraints"]
    assert client.get("/api/episode/ffffffffffffffff").status_code == 404


def test_a_request_for_another_host_is_refused(logs):
    logs.run({"ta": 1}, trials=1)
    response = _client(logs).get("/api/episodes", headers={"host": "attacker.example"})
    assert response.status_code == 400


def test_an_unknown_page_is_404(logs):
    logs.run({"ta": 1}, trials=1)
    assert _client(logs).get("/secrets.txt").status_code == 404
