"""The viewer's token: every request for data carries it in its Authorization header or
gets 403; it travels in no cookie (a browser sends a host's cookies to every port of it),
and the page holding no data is served to anyone."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer.access import new_token, tokened_url
from taurec.evaluator.viewer.app import STATIC, viewer_app
from taurec.evaluator.viewer.data import LogSet

DATA = ["/api/episodes", "/api/episode/ffffffffffffffff", "/api/words"]
PAGE = ["/", *(f"/{name}" for name in STATIC if name)]


def _client(logs, token: str) -> TestClient:
    app = viewer_app(LogSet([logs.out], Resolver(suite=logs.spec)), token)
    return TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)


def test_tokens_are_random_and_long():
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100 and min(map(len, tokens)) >= 43


def test_the_printed_address_carries_the_token_in_its_fragment_which_no_browser_sends():
    token = new_token()
    url = tokened_url("http://127.0.0.1:8765/", token)
    assert url == f"http://127.0.0.1:8765/#token={token}"
    assert "?" not in url


@pytest.mark.parametrize("path", DATA)
def test_a_request_for_data_without_the_token_is_403_and_carries_no_data(logs, path):
    logs.run({"ta": 1}, trials=1)
    response = _client(logs, new_token()).get(path)
    assert response.status_code == 403
    assert "ta" not in response.text.split() and "agentA" not in response.text


@pytest.mark.parametrize("path", DATA)
def test_the_token_opens_nothing_in_a_cookie_or_the_query_only_in_the_header(logs, path):
    """What another port's server gets from a browser (its cookies for 127.0.0.1, any
    address it saw) opens nothing: only the header the page itself sends does."""
    logs.run({"ta": 1}, trials=1)
    token = new_token()
    client = _client(logs, token)
    assert client.get(path, params={"token": token}).status_code == 403
    for name in ("token", "taurec-viewer", "session"):
        client.cookies.set(name, token)
    assert client.get(path).status_code == 403
    client.cookies.clear()
    assert client.get(path, headers={"Authorization": f"token {new_token()}"}).status_code == 403
    good = client.get(path, headers={"Authorization": f"Bearer {token}"}).status_code
    assert good == (404 if "ffff" in path else 200)


def test_the_token_in_the_header_reads_the_list(logs):
    logs.run({"ta": 1}, trials=1)
    token = new_token()
    client = _client(logs, token)
    for scheme in ("Bearer", "token"):
        listed = client.get("/api/episodes", headers={"Authorization": f"{scheme} {token}"})
        assert listed.status_code == 200
        assert [r["task"] for r in listed.json()["rows"]] == ["ta"]


@pytest.mark.parametrize("path", PAGE)
def test_the_page_holds_no_data_and_no_response_sets_a_cookie(logs, path):
    logs.run({"ta": 1}, trials=1)
    token = new_token()
    client = _client(logs, token)
    for response in (
        client.get(path),
        client.get(path, params={"token": token}),
        client.get("/api/episodes", headers={"Authorization": f"Bearer {token}"}),
    ):
        assert response.status_code == 200
        assert "set-cookie" not in response.headers
    page = client.get(path).text
    assert "agentA" not in page and token not in page
