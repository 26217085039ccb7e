"""Clients we did not write: the MCP Inspector CLI and the MCP conformance suite.

The slow tests install the pinned Node tools into .tools/ once (scripts/tools.sh; about
20 s the first time) and are skipped, saying why, where npm or the registry is missing.
The rest need no Node: the expected-failures comparison, and the DNS-rebinding guard of
`taurec serve --transport http` that the conformance suite also checks.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx
import pytest
from support.hang_guard import HANG_GUARD_S
from support.http_server import http_server as serve_http

from taurec.server.app import build_server
from taurec.server.settings import ServerSettings

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
SERVE = [sys.executable, "-m", "taurec.clients.cli.serve"]
TOOLS_UNAVAILABLE = 3  # scripts/tools.sh: npm missing or the install failed


def _script_env() -> dict[str, str]:
    return {**os.environ, "TAUREC_PYTHON": sys.executable}


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@pytest.fixture(scope="module")
def node_tools() -> dict[str, str]:
    """NODE, INSPECTOR_JS, CONFORMANCE_JS: installed into .tools/ on first use."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed; the scripts need it")
    done = subprocess.run(
        ["bash", str(SCRIPTS / "tools.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        env=_script_env(),
    )
    if done.returncode == TOOLS_UNAVAILABLE:
        pytest.skip(f"the Node tools cannot be installed here:\n{_tail(done.stderr)}")
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def _tool_names(log_dir: Path) -> list[str]:
    async def names() -> list[str]:
        server = build_server(ServerSettings(log_dir=log_dir))
        return [tool.name for tool in await server.list_tools()]

    return anyio.run(names)


# --- the MCP Inspector CLI -----------------------------------------------------------------


@pytest.mark.slow
def test_the_inspector_lists_every_tool_over_stdio(
    node_tools: dict[str, str], tmp_path: Path
) -> None:
    command = [node_tools["NODE"], node_tools["INSPECTOR_JS"], "--cli", "--format", "json"]
    command += ["--method", "tools/list", "--", *SERVE, "--log-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)["result"]["tools"]
    assert [tool["name"] for tool in tools] == _tool_names(tmp_path)
    for tool in tools:
        assert tool["description"] and tool["inputSchema"]["type"] == "object", tool["name"]
        assert tool["outputSchema"]["type"] == "object", tool["name"]


@pytest.mark.slow
def test_the_inspector_script_calls_tools_over_http(node_tools: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", str(SCRIPTS / "inspector.sh"), "http"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=_script_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert sum(line.startswith("ok    http ") for line in done.stdout.splitlines()) == 3
    assert "episode " in done.stdout and "of t001" in done.stdout


# --- the MCP conformance suite -------------------------------------------------------------


@pytest.mark.slow
def test_the_conformance_suite_fails_only_the_expected_scenarios(
    node_tools: dict[str, str],
) -> None:
    done = subprocess.run(
        ["bash", str(SCRIPTS / "conformance.sh")],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=_script_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for scenario in ("server-initialize", "ping", "tools-list", "resources-list", "prompts-list",
                     "dns-rebinding-protection", "server-sse-multiple-streams"):  # fmt: skip
        assert f"pass             {scenario} " in done.stdout, scenario
    assert " 0 unexpected " in done.stdout


def _load_compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "conformance_compare", SCRIPTS / "conformance_compare.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results(tmp_path: Path, statuses: dict[str, list[str]]) -> Path:
    results = tmp_path / "results"
    for scenario, checks in statuses.items():
        folder = results / f"server-{scenario}-2026-01-02T03-04-05-678Z"
        folder.mkdir(parents=True)
        records: list[dict[str, Any]] = [
            {"id": f"{scenario}-{k}", "status": status, "errorMessage": "boom"}
            for k, status in enumerate(checks)
        ]
        (folder / "checks.json").write_text(json.dumps(records))
    return results


@pytest.mark.parametrize(
    ("statuses", "expected", "code", "shown"),
    [
        ({"ping": ["SUCCESS"], "prompts-get-simple": ["FAILURE"]}, "prompts-get-simple  demo",
         0, "1 passed, 1 expected failures, 0 unexpected"),
        ({"ping": ["SUCCESS", "WARNING"], "tools-list": ["INFO", "SUCCESS"]}, "",
         0, "2 passed, 0 expected failures"),
        ({"ping": ["SUCCESS", "FAILURE"]}, "", 1, "UNEXPECTED FAIL  ping: ping-1: boom"),
        ({"ping": ["SUCCESS"]}, "ping  flaky", 1, "UNEXPECTED PASS  ping"),
        ({"ping": ["SUCCESS"]}, "gone-scenario  renamed", 1, "DID NOT RUN      gone-scenario"),
    ],
)  # fmt: skip
def test_the_comparison_flags_unexpected_failures_and_passes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    statuses: dict[str, list[str]],
    expected: str,
    code: int,
    shown: str,
) -> None:
    compare = _load_compare()
    listed = tmp_path / "listed.txt"
    listed.write_text("Server scenarios:\n" + "".join(f"  - {s} [x]\n" for s in statuses))
    (tmp_path / "expected.txt").write_text(f"# comment\n\n{expected}\n")
    args = [str(_results(tmp_path, statuses)), str(tmp_path / "expected.txt")]
    assert compare.main([*args, "--scenarios", str(listed)]) == code
    assert shown in capsys.readouterr().out


def test_the_comparison_refuses_an_expected_failure_without_a_reason(tmp_path: Path) -> None:
    compare = _load_compare()
    (tmp_path / "expected.txt").write_text("ping\n")
    results = _results(tmp_path, {"ping": ["FAILURE"]})
    assert compare.main([str(results), str(tmp_path / "expected.txt")]) == 2


def test_the_expected_failures_file_gives_a_reason_for_each_scenario() -> None:
    compare = _load_compare()
    expected = compare.read_expected(ROOT / "conformance" / "expected-failures.txt")
    generic = {"server-initialize", "ping", "tools-list", "resources-list", "prompts-list",
               "dns-rebinding-protection", "server-sse-multiple-streams"}  # fmt: skip
    assert expected and not generic & set(expected)


# --- DNS-rebinding protection on loopback (the conformance scenario, without Node) ---------


@pytest.fixture(scope="module")
def http_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with serve_http(tmp_path_factory.mktemp("rebinding-logs")) as port:
        yield port


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "rebinding-test", "version": "0"},
    },
}


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.1:{port}", None, 200),
        ("localhost:{port}", "http://localhost:{port}", 200),
        ("evil.example.com", None, 421),
        ("evil.example.com:{port}", "http://evil.example.com", 421),
        ("127.0.0.1:{port}", "http://evil.example.com", 403),
        ("127.0.0.1:{port}", "https://127.0.0.1.evil.example.com", 403),
    ],
)
def test_http_on_loopback_refuses_foreign_host_and_origin_headers(
    http_port: int, host: str, origin: str | None, status: int
) -> None:
    headers = {
        "Host": host.format(port=http_port),
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    if origin is not None:
        headers["Origin"] = origin.format(port=http_port)
    response = httpx.post(
        f"http://127.0.0.1:{http_port}/mcp", json=INITIALIZE, headers=headers, timeout=HANG_GUARD_S
    )
    assert response.status_code == status, response.text
