"""The viewer's token: every request carries it (query, cookie or header) or gets 403."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.access import cookie_name, new_token
from taurec.evaluator.viewer.app import viewer_app
from taurec.evaluator.viewer.data import LogSet

PATHS = [
    "/",
    "/viewer.js",
    "/viewer.css",
    "/curve.js",
    "/runs.js",
    "/api/episodes",
    "/api/episode/ffffffffffffffff",
    "/api/words",
]


def _client(logs, token: str) -> TestClient:
    app = viewer_app(LogSet([logs.out], Resolver(suite=logs.spec)), token)
    return TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)


def test_tokens_are_random_and_long():
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100 and min(map(len, tokens)) >= 43


@pytest.mark.parametrize("path", PATHS)
def test_a_request_without_the_token_is_403_and_carries_no_data(logs, path):
    logs.run({"ta": 1}, trials=1)
    response = _client(logs, new_token()).get(path)
    assert response.status_code == 403
    assert "ta" not in response.text.split() and "agentA" not in response.text


@pytest.mark.parametrize("path", PATHS)
def test_a_wrong_token_is_403_in_the_query_the_cookie_or_the_header(logs, path):
    logs.run({"ta": 1}, trials=1)
    token, wrong = new_token(), new_token()
    client = _client(logs, token)
    assert client.get(path, params={"token": wrong}).status_code == 403
    assert client.get(path, headers={"Authorization": f"token {wrong}"}).status_code == 403
    client.cookies.set(cookie_name(token), wrong)
    assert client.get(path).status_code == 403


def test_the_token_in_the_header_or_the_query_reads_the_list(logs):
    logs.run({"ta": 1}, trials=1)
    token = new_token()
    client = _client(logs, token)
    by_header = client.get("/api/episodes", headers={"Authorization": f"Bearer {token}"})
    by_query = client.get("/api/episodes", params={"token": token})
    assert by_header.status_code == by_query.status_code == 200
    assert [r["task"] for r in by_query.json()["rows"]] == ["ta"]


def test_the_printed_address_sets_a_cookie_and_drops_the_token_from_the_address(logs):
    logs.run({"ta": 1}, trials=1)
    token = new_token()
    client = _client(logs, token)
    opened = client.get("/", params={"token": token})
    assert opened.status_code == 303 and opened.headers["location"] == "/"
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(cookie_name(token) + "=") and "httponly" in cookie.lower()
    assert "samesite=strict" in cookie.lower()
    # the page's own fetches carry the cookie only
    assert client.get("/").status_code == 200
    assert client.get("/api/episodes").json()["rows"][0]["task"] == "ta"


def test_a_cookie_of_another_viewer_does_not_open_this_one(logs):
    logs.run({"ta": 1}, trials=1)
    other = new_token()
    client = _client(logs, new_token())
    client.cookies.set(cookie_name(other), other)
    assert client.get("/api/episodes").status_code == 403
