"""scripts/walk_docs.py runs the docs' shell commands as a newcomer would: it reads each
shell block into commands, skips (saying why) what cannot run offline on one machine,
serves servers until the block ends, and fails on a wrong exit code or a traceback.

The real walk takes minutes; these tests use small documents written here, and one that
runs real `taurec` commands end to end."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import walk_docs  # noqa: E402
from doc_commands import Command, blocks  # noqa: E402
from doc_plans import Facts, Plan, blocked, plan  # noqa: E402

DOC = """# A document

```bash
source .venv/bin/activate   # once per shell
# a comment alone is no command
taurec tasks generate --catalog builtin --n 3 \\
  --out my-suite            # a continued line
for sim in abus rule; do
  taurec run --simulator $sim --log-dir logs/$sim
done
taurec serve --transport http --port 8123 &   # in the background
taurec run --bogus          # exits 2: the option is unknown
evaluator score logs/ --strict   # exit 1 when any log has a problem
```

```python
print("not a shell block")
```

1. Indented, inside a list:

   ```sh
   evaluator report logs/ -o report.html
   ```

```console
$ taurec catalog info \\
> builtin
items: 500
$ evaluator score logs/
```
"""


@pytest.fixture()
def doc(tmp_path: Path) -> list[Command]:
    path = tmp_path / "doc.md"
    path.write_text(DOC)
    return [command for block in blocks(path, "doc.md") for command in block.commands]


def _facts(installed: set[str] = frozenset({"taurec", "ray"})) -> Facts:
    return Facts(installed.__contains__, {"ray": ["ray>=2"], "test": ["taurec[ray]"]})


def _plan(code: str, comment: str = "") -> Plan:
    return plan(Command("doc.md", 1, code, comment), _facts())


def test_only_shell_blocks_are_read_each_command_at_its_line(doc: list[Command]) -> None:
    assert [(c.line, c.code.split()[0]) for c in doc] == [
        (4, "source"),
        (6, "taurec"),
        (8, "for"),
        (11, "taurec"),
        (12, "taurec"),
        (13, "evaluator"),
        (23, "evaluator"),
        (27, "taurec"),
        (30, "evaluator"),
    ]


def test_a_continued_line_and_a_loop_are_one_command_each(doc: list[Command]) -> None:
    assert doc[1].code == "taurec tasks generate --catalog builtin --n 3 --out my-suite"
    assert doc[1].comment == "a continued line"
    assert doc[2].code.splitlines()[-1] == "done"


def test_a_trailing_ampersand_is_a_background_command(doc: list[Command]) -> None:
    assert doc[3].background and doc[3].code == "taurec serve --transport http --port 8123"
    assert not any(c.background for c in doc[:3] + doc[4:])


def test_a_comment_starting_exits_n_documents_the_exit_code(doc: list[Command]) -> None:
    assert (doc[4].exits, doc[0].exits) == ((2,), (0,))


def test_exit_n_when_a_condition_holds_allows_n_or_0(doc: list[Command]) -> None:
    assert doc[5].exits == (0, 1)


def test_exit_n_inside_prose_is_no_annotation(tmp_path: Path) -> None:
    (tmp_path / "d.md").write_text("```bash\ntaurec run   # the exit 2 case is rare\n```\n")
    (command,) = blocks(tmp_path / "d.md", "d.md")[0].commands
    assert command.exits == (0,)


def test_a_console_block_keeps_the_typed_lines_and_drops_the_output(doc: list[Command]) -> None:
    assert [c.code for c in doc[-2:]] == ["taurec catalog info builtin", "evaluator score logs/"]


@pytest.mark.parametrize(
    ("code", "reason", "detail"),
    [
        ("taurec run --agent llm --model openai/gpt-4o-mini", "needs an API key", "model openai/gpt-4o-mini"),
        ("taurec run --simulator llm-sp", "needs an API key", "--simulator llm-sp with its default model"),
        ("taurec run --suite tau-rec:path/to/tau-rec", "a placeholder to fill in", "path/to/"),
        ("evaluator explain logs/…/episode.jsonl", "a placeholder to fill in", "…"),
        ("taurec run --auth-token <the token>", "a placeholder to fill in", "<the token>"),
        ("python bench/task_generation_speed.py FOLDER", "a placeholder to fill in", "FOLDER"),
        ("python bench/log_bytes.py [LOGDIR]", "a placeholder to fill in", "[LOGDIR]"),
        ("npx -y @modelcontextprotocol/inspector --cli", "needs the network", "npx"),
        ("pip install --no-deps dialoguekit", "needs the network", "installs packages"),
        ("ray start --head", "needs a Ray cluster", "ray"),
        ("taurec run --backend ray", "needs a Ray cluster", "ray"),
        ("taurec run --transport http --url http://bench.lan:8000/mcp", "talks to another machine", "bench.lan"),
        ("taurec play --task t001", "interactive", "a person plays in the terminal"),
        (".venv/bin/python -m pytest -q", "a development check", "pytest"),
        (".venv/bin/python scripts/walk_docs.py --quick", "a development check", "walk_docs.py"),
        ("pip install -e '.[test]'", "installs into the venv", "already done here"),
    ],
)  # fmt: skip
def test_a_command_that_cannot_run_offline_is_skipped_saying_why(
    code: str, reason: str, detail: str
) -> None:
    (action, got_reason, got_detail) = (p := _plan(code)).action, p.reason, p.detail
    assert (action, got_reason, got_detail) == ("skip", reason, detail)


def test_the_key_named_in_a_comment_is_enough_to_skip() -> None:
    assert _plan("taurec catalog build-x --out t.json", "needs TMDB_API_KEY").reason == (
        "needs an API key"
    )


@pytest.mark.parametrize(
    "code",
    [
        "taurec run --agent llm --model mock --log-dir logs/mock",
        "taurec run --agent llm --model openai/gpt-4o --dry-run",
        "python examples/openai_agents_sdk.py --model scripted",
        "evaluator judge logs --model mock",
        "export RAY_AUTH_MODE=token",
        'evaluator report a b -o ab.html --title "A against B"',
        "evaluator report logs/ -o report.html --viewer https://example.org/run-7/",
    ],
)
def test_an_offline_command_runs(code: str) -> None:
    assert _plan(code).action == "run"


def test_install_steps_this_venv_has_done_are_dropped_from_the_command() -> None:
    step = _plan("python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/taurec run")
    assert (step.action, step.code) == ("run", ".venv/bin/taurec run")


def test_an_install_of_a_missing_extra_needs_the_network() -> None:
    command = Command("doc.md", 1, "pip install -e '.[test]' && taurec run")
    assert plan(command, _facts({"taurec"})).reason == "needs the network"


@pytest.mark.parametrize(
    ("code", "port", "stdio"),
    [
        ("taurec serve", None, True),
        ("taurec serve --task t001", None, True),
        ("taurec serve --transport http", 8000, False),
        ("taurec serve --transport http --port 8123", 8123, False),
        ("taurec crs-demo --suite crs-suite", 5005, False),
        (".venv/bin/evaluator view logs/", None, False),
        ("evaluator view logs/ --port 8765", 8765, False),
    ],
)
def test_a_server_is_served_on_its_port(code: str, port: int | None, stdio: bool) -> None:
    step = _plan(code)
    assert (step.action, step.port, step.stdio) == ("serve", port, stdio)


def test_a_viewer_bundle_is_a_command_not_a_server() -> None:
    assert _plan("evaluator view logs/ --bundle site/").action == "run"


def test_a_million_item_catalog_is_slow_and_a_small_one_is_not() -> None:
    assert _plan("taurec catalog generate --n 1000000 --out big.jsonl").slow
    assert not _plan("taurec catalog generate --n 1000 --out big.jsonl").slow


def _blocked(code: str, here: set[str], missing: dict[str, str] | None = None, ports=()):  # type: ignore[no-untyped-def]
    return blocked(_plan(code), here.__contains__, here.__contains__, missing or {}, set(ports))


def test_an_agent_file_the_reader_writes_is_skipped_until_it_exists() -> None:
    code = "taurec run --agent my_agents.py:FirstComedy"
    assert _blocked(code, set()) == ("needs a file the reader writes", "my_agents.py")
    assert _blocked(code, {"my_agents.py"}) is None
    assert _blocked("taurec run --agent my_pkg.agents:A", set())[0] == (
        "needs a file the reader writes"
    )


def test_data_outside_the_checkout_is_skipped_but_a_missing_folder_under_logs_runs() -> None:
    assert _blocked("taurec x --biel-scores export/scores.parquet", set()) == (
        "needs data not in the checkout",
        "export/scores.parquet",
    )
    assert _blocked("evaluator explain logs/random/", {"logs"}) is None


def test_what_a_skipped_command_would_have_made_is_missing_for_later_commands() -> None:
    missing = {"logs/gpt": "doc.md:3, skipped"}
    assert _blocked("evaluator score logs/gpt", {"logs"}, missing) == (
        "needs what an earlier command did not make",
        "logs/gpt (doc.md:3, skipped)",
    )
    assert _blocked("evaluator score logs/gpt", {"logs", "logs/gpt"}, missing) is None


def test_a_local_url_needs_a_server_started_by_the_block() -> None:
    code = "taurec run --agent crs --crs-url http://127.0.0.1:5005/"
    assert _blocked(code, set()) == ("needs a server the block does not start", "port 5005")
    assert _blocked(code, set(), ports={5005}) is None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_the_walk_runs_real_commands_serves_a_server_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    (tmp_path / "snippet.md").write_text(
        "```bash\n"
        "taurec catalog info builtin\n"
        f"taurec serve --transport http --port {port} --log-dir played &\n"
        f"taurec run --transport http --url http://127.0.0.1:{port}/mcp --tasks t001"
        " --trials 1 --log-dir played\n"
        "taurec run --agent llm --model openai/gpt-4o-mini   # skipped: needs a key\n"
        "taurec run --bogus   # exits 2: an unknown option is refused\n"
        "```\n"
    )
    code = walk_docs.main([str(tmp_path / "snippet.md"), "--timeout", "120"])
    report = capsys.readouterr().out
    assert code == 0, report
    assert "5 commands: 4 ok, 0 failed, 1 skipped" in report
    assert "skipped, needs an API key: 1" in report


def test_the_walk_fails_on_a_wrong_exit_code_and_on_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.md").write_text(
        "```sh\n"
        "false\n"
        "true   # exits 3\n"
        "python -c \"import sys; sys.stderr.write('Traceback (most recent call last):\\n')\"\n"
        "```\n"
    )
    code = walk_docs.main([str(tmp_path / "bad.md")])
    report = capsys.readouterr().out
    assert code == 1
    assert "3 commands: 0 ok, 3 failed, 0 skipped" in report
    assert "exit 0, documented: 3" in report
    assert "printed a Python traceback (exit 0)" in report


def test_an_unknown_document_is_refused_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        walk_docs.main(["no/such/doc.md"])
    assert stopped.value.code == 2
    assert "no Markdown document 'no/such/doc.md'" in capsys.readouterr().err


def test_one_session_per_document_without_keys_or_network_and_quick_skips_slow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "not for the docs")
    (tmp_path / "session.md").write_text(
        "```bash\n"
        "export GREETING=hi\n"
        "mkdir sub && cd sub\n"
        "```\n\n"
        "```bash\n"
        'test "$GREETING" = hi && test "$(basename "$PWD")" = sub\n'
        'test -z "$MY_SERVICE_TOKEN"\n'
        "python -c \"import os, sys; sys.exit(not os.environ['HTTPS_PROXY'].endswith(':9'))\"\n"
        "python bench/anything.py\n"
        "```\n"
    )
    code = walk_docs.main([str(tmp_path / "session.md"), "--quick"])
    report = capsys.readouterr().out
    assert code == 0, report
    assert "2 blocks, 6 commands: 5 ok, 0 failed, 1 skipped" in report
    assert "skipped, slow (--quick skips it): 1" in report
