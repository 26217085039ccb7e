"""What stops a framework example ends it with one line naming what is wrong and what to
do, never a traceback: a task the server does not have, a server command that does not
exist, an HTTP server that is not there, a framework that is not installed, a model
provider that fails (its episode then ends as infra_error). All offline: the failing
provider is a closed loopback port."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.example_runs import one_line_error, only_score, run_example
from support.http_server import free_port

#: Each example with the flag that plays it offline.
OFFLINE = {
    "litellm_mcp.py": ["--model", "mock"],
    "openai_agents_sdk.py": ["--model", "scripted"],
    "pydantic_ai_mcp.py": ["--model", "function"],
}
#: The framework each example imports (skipped where it is not installed).
FRAMEWORK = {
    "litellm_mcp.py": "litellm",
    "openai_agents_sdk.py": "agents.mcp",
    "pydantic_ai_mcp.py": "pydantic_ai.mcp",
}
#: `python -c` code that makes a package look uninstalled ({name}: its top-level module).
HIDE = """
import sys
class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {name!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hidden())
"""


def _needs(name: str) -> None:
    pytest.importorskip(FRAMEWORK[name], reason=f"{FRAMEWORK[name]} is not installed")


@pytest.mark.parametrize("name", ["litellm_mcp.py", "openai_agents_sdk.py"])
def test_a_bound_server_that_will_not_start_ends_the_example_after_its_own_message(
    name: str, tmp_path: Path
) -> None:
    _needs(name)
    done = run_example(name, *OFFLINE[name], "--task", "t999", cwd=tmp_path)
    last = one_line_error(done)
    assert last.startswith("error: the taurec server stopped before the episode ended (`")
    server_said = done.stderr.strip().splitlines()[-2]
    assert "task 't999' is not in suite 'builtin'" in server_said


def test_a_task_the_server_refuses_ends_the_pydantic_ai_example_in_the_servers_words(
    tmp_path: Path,
) -> None:
    _needs("pydantic_ai_mcp.py")
    args = [*OFFLINE["pydantic_ai_mcp.py"], "--task", "t999"]
    done = run_example("pydantic_ai_mcp.py", *args, cwd=tmp_path)
    assert one_line_error(done) == (
        "error: the server would not start the episode: argument 'task_id': expected a task id "
        "from list_tasks (e.g. t001, t002, t003), got 't999'"
    )


@pytest.mark.parametrize("name", ["litellm_mcp.py", "openai_agents_sdk.py"])
def test_a_server_command_that_does_not_exist_is_named(name: str, tmp_path: Path) -> None:
    _needs(name)
    done = run_example(name, *OFFLINE[name], "--serve", "no-such-taurec-command", cwd=tmp_path)
    assert one_line_error(done) == (
        "error: cannot start the taurec server: FileNotFoundError: [Errno 2] No such file or "
        "directory: 'no-such-taurec-command'"
    )


def test_an_http_server_that_is_not_there_says_how_to_start_one(tmp_path: Path) -> None:
    _needs("pydantic_ai_mcp.py")
    url = f"http://127.0.0.1:{free_port()}/mcp"
    done = run_example("pydantic_ai_mcp.py", "--model", "function", "--url", url, cwd=tmp_path)
    assert one_line_error(done) == (
        f"error: no taurec server answers at {url}; start one with: taurec serve --transport http"
    )


@pytest.mark.parametrize(
    ("name", "module", "install"),
    [
        ("openai_agents_sdk.py", "agents", 'pip install "openai-agents>=0.20,<0.21"'),
        ("pydantic_ai_mcp.py", "pydantic_ai", 'pip install "pydantic-ai-slim[mcp,openai]'),
    ],
)
def test_a_framework_that_is_not_installed_is_named_with_its_install_line(
    name: str, module: str, install: str, tmp_path: Path
) -> None:
    prelude = HIDE.format(name=module)
    done = run_example(name, *OFFLINE[name], cwd=tmp_path, prelude=prelude)
    last = one_line_error(done)
    assert last.startswith(f"error: ModuleNotFoundError: No module named '{module}")
    assert install in last


@pytest.mark.parametrize(
    ("name", "args", "offline"),
    [
        ("litellm_mcp.py", ["--model", "openai/gpt-4o-mini"], "--model mock"),
        ("openai_agents_sdk.py", [], "--model scripted"),
        ("pydantic_ai_mcp.py", [], "--model function"),
    ],
)
def test_a_provider_that_fails_ends_the_example_with_one_line(
    name: str, args: list[str], offline: str, tmp_path: Path
) -> None:
    _needs(name)
    closed = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: the provider "fails"
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": closed}
    done = run_example(name, *args, "--log-dir", "logs", cwd=tmp_path, env=env)
    last = one_line_error(done)
    assert done.stderr.strip().splitlines() == [last]  # nothing else, not the SDK's own lines
    assert last.startswith("error: the model failed: ")
    assert last.endswith(
        f"check the model name, its key and the network, or play offline with {offline}"
    )
    if name == "pydantic_ai_mcp.py":  # its harness had started the episode: the log says why
        assert only_score(tmp_path / "logs").end_reason == "infra_error"
