"""Model calls in an episode's conversation: one entry per `model_call` event (who called
which model, tokens, timing, the completion), and the messages each one sent, read from
the run's prompt store (taurec.tasks.trajectory.model_calls) where the viewer shows them.
Pure but for `attach_messages`, which reads the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from taurec.tasks.trajectory.model_calls import StoreContents, find_store, read_store

#: The role of a model call's conversation entry.
MODEL: Final = "model"
#: Fields of a model_call event an entry keeps as they are.
_KEPT: Final = (
    "caller",
    "model",
    "purpose",
    "settings",
    "usage",
    "latency_ms",
    "cache_hit",
    "error",
    "detail",
    "output",
    "input_messages",
)


def model_entry(ev: dict[str, Any]) -> dict[str, Any]:
    """A model_call event as a conversation entry. `prompt` and `tools` name store entries
    (attach_messages turns them into `input`, a list of message sha256)."""
    entry: dict[str, Any] = {"seq": ev["seq"], "role": MODEL}
    entry.update({name: ev[name] for name in _KEPT if ev.get(name) is not None})
    entry["prompt"] = ev.get("input")
    entry["tools"] = ev.get("tools")
    return entry


def summary(entry: dict[str, Any]) -> str:
    """One line on a model call: caller, model, tokens, time, cache, its note."""
    parts = [f"{entry.get('caller', '?')} → {entry.get('model', '?')}"]
    usage = entry.get("usage") or {}
    if usage:
        parts.append(
            f"{usage.get('prompt_tokens', 0)} in / {usage.get('completion_tokens', 0)} out"
        )
    if entry.get("latency_ms") is not None:
        parts.append(f"{entry['latency_ms']:.0f} ms")
    if entry.get("cache_hit"):
        parts.append("cached")
    if entry.get("error"):
        parts.append(f"error: {entry['error']}")
    if entry.get("detail"):
        parts.append(str(entry["detail"]))
    return " · ".join(parts)


class StoreCache:
    """Prompt stores as last read, by path, read again once their size or time changes
    (a viewer shows many episodes of one run, while the run may still be writing)."""

    def __init__(self, most: int = 8) -> None:
        self._most = most
        self._read: dict[Path, tuple[tuple[int, int], StoreContents]] = {}

    def read(self, path: Path, max_bytes: int) -> StoreContents:
        try:
            st = path.stat()
            signature = (st.st_size, st.st_mtime_ns)
        except OSError:
            return read_store(path, max_bytes)  # says why it cannot be read
        kept = self._read.get(path)
        if kept is not None and kept[0] == signature:
            return kept[1]
        store = read_store(path, max_bytes)
        self._read.pop(path, None)
        while len(self._read) >= self._most:
            del self._read[next(iter(self._read))]
        self._read[path] = (signature, store)
        return store


def attach_messages(
    doc: dict[str, Any], log_path: str, max_bytes: int, stores: StoreCache | None = None
) -> None:
    """Give each model entry of `doc["conversation"]` its `input` (the sha256 of each
    message sent, None when the store lacks its prompt) and `doc` the messages by sha256
    (`model_messages`; None for one the store lacks or that fails its hash), and the
    store's problems (`model_store`). An entry whose messages were sent but cannot all
    be shown says why in `not_kept` (no store, a store cut at the reader's limit, a prompt
    or messages the store lacks), so a reader never takes a call for one that sent
    nothing. `stores`: where stores read before are kept."""
    entries = [e for e in doc.get("conversation", []) if e.get("role") == MODEL]
    if not entries:
        return
    store_path = find_store(log_path)
    if store_path is None:
        doc["model_store"] = {"path": None, "problems": ["no prompt store beside this log"]}
        doc["model_messages"] = {}
        for entry in entries:
            if entry.get("prompt"):
                entry["not_kept"] = "no prompt store beside this log: its messages were not kept"
        return
    store = (stores or StoreCache()).read(store_path, max_bytes)
    cut = any(" bytes; read that far" in p for p in store.problems)
    messages: dict[str, Any] = {}
    for entry in entries:
        prompt = entry.get("prompt")
        entry["input"] = store.messages(prompt) if prompt else None
        for digest in [*(entry["input"] or []), entry.get("tools")]:
            if digest:
                messages[digest] = store.contents.get(digest)
        if (why := _not_kept(entry, messages, cut, max_bytes)) is not None:
            entry["not_kept"] = why
    doc["model_messages"] = messages
    doc["model_store"] = {"path": str(store_path), "problems": store.problems[:20]}


def _not_kept(entry: dict[str, Any], messages: dict[str, Any], cut: bool, limit: int) -> str | None:
    """Why an entry's messages cannot all be shown; None when they can (or none were sent)."""
    sent = entry.get("input_messages")
    if not entry.get("prompt"):
        return None
    past = f" (the store is over the {limit:,} bytes readers read; read that far)" if cut else ""
    if entry["input"] is None:
        return f"the prompt store lacks this call's prompt: none of its {sent} messages were kept{past}"
    shown = sum(messages.get(h) is not None for h in entry["input"])
    if shown < len(entry["input"]):
        return (
            f"{len(entry['input']) - shown} of its {len(entry['input'])} messages are not in the "
            f"prompt store or fail their sha256{past}"
        )
    return None


def withhold_prompts(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` without what the server's own model calls were sent (a simulated user's
    prompt holds its task, hidden constraints too): their `input` and `tools` left out,
    and `model_messages` kept only for the agent's calls, which saw nothing hidden."""
    entries = []
    kept: set[str] = set()
    for entry in doc.get("conversation", []):
        if entry.get("role") == MODEL and entry.get("caller") != "agent":
            entry = {
                **entry,
                "input": None,
                "tools": None,
                "prompt": None,
                "withheld": True,
                "not_kept": None,
            }
        elif entry.get("role") == MODEL:
            kept.update(h for h in [*(entry.get("input") or []), entry.get("tools")] if h)
        entries.append(entry)
    messages = {h: m for h, m in (doc.get("model_messages") or {}).items() if h in kept}
    out = {**doc, "conversation": entries}
    if "model_messages" in doc:
        out["model_messages"] = messages
    return out
