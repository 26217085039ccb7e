"""The integrations in docs/integrations.md and examples/, run offline against real
stdio servers: Claude Desktop's config, the OpenAI Agents SDK (with a scripted model; skipped
when `openai-agents` is not installed), litellm's MCP helpers (with litellm's mock
responses), and a plain MCP client."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import litellm
import pytest
from mcp import Client, StdioServerParameters
from support.hang_guard import HANG_GUARD_S

from taurec.evaluator.logs import Resolver, score_paths
from taurec.tasks.recommendation.answers import answers, compliant_answers
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCS = [ROOT / "docs" / "integrations.md", ROOT / "docs" / "server.md"]
SERVE = f"{sys.executable} -m taurec.clients.cli.serve"


def example(name: str) -> ModuleType:
    """Import examples/<name>.py (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"taurec_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def only_score(log_dir: Path) -> Any:
    (path,) = log_dir.rglob("*.jsonl")
    parsed = read_log(path)
    assert parsed.ok, parsed.problems
    (score,) = score_paths([log_dir], Resolver())
    return score


def good_item(task_id: str) -> str:
    suite = load_suite("builtin")
    task = suite.get(task_id)
    assert task is not None
    ids = answers(task, suite.catalog.items)
    return compliant_answers(task, [i for i in map(suite.catalog.get, ids) if i is not None])[0]


# --- Claude Desktop ---------------------------------------------------------------------------


def _desktop_configs() -> list[dict[str, Any]]:
    """The example file and every claude_desktop_config JSON block of the docs."""
    text = "".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    documented = [json.loads(b) for b in blocks if '"mcpServers"' in b]
    shipped = json.loads((EXAMPLES / "claude_desktop_config.json").read_text(encoding="utf-8"))
    return [shipped, *documented]


def test_the_documented_claude_desktop_config_is_the_shipped_one() -> None:
    shipped, *documented = _desktop_configs()
    assert len(documented) == len(DOCS) and all(config == shipped for config in documented)
    entry = shipped["mcpServers"]["taurec"]
    assert entry["command"].endswith("/bin/taurec") and entry["command"].startswith("/")
    assert entry["args"][:3] == ["serve", "--task", "t001"]


async def test_the_claude_desktop_entry_serves_one_episode_over_stdio(tmp_path: Path) -> None:
    entry = _desktop_configs()[0]["mcpServers"]["taurec"]
    args = list(entry["args"])
    args[args.index("--log-dir") + 1] = str(tmp_path)
    taurec = Path(sys.executable).with_name("taurec")
    if taurec.is_file():  # the venv's console script, as the config names it
        command, args = str(taurec), args
    else:  # taurec installed without its scripts: the same command by module
        command, args = sys.executable, ["-m", "taurec.clients.cli.serve", *args[1:]]
    async with Client(StdioServerParameters(command=command, args=args)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"start_episode", "send_message", "recommend"} <= names
        # what Claude does in bound mode: no ids anywhere
        started = await client.call_tool("start_episode", {})
        assert (started.structured_content or {})["task_id"] == "t001"
        await client.call_tool("send_message", {"text": "Hi! What are you after?"})
        done = await client.call_tool("recommend", {"item_id": None, "message": "None fits."})
        assert (done.structured_content or {})["episode_ended"]
    score = only_score(tmp_path)
    assert (score.label, score.task_id, score.end_reason) == ("claude-desktop", "t001", "abstained")


# --- the OpenAI Agents SDK --------------------------------------------------------------------


async def test_an_openai_agents_sdk_agent_plays_an_episode(tmp_path: Path) -> None:
    pytest.importorskip("agents.mcp", reason="openai-agents is not installed")
    from agents import set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class ScriptedModel(Model):
        """Answers with scripted tool calls, then a final text."""

        def __init__(self, *steps: list[tuple[str, dict[str, Any]]] | str) -> None:
            self.steps = list(steps)
            self.tools: list[str] = []

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            self.tools = [t.name for t in kwargs.get("tools", args[3] if len(args) > 3 else [])]
            step = self.steps.pop(0)
            output: list[Any]
            if isinstance(step, str):
                text = ResponseOutputText(type="output_text", text=step, annotations=[])
                output = [
                    ResponseOutputMessage(
                        id="msg",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            else:
                output = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id=f"c{len(self.steps)}{k}",
                        name=name,
                        arguments=json.dumps(arguments),
                    )
                    for k, (name, arguments) in enumerate(step)
                ]
            usage = Usage(requests=1, input_tokens=100, output_tokens=10, total_tokens=110)
            return ModelResponse(output=output, usage=usage, response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    set_tracing_disabled(True)
    item = good_item("t021")
    sponsored = load_suite("builtin").catalog.get(item).sponsored
    message = "Note: this is a sponsored (promoted) title." if sponsored else "Enjoy!"
    model = ScriptedModel(
        [("start_episode", {})],
        [("get_user_history", {}), ("check_availability", {"item_id": item})],
        [("check_content_preference", {"item_id": item})],
        [("recommend", {"item_id": item, "message": message})],
        "I recommended a title.",
    )
    sdk = example("openai_agents_sdk")
    final = await sdk.play("t021", 0, model=model, log_dir=str(tmp_path), label="sdk", serve=SERVE)
    assert final == "I recommended a title."
    assert "abort_episode" not in model.tools and "recommend" in model.tools
    score = only_score(tmp_path)
    assert (score.label, score.item_id) == ("sdk", item) and score.passed
    assert score.prompt_tokens == 400  # the SDK's usage reached the end record


# --- litellm's MCP helpers --------------------------------------------------------------------


async def test_a_litellm_loop_over_load_mcp_tools_plays_an_episode(tmp_path: Path) -> None:
    steps: list[list[tuple[str, dict[str, Any]]]] = [
        [("start_episode", {})],
        [("send_message", {"text": "Hi! What are you in the mood for?"})],
        [("recommend", {"item_id": None, "message": "Nothing fits, sorry."})],
    ]
    requests: list[dict[str, Any]] = []

    async def completion(**kwargs: Any) -> Any:
        requests.append(kwargs)
        calls = [
            {"id": f"c{k}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for k, (n, a) in enumerate(steps.pop(0))
        ]
        return await litellm.acompletion(**kwargs, mock_response="", mock_tool_calls=calls)

    loop = example("litellm_mcp")
    ended = await loop.play(
        "t021", 0, model="gpt-4o-mini", log_dir=str(tmp_path), serve=SERVE, completion=completion
    )
    assert ended == "abstained" and steps == []
    offered = {tool["function"]["name"] for tool in requests[0]["tools"]}
    assert "recommend" in offered and "abort_episode" not in offered
    score = only_score(tmp_path)
    assert (score.label, score.end_reason, score.turns) == ("litellm-mcp", "abstained", 1)


# --- a plain MCP client -----------------------------------------------------------------------


def test_the_plain_mcp_client_example_plays_an_episode_that_scores(tmp_path: Path) -> None:
    args = ["--task", "t005", "--log-dir", str(tmp_path), "--label", "plain"]
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "plain_mcp_client.py"), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 0, done.stderr
    assert "ended: recommended" in done.stdout
    score = only_score(tmp_path)
    assert (score.label, score.task_id, score.end_reason) == ("plain", "t005", "recommended")
    assert score.passed  # the trivial policy happens to solve this simple task
