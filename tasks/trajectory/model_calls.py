"""Model calls in the trajectory format: the episode's prompt store and a call's fields.

A `model_call` event (format.py) names the messages it sent by one sha256: a *prompt* in
the episode's prompt store, the file beside its log named as the log plus `.prompts`
(`episode_store`: `trial0-1a2b....jsonl.prompts`, not `*.jsonl`, so log discovery never
takes it for a log). Each episode has its own, so no client of a server can fill the
store another client's episodes are read from (one run's store, shared by every client
of an open server, was filled past what readers read by one of them). Logs written before
keep theirs in the run's `prompts.store` (beside its task folders), which readers still
find. The store is JSON Lines, append-only, each entry written once per episode:

    {"sha256": H, "content": <a message, or a list of tool definitions>}
    {"sha256": P, "prompt": {"prefix": P0 or null, "append": [H, ...]}}

H is the sha256 of the content's canonical JSON (`canonical`: keys sorted, no spaces,
UTF-8); P the sha256 of the prompt object's. A prompt is its prefix prompt's messages
followed by `append`, so a conversation that grows by two messages per call adds one
short entry per call, and the system prompt is stored once per episode whatever the
number of calls. The log's hash chain pins each event's P; reading the store
checks every entry against its hash (`read_store`), so an altered store shows as
altered, never as what the model saw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

#: What an episode's prompt store adds to its log's file name.
STORE_SUFFIX: Final = ".prompts"
#: The prompt store's file name in the run's folder, where logs written before each
#: episode had its own keep it (one store for every episode of the run).
STORE_NAME: Final = "prompts.store"
#: How many folders up from a log the store is looked for (its own folder first).
STORE_SEARCH_DEPTH: Final = 3
#: Settings of a call worth logging (the rest, e.g. api keys or bases, never are).
SETTING_KEYS: Final = frozenset(
    {
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "max_completion_tokens",
        "seed",
        "reasoning_effort",
        "presence_penalty",
        "frequency_penalty",
        "stop",
        "n",
        "tool_choice",
    }
)


def canonical(value: Any) -> bytes:
    """The canonical JSON of `value` (sorted keys, no spaces, UTF-8): what is hashed.
    TypeError for a value JSON cannot hold."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:
        raise TypeError(f"not JSON: {exc}") from None


def sha256_of(value: Any) -> str:
    """The sha256 (hex) naming `value` in the store."""
    return hashlib.sha256(canonical(value)).hexdigest()


def prompt_of(prefix: str | None, append: list[str]) -> dict[str, Any]:
    """A prompt entry's object: `prefix`'s messages, then the messages `append` names."""
    return {"prefix": prefix, "append": append}


def call_settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The settings of a litellm call worth logging (SETTING_KEYS, scalars and short lists
    of strings), None values left out."""
    out: dict[str, Any] = {}
    for key in sorted(SETTING_KEYS & kwargs.keys()):
        value = kwargs[key]
        if isinstance(value, bool | int | float | str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            out[key] = value
    return out


def response_fields(response: Any) -> dict[str, Any]:
    """What a litellm response (or anything shaped like one) tells about its call: the
    `output` message, `usage` tokens, `latency_ms` (litellm's own timing) and `cache_hit`;
    fields it does not tell are left out."""
    out: dict[str, Any] = {}
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, KeyError, TypeError):
        message = None
    if message is not None:
        out["output"] = output_message(message)
    usage = getattr(response, "usage", None)
    if usage is not None:
        out["usage"] = {
            "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
        }
    hidden = getattr(response, "_hidden_params", None)
    hidden = hidden if isinstance(hidden, dict) else {}
    took = getattr(response, "_response_ms", None) or hidden.get("_response_ms")
    if isinstance(took, int | float) and not isinstance(took, bool) and took >= 0:
        out["latency_ms"] = round(float(took), 3)
    if isinstance(hidden.get("cache_hit"), bool):
        out["cache_hit"] = hidden["cache_hit"]
    return out


def output_message(message: Any) -> dict[str, Any]:
    """A reply message as plain JSON: role, content and tool calls (name, arguments, id)."""
    out: dict[str, Any] = {"role": "assistant", "content": None}
    content = getattr(message, "content", None)
    if isinstance(content, str):
        out["content"] = content
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        calls.append(
            {
                "id": str(getattr(call, "id", "") or ""),
                "type": "function",
                "function": {
                    "name": str(getattr(function, "name", "") or ""),
                    "arguments": str(getattr(function, "arguments", "") or ""),
                },
            }
        )
    if calls:
        out["tool_calls"] = calls
    return out


def episode_store(log_path: str | Path) -> Path:
    """Where the episode whose log is at `log_path` keeps its prompt store."""
    path = Path(log_path)
    return path.with_name(path.name + STORE_SUFFIX)


def find_store(log_path: str | Path) -> Path | None:
    """The prompt store of the log at `log_path`: its own (`episode_store`), else, for a
    log written before each episode had one, the nearest STORE_NAME in its folder or up to
    STORE_SEARCH_DEPTH - 1 folders above (a log set aside keeps finding it)."""
    own = episode_store(log_path)
    if own.is_file():
        return own
    folder = Path(log_path).parent
    for candidate in [folder, *folder.parents][:STORE_SEARCH_DEPTH]:
        path = candidate / STORE_NAME
        if path.is_file():
            return path
    return None


@dataclass
class StoreContents:
    """A prompt store as read: its checked entries, and what was wrong with the others."""

    contents: dict[str, Any] = field(default_factory=dict)  # sha256 -> message or tools
    prompts: dict[str, dict[str, Any]] = field(default_factory=dict)  # sha256 -> prompt
    problems: list[str] = field(default_factory=list)

    def messages(self, prompt: str) -> list[str] | None:
        """The sha256 of each message of `prompt`, in order; None when it, or a prompt it
        extends, is not in the store (or the prefixes loop)."""
        parts: list[list[str]] = []
        seen: set[str] = set()
        current: str | None = prompt
        while current is not None:
            entry = self.prompts.get(current)
            if entry is None or current in seen:
                return None
            seen.add(current)
            parts.append(entry["append"])
            current = entry["prefix"]
        return [h for part in reversed(parts) for h in part]


def read_store(path: Path, max_bytes: int, wanted: Iterable[str] | None = None) -> StoreContents:
    """The entries of the store at `path` (not read past `max_bytes`), each checked against
    its sha256; a line that is damaged or does not match its hash is named in `problems`
    and left out. `wanted`: keep only these contents (prompts are always kept)."""
    out = StoreContents()
    keep = None if wanted is None else set(wanted)
    try:
        with open(path, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as exc:
        out.problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
        return out
    if len(raw) > max_bytes:
        out.problems.append(f"{path}: over {max_bytes:,} bytes; read that far")
        raw = raw[: raw.rfind(b"\n") + 1]
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        problem = _take(line, out, keep)
        if problem is not None:
            out.problems.append(f"{path}:{n}: {problem}")
    return out


def _take(line: bytes, out: StoreContents, keep: set[str] | None) -> str | None:
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return "not JSON (a damaged or cut line)"
    if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
        return "not a store entry (expected an object with sha256)"
    digest = entry["sha256"]
    if "prompt" in entry:
        prompt = entry["prompt"]
        if not _is_prompt(prompt):
            return "a prompt entry without prefix and append"
        if sha256_of(prompt) != digest:
            return f"prompt {digest[:12]}... does not match its sha256 (altered)"
        out.prompts[digest] = prompt
        return None
    if "content" not in entry:
        return "neither content nor prompt"
    if keep is not None and digest not in keep:
        return None
    try:
        matches = sha256_of(entry["content"]) == digest
    except TypeError:
        matches = False
    if not matches:
        return f"content {digest[:12]}... does not match its sha256 (altered)"
    out.contents[digest] = entry["content"]
    return None


def _is_prompt(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"prefix", "append"}
        and (value["prefix"] is None or isinstance(value["prefix"], str))
        and isinstance(value["append"], list)
        and all(isinstance(h, str) for h in value["append"])
    )
