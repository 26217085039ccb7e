"""Agents of one's own: `taurec run --agent module:Class` or `--agent path/file.py:Class`.

The class (or any callable that returns an agent) is looked up and made here; the run then
treats it as it treats the built-in agents (progress, resume, sealing, the final table).
A class whose constructor takes one required argument (or one named `settings`) gets the
run's AgentSettings (label, seed, suite, ...); one that takes none is called without.
`--label` overrides the `label` of the agent made. Its log headers record who it is
(`agent_info`): its own kind, model and settings if it reports them, with the class it
was made from and a digest of the file that defines it (`code_digest`), so two runs under
one label are known to be one agent only when these agree. Every failure is an
AgentUnavailable with one line saying what was wrong.

A stream policy class (an `act` and no `run`: clients/agents/stream/api.py) is played on
stream suites: it is wrapped in a StreamAgent that makes a fresh instance for every
stream (streams run concurrently; nothing one instance keeps reaches another stream).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from taurec.clients.agents.base import Agent, AgentSettings, Episode
from taurec.clients.agents.registry import AgentUnavailable

EXPECTED = "expected module:Class (e.g. my_agents:EchoAgent) or path/file.py:Class"


def is_custom(spec: str) -> bool:
    """Whether `--agent` names one's own agent rather than a registered one."""
    return ":" in spec


def make_custom_agent(spec: str, settings: AgentSettings) -> Agent:
    """The agent `spec` names, made with `settings`; AgentUnavailable naming what was
    wrong (module or file not found, no such attribute, not an agent)."""
    where, _, name = spec.rpartition(":")
    if not where or not name.isidentifier():
        raise AgentUnavailable(f"--agent {spec!r}: {EXPECTED}")
    module = _load(where, spec)
    factory = getattr(module, name, None)
    if factory is None:
        raise AgentUnavailable(f"--agent {spec!r}: {where} has no attribute {name!r}")
    if not callable(factory):
        raise AgentUnavailable(f"--agent {spec!r}: {name} is not a class or factory")
    if is_stream_policy(factory):
        identity = custom_identity(None, _origin(where, name), module, settings)
        return _stream_agent(factory, settings, spec, identity)
    agent = _call(factory, settings, spec)
    if not inspect.iscoroutinefunction(getattr(agent, "run", None)):
        raise AgentUnavailable(
            f"--agent {spec!r}: {name} made a {type(agent).__name__}, not an agent; an agent "
            "has a `label` (str) and an `async def run(self, episode)` (a stream policy, an "
            "`async def act(self, view, dialogue)` and no `run`)"
        )
    if settings.label:
        try:
            agent.label = settings.label
        except (AttributeError, TypeError) as exc:  # __slots__, a read-only property
            raise AgentUnavailable(
                f"--agent {spec!r}: --label cannot be set on a {type(agent).__name__} ({exc})"
            ) from None
    label = _label_of(agent)
    if label is None:
        raise AgentUnavailable(
            f"--agent {spec!r}: {type(agent).__name__} has no label; give the class a "
            '`label` attribute, a non-empty string (e.g. `label = "my-agent"`), or pass --label'
        )
    if not isinstance(label, str) or not label or not isinstance(agent, Agent):
        raise AgentUnavailable(f"--agent {spec!r}: its label must be a non-empty string")
    own = getattr(agent, "agent_info", None)
    mine = own if isinstance(own, dict) else None
    identity = custom_identity(mine, _origin(where, name), module, settings)
    with contextlib.suppress(AttributeError):  # a read-only agent_info: it reports its own
        agent.agent_info = identity  # type: ignore[attr-defined]
    return agent


def _label_of(agent: object) -> object:
    """The agent's `label`; None when it has none (or reading it raises)."""
    try:
        return getattr(agent, "label", None)
    except Exception:  # a property that raises is as good as none
        return None


def code_digest(module: ModuleType) -> str | None:
    """The sha256 of the file that defines `module` (None: it has no file to read)."""
    try:
        path = inspect.getsourcefile(module)
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else None
    except (OSError, TypeError):
        return None


def _origin(where: str, name: str) -> str:
    """The class as --agent names it, a file by its name only (not where it lies)."""
    return f"{Path(where).name if _is_file(where) else where}:{name}"


def custom_identity(
    own: dict[str, Any] | None, origin: str, module: ModuleType, settings: AgentSettings
) -> dict[str, Any]:
    """A custom agent's identity for its log headers: what it reports of itself (kind,
    model, settings), or kind "custom" and the run's model, with the class and the digest
    of its code added to the settings."""
    own = own or {}
    found = own.get("settings")
    mine: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "kind": own.get("kind") or "custom",
        "model": own.get("model", settings.model),
        "settings": {
            **mine,
            "class": origin,
            "code_sha256": code_digest(module),
        },
    }


def is_stream_policy(factory: Any) -> bool:
    """A class with an `act` and no `run`: a stream policy (stream/api.py)."""
    return (
        inspect.isclass(factory)
        and callable(getattr(factory, "act", None))
        and not hasattr(factory, "run")
    )


def _stream_agent(
    policy_class: type, settings: AgentSettings, spec: str, identity: dict[str, Any]
) -> Agent:
    """A StreamAgent playing a fresh `policy_class` instance per stream. One instance is
    made here to check it (and to read its label), then dropped."""
    from taurec.clients.agents.stream.agents import StreamAgent

    name = policy_class.__name__
    first = _call(policy_class, settings, spec)
    if not inspect.iscoroutinefunction(first.act):
        raise AgentUnavailable(
            f"--agent {spec!r}: {name}.act is not async; a stream policy has an "
            "`async def act(self, view, dialogue)` (taurec.clients.agents.stream.api)"
        )
    label = settings.label or getattr(first, "label", None)
    if not isinstance(label, str) or not label:
        raise AgentUnavailable(f"--agent {spec!r}: its label must be a non-empty string")

    def make(episode: Episode) -> Any:
        policy = _call(policy_class, settings, spec)
        policy.label = label
        if not callable(getattr(policy, "observe", None)):  # observing is optional
            policy.observe = lambda view, item_id, feedback: None
        return policy

    return StreamAgent(label, make, identity)


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def _load(where: str, spec: str) -> ModuleType:
    if _is_file(where):
        return _load_file(Path(where), spec)
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name is not None and where.startswith(exc.name):
            raise AgentUnavailable(
                f"--agent {spec!r}: no module named {where!r} (is it installed, or run from "
                "the folder that holds it?)"
            ) from None
        raise AgentUnavailable(f"--agent {spec!r}: importing {where} failed: {exc}") from None
    except Exception as exc:
        raise AgentUnavailable(
            f"--agent {spec!r}: importing {where} failed: {type(exc).__name__}: {exc}"
        ) from None


def _load_file(path: Path, spec: str) -> ModuleType:
    if not path.is_file():
        raise AgentUnavailable(f"--agent {spec!r}: no such file {str(path)!r}")
    name = f"taurec_custom_agent_{abs(hash(path.resolve()))}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise AgentUnavailable(f"--agent {spec!r}: {path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise AgentUnavailable(
            f"--agent {spec!r}: loading {path} failed: {type(exc).__name__}: {exc}"
        ) from None
    return module


def _takes_settings(factory: Any) -> bool:
    """One required positional parameter, or one named `settings`: it gets the settings."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read: call it without
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) == 1 or any(p.name == "settings" for p in parameters)


def _call(factory: Any, settings: AgentSettings, spec: str) -> Any:
    try:
        return factory(settings) if _takes_settings(factory) else factory()
    except Exception as exc:
        raise AgentUnavailable(
            f"--agent {spec!r}: making the agent failed: {type(exc).__name__}: {exc}"
        ) from None
