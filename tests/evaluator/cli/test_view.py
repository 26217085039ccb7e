"""`evaluator view`: served on loopback, or written as static files (--bundle); its errors."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
from support.hang_guard import HANG_GUARD_S
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.cli.view import redirect_page

runner = CliRunner()


def test_the_bundle_holds_the_page_and_one_data_file_per_episode(logs, tmp_path: Path):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    out = tmp_path / "site"
    result = runner.invoke(app, ["view", str(logs.out), "--suite", logs.spec, "--bundle", str(out)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {
        "index.html",
        "viewer.js",
        "viewer.css",
        "curve.js",
        "runs.js",
        "data",
    }
    assert 'name="taurec-bundle"' in (out / "index.html").read_text()
    data = sorted(p.name for p in (out / "data").iterdir())
    assert data[-2:] == ["episodes.js", "words.js"] and len(data) == 4
    assert all(name.startswith("episode-") for name in data[:-2])


def test_bundle_data_cannot_close_a_script_element(logs, tmp_path: Path):
    path = logs.episode("ta", 0, item="c1")
    lines = path.read_bytes().splitlines()
    first = orjson.loads(lines[1])
    first["text"] = "</script><script>alert(1)</script>"
    lines[1] = orjson.dumps(first)
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "site"
    runner.invoke(app, ["view", str(logs.out), "--suite", logs.spec, "--bundle", str(out)])
    (episode,) = (out / "data").glob("episode-*.js")
    text = episode.read_text()
    assert "</script>" not in text and "\\u003c/script\\u003e" in text


def test_a_file_that_is_not_a_log_is_one_line_and_exit_2(tmp_path: Path):
    readme = tmp_path / "README.md"
    readme.write_text("# hi\n")
    result = runner.invoke(app, ["view", str(readme), "--no-open"])
    assert result.exit_code == 2 and "not an episode log" in result.output


def _one_error_line(result) -> str:
    """The one line a refused `view` wrote on stderr; nothing on stdout (no address)."""
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and result.stdout == "" and len(lines) == 1, result.output
    return lines[0]


def test_a_folder_without_a_log_is_one_line_and_exit_2_and_no_server(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _one_error_line(runner.invoke(app, ["view", str(empty), "--no-open"]))
    assert str(empty) in line and "no taurec episode log" in line


def test_a_folder_of_other_programs_jsonl_files_is_one_line_and_exit_2(tmp_path: Path):
    (tmp_path / "notes.jsonl").write_text('{"note": "not an episode"}\n')
    line = _one_error_line(runner.invoke(app, ["view", str(tmp_path), "--no-open"]))
    assert "no taurec episode log" in line


def test_without_a_folder_logs_is_viewed(logs, tmp_path: Path, monkeypatch):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    monkeypatch.chdir(logs.out.parent)
    assert logs.out.name == "logs"
    result = runner.invoke(app, ["view", "--suite", logs.spec, "--bundle", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "wrote 2 episodes" in result.stderr


def test_without_a_folder_and_no_logs_folder_it_is_one_line_naming_logs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = _one_error_line(runner.invoke(app, ["view", "--no-open"]))
    assert line.startswith("error: logs/: no such folder") and "evaluator view LOGDIR" in line


def test_a_port_in_use_is_one_line_and_exit_2(logs):
    logs.run({"ta": 1}, trials=1)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["view", str(logs.out), "--no-open", "--port", str(port)])
    assert result.exit_code == 2
    assert f"--port {port}: cannot listen" in result.output


def test_a_bundle_path_that_is_a_file_is_refused(logs, tmp_path: Path):
    logs.run({"ta": 1}, trials=1)
    target = tmp_path / "file.txt"
    target.write_text("x")
    result = runner.invoke(app, ["view", str(logs.out), "--bundle", str(target)])
    assert result.exit_code == 2 and "not a folder" in result.output


def test_view_prints_its_tokened_address_and_serves_the_episodes_to_the_token_only(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    command = [
        sys.executable,
        "-c",
        "from taurec.evaluator.cli.main import main; main()",
        "view",
        str(logs.out),
        "--suite",
        logs.spec,
        "--no-open",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        base, _, token = url.partition("#token=")
        assert base.startswith("http://127.0.0.1:") and base.endswith("/") and len(token) >= 43
        header = {"Authorization": f"Bearer {token}"}
        doc = httpx.get(f"{base}api/episodes", headers=header, timeout=HANG_GUARD_S).json()
        assert sorted(r["task"] for r in doc["rows"]) == ["ta", "tb"]
        refused = httpx.get(base + "api/episodes", timeout=HANG_GUARD_S)
        assert refused.status_code == 403 and "rows" not in refused.text
    finally:
        proc.terminate()
        proc.wait(timeout=HANG_GUARD_S)


def test_the_browser_is_opened_on_a_private_page_not_on_the_tokened_address(tmp_path: Path):
    url = "http://127.0.0.1:1/#token=" + "s" * 43
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    page = redirect_page(folder, url)
    assert page.stat().st_mode & 0o077 == 0
    assert f'url={url}"' in page.read_text()
