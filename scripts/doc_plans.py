"""What the doc walk does with each documented command: run it, serve it, or skip it and why.

`plan()` decides from the command's text alone (an API key, a placeholder, the network,
a Ray cluster, another machine, a person at the terminal, a development check; install
steps this venv has already done are dropped); `blocked()` adds what only the working
folder can tell: a missing input, the output of a command that was skipped or failed, a
server the block did not start. Standard library only.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from doc_commands import Command

SAFE_MODELS = {"mock", "scripted", "function"}  # function: pydantic-ai's scripted FunctionModel
#: taurec mock-llm's stand-in model, as Inspect's provider names it and as pydantic-ai
#: reaches an OpenAI-compatible endpoint (with the dummy key `none`)
SAFE_MODELS |= {"taurec/scripted", "openai-chat:scripted"}
#: A key given the dummy value `none` in the command (what the stand-in takes).
DUMMY_KEY = re.compile(r"\b[A-Z]+_API_KEY=none\b")
MODEL_OPTIONS = ("--model", "--simulator-model", "--nlg-model", "--nlu-model", "--judge-model")
LLM_USERS = {"llm", "llm-sp", "llm-dp"}
OUTPUT_OPTIONS = ("--out", "--log-dir", "-o", "--output", "--suite-out", "--bundle")
DATA_SUFFIXES = (".json", ".jsonl", ".py", ".parquet", ".csv", ".taurec-catalog", ".html")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "0.0.0.0"}
URL = re.compile(r"https?://(\[[^\]]+\]|[^/:\s'\"]+)(?::(\d+))?")
SERVER = re.compile(
    r"(?:^|[\s/])(?:taurec\s+(serve|crs-demo|a2a-demo|mock-llm)|evaluator\s+(view))\b"
)
SERVER_PORTS = {"serve": 8000, "crs-demo": 5005, "a2a-demo": 9999, "mock-llm": 8001}
UPPER_WORD = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9]$")
#: Commands that take minutes; `--quick` skips them (seconds measured on 2 shared cores).
SLOW = (
    (re.compile(r"--n 1000000\b|\b1000000\b"), "a 1M-item catalog"),
    (re.compile(r"(?:^|\s)python3? bench/"), "a benchmark"),
)


@dataclass(frozen=True)
class Plan:
    """What the walk does with one command: `action` is run, serve or skip."""

    action: str
    code: str = ""
    reason: str = ""  # a skip's category, grouped in the summary
    detail: str = ""
    slow: str = ""
    port: int | None = None  # a server's port; None: stdio, or the port it prints
    stdio: bool = False
    needs_ports: tuple[int, ...] = ()
    outputs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Facts:
    """What the environment holds, passed in so that `plan()` stays a function."""

    installed: Callable[[str], bool]
    extras: dict[str, list[str]] = field(default_factory=dict)
    project: str = "taurec"
    script_text: Callable[[str], str | None] = lambda path: None


def shell_words(code: str) -> list[str]:
    try:
        return shlex.split(code)
    except ValueError:
        return code.split()


def _option(tokens: list[str], names: tuple[str, ...]) -> list[str]:
    values = []
    for i, token in enumerate(tokens):
        name, equals, value = token.partition("=")
        if name in names and equals:
            values.append(value)
        elif token in names and i + 1 < len(tokens):
            values.append(tokens[i + 1])
    return values


def _path(token: str) -> str:
    return re.sub(r"^\./", "", token).rstrip("/") or token


def outputs(tokens: list[str]) -> list[str]:
    found = _option(tokens, OUTPUT_OPTIONS)
    for i, token in enumerate(tokens):
        if token in (">", ">>") and i + 1 < len(tokens):
            found.append(tokens[i + 1])
        elif re.match(r"^>>?[^>&]", token):
            found.append(token.lstrip(">"))
    return [_path(token) for token in found]


def inputs(tokens: list[str], made: list[str]) -> list[str]:
    """Tokens that name a file or folder the command reads: with a `/` or a data suffix."""
    found = []
    for token in tokens:
        if token.startswith("-") or re.search(r"[$<>*`]|://|^\d", token):
            continue
        token = re.sub(r"^[\w-]+:(?=[\w.~-]*/)", "", token)  # tau-rec:path, movielens:path
        token = re.sub(r"(\.py):\w+$", r"\1", token)  # file.py:Class
        if ("/" in token or token.endswith(DATA_SUFFIXES)) and _path(token) not in made:
            found.append(_path(token))
    return found


def _placeholder(code: str, tokens: list[str]) -> str:
    for pattern in (r"path/to/", "…", r"<[A-Za-z][^<>]*>"):
        if match := re.search(pattern, code):
            return match.group(0)
    for token in tokens:
        if "..." in token or re.fullmatch(r"\[[\w-]+\]", token):
            return token
        if "$" in token:
            continue
        value = token.partition("=")[2] if re.match(r"^\w+=", token) else token
        for part in re.split(r"[/:=,@\s\[\]]", value):
            if UPPER_WORD.match(part):
                return part
    return ""


def _model_needing_a_key(tokens: list[str]) -> str:
    if "--dry-run" in tokens:
        return ""
    for model in _option(tokens, MODEL_OPTIONS):
        if model not in SAFE_MODELS:
            return f"model {model}"
    users = [user for user in _option(tokens, ("--simulator",)) if user in LLM_USERS]
    if users and not _option(tokens, ("--simulator-model",)):
        return f"--simulator {users[0]} with its default model"
    return ""


def _requirement(token: str, facts: Facts) -> tuple[str, list[str]]:
    name, _, rest = re.sub(r"^\.(?=$|\[)", facts.project, token).partition("[")
    extras = rest.split("]")[0].split(",") if rest else []
    return re.split(r"[<>=!~;\s]", name)[0], [extra.strip() for extra in extras if extra.strip()]


def _satisfied(token: str, facts: Facts, seen: frozenset[str] = frozenset()) -> bool:
    name, extras = _requirement(token, facts)
    if not facts.installed(name):
        return False
    for extra in extras:
        if extra in seen:
            continue
        needed = facts.extras.get(extra)
        if needed is None or not all(_satisfied(r, facts, seen | {extra}) for r in needed):
            return False
    return True


def _install(part: str, facts: Facts) -> bool | None:
    """None: `part` installs nothing; else whether what it installs is already here."""
    tokens = shell_words(part)
    if re.fullmatch(r"python3?\s+-m\s+venv\s+\S+", part.strip()):
        return True
    if "install" not in tokens or not re.search(r"(^|/)pip3?$|^python3?$", tokens[0]):
        return None
    wanted = [t for t in tokens[tokens.index("install") + 1 :] if not t.startswith("-")]
    return all(_satisfied(token, facts) for token in wanted)


def _strip_installs(code: str, facts: Facts) -> tuple[str, Plan | None]:
    """The command without leading install steps this venv already has done (or why to skip)."""
    parts = re.split(r"\s*&&\s*", code)
    installs = []
    while parts and (done := _install(parts[0], facts)) is not None:
        installs.append(done)
        parts.pop(0)
    if installs and not all(installs):
        return code, Plan("skip", reason="needs the network", detail="installs packages")
    if installs and not parts:
        return code, Plan("skip", reason="installs into the venv", detail="already done here")
    return " && ".join(parts), None


def plan(command: Command, facts: Facts) -> Plan:
    """Run, serve or skip `command`, from its text alone."""
    code, skipped = _strip_installs(command.code, facts)
    if skipped:
        return skipped
    tokens = shell_words(code)
    made = outputs(tokens)
    models = set(_option(tokens, MODEL_OPTIONS))
    read = tuple(path for path in inputs(tokens, made) if path not in models)
    skip = _skip(code, tokens, command.comment, facts)
    if skip:
        return Plan("skip", code, *skip, outputs=tuple(made))
    server = SERVER.search(code)
    if server and "--bundle" not in tokens:
        kind = server.group(1) or server.group(2)
        stdio = kind == "serve" and "http" not in _option(tokens, ("--transport",))
        port = int((_option(tokens, ("--port",)) or [SERVER_PORTS.get(kind, 0)])[0])
        return Plan("serve", code, port=None if stdio else port or None, stdio=stdio, inputs=read)
    return Plan(
        "run",
        code,
        slow=next((why for pattern, why in SLOW if pattern.search(code)), ""),
        needs_ports=tuple(int(p) for host, p in _reached(tokens) if host in LOCAL_HOSTS and p),
        outputs=tuple(made),
        inputs=read,
    )


def _reached(tokens: list[str]) -> list[tuple[str, str]]:
    """(host, port) of the URLs a command connects to: not those of an option such as
    `--viewer URL`, which only writes the address down (`--url`, `--crs-url` connect)."""
    found = []
    for before, token in zip(["", *tokens], tokens, strict=False):
        if not before.startswith("-") or before.endswith("url"):
            found += URL.findall(token)
    return found


def _skip(code: str, tokens: list[str], comment: str, facts: Facts) -> tuple[str, str] | None:
    """(category, detail) of why `code` cannot run offline on this machine, or None."""
    program = tokens[0] if tokens else ""
    if re.search(r"(^|[\s;|&{(])ray\s", code) or "ray" in _option(tokens, ("--backend",)):
        return "needs a Ray cluster", "ray"
    if re.search(r"\bclaude\b", program):
        return "needs Claude Desktop", program
    if key := re.search(r"\b[A-Z]+_API_KEY\b", DUMMY_KEY.sub("", code) + " " + comment):
        return "needs an API key", key.group(0)
    if model := _model_needing_a_key(tokens):
        return "needs an API key", model
    if found := _placeholder(code, tokens):
        return "a placeholder to fill in", found
    fetcher = re.search(r"(?:^|[\s;|&{(])(npx|npm|curl|wget|git clone)\b", code)
    scripts = [t for t in tokens if t.endswith(".sh") and facts.script_text(t)]
    fetching = [
        t for t in scripts if re.search(r"\bnpx|\bnpm|tools\.sh", facts.script_text(t) or "")
    ]
    if fetcher or fetching:
        return "needs the network", fetcher.group(1) if fetcher else fetching[0]
    for host, _ in _reached(tokens):
        if host not in LOCAL_HOSTS:
            return "talks to another machine", host
    if re.search(r"(?:^|[\s/])taurec\s+play\b", code):
        return "interactive", "a person plays in the terminal"
    checks = r"\b(pytest|ruff|mypy|typecheck\.sh|bench/suite_time\.py|walk_docs\.py)\b"
    if dev := re.search(checks, code):
        return "a development check", dev.group(1)
    return None


def blocked(
    step: Plan,
    exists: Callable[[str], bool],
    importable: Callable[[str], bool],
    missing_from: dict[str, str],
    ports: set[int],
) -> tuple[str, str] | None:
    """(category, detail) of why `step` cannot run here and now, or None.

    `missing_from` maps a path to the command that should have made it (skipped or
    failed); `ports` are the ports of the servers this block has running.
    """
    for token in shell_words(step.code):
        path = _path(re.sub(r"^[\w-]+:", "", token))
        made_by = missing_from.get(path) or missing_from.get(_path(token))
        if made_by and not exists(_path(token)) and not exists(path):
            return "needs what an earlier command did not make", f"{_path(token)} ({made_by})"
        module = re.fullmatch(r"(?!.*\.py:)([a-z_]\w*)(?:\.\w+)*:[A-Z]\w*", token)
        if module and not importable(module.group(1)):
            return "needs a file the reader writes", module.group(0)
    for path in step.inputs:
        if not exists(path):
            if path.endswith(".py") and "/" not in path:
                return "needs a file the reader writes", path
            if not exists(path.split("/")[0] or path):
                return "needs data not in the checkout", path
    for port in step.needs_ports:
        if port not in ports:
            return "needs a server the block does not start", f"port {port}"
    return None
