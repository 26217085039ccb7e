"""The line a framework example ends with (clients/frameworks/mcp_examples.py): what
stopped it, told by the kind of error, and where its episode's log is."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.clients.frameworks.mcp_examples import (
    Stopped,
    find_log,
    run,
    score_line,
    why_stopped,
)

HINTS = {"server_down": "the server is gone", "offline": "--model mock", "install": "pip it"}


def _provider_error(module: str, name: str = "APIConnectionError") -> Exception:
    cls = type(name, (Exception,), {"__module__": module})
    return cls("Connection error.\nmore detail")


def test_a_stopped_example_says_its_own_line_even_inside_exception_groups() -> None:
    nested = ExceptionGroup("outer", [ExceptionGroup("inner", [Stopped("the task is gone")])])
    assert why_stopped(nested, **HINTS) == "the task is gone"


@pytest.mark.parametrize(
    "error",
    [
        _provider_error("openai._exceptions"),
        _provider_error("litellm.exceptions", "RateLimitError"),
        _provider_error("pydantic_ai.exceptions", "ModelHTTPError"),
    ],
)
def test_a_provider_error_blames_the_model_and_names_the_offline_flag(error: Exception) -> None:
    line = why_stopped(error, **HINTS)
    assert line == (
        f"the model failed: {type(error).__name__}: Connection error.; check the model name, "
        "its key and the network, or play offline with --model mock"
    )


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("Connection closed"),
        ConnectionResetError(),
        RuntimeError("Client failed to connect: x"),
    ],
)
def test_a_server_that_went_away_gets_the_examples_own_line(error: Exception) -> None:
    assert why_stopped(error, **HINTS) == "the server is gone"


def test_a_server_command_that_is_not_there_is_named() -> None:
    error = FileNotFoundError(2, "No such file or directory")
    assert why_stopped(error, **HINTS).startswith("cannot start the taurec server: FileNotFound")


def test_a_missing_package_comes_with_the_install_line() -> None:
    error = ModuleNotFoundError("No module named 'agents'", name="agents")
    assert why_stopped(error, **HINTS) == (
        "ModuleNotFoundError: No module named 'agents'; the example needs its framework: pip it"
    )


def test_any_other_error_is_one_line_pointing_at_traceback() -> None:
    assert why_stopped(ValueError("bad\nworse"), **HINTS) == (
        "ValueError: bad (run again with --traceback to see where)"
    )


def test_run_ends_an_error_with_one_line_and_exit_status_1() -> None:
    async def broken() -> None:
        raise Stopped("nothing to play")

    with pytest.raises(SystemExit) as stop:
        run(broken, **HINTS)
    assert stop.value.code == "error: nothing to play"  # sys.exit(str): printed, status 1


def test_run_shows_the_traceback_when_asked() -> None:
    async def broken() -> None:
        raise ValueError("where?")

    with pytest.raises(ValueError, match="where"):
        run(broken, **HINTS, traceback=True)


def test_an_episodes_log_is_found_by_its_id_or_its_run(tmp_path: Path) -> None:
    log = tmp_path / "run-a" / "t001" / "trial0-0123456789ab.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("")
    (tmp_path / "run-b" / "t001").mkdir(parents=True)
    assert find_log(tmp_path, episode_id="0123456789abcdef") == log
    assert find_log(tmp_path, run_label="run-a") == log
    assert find_log(tmp_path, run_label="run-b") is None
    assert find_log(tmp_path, episode_id="ffffffffffff") is None


def test_without_a_log_the_score_line_says_how_to_score(tmp_path: Path) -> None:
    assert score_line(None, tmp_path) == (
        f"score: no log of this episode under {tmp_path}; score the server's logs with: "
        "evaluator score LOG_DIR"
    )
