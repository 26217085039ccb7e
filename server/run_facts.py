"""What every episode a server starts shares, whatever its kind: the server's name and
version, the run its logs belong to, and the seed of a (task, trial)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from taurec.server.model_call_log import PromptStores
from taurec.tasks.trajectory.format import SuiteRef
from taurec.tasks.trajectory.signing import LogKey

SERVER_NAME = "taurec"


def server_version() -> str:
    try:
        return importlib.metadata.version("taurec")
    except (
        importlib.metadata.PackageNotFoundError
    ):  # pragma: no cover - running from a bare checkout
        return "unknown"


def default_run_label() -> str:
    return f"run-{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def derive_seed(task_id: str, trial: int) -> int:
    """The default seed of (task, trial): stable across runs, machines and Python versions."""
    digest = hashlib.sha256(f"taurec:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True)
class RunFacts:
    """What every episode header of one server run shares."""

    run_id: str
    suite: SuiteRef
    catalog_sha256: str
    server_version: str
    log_dir: Path
    simulator_settings: dict[str, Any] = field(default_factory=dict)
    log_key: LogKey | None = None  # signs each log's end record (None: unsigned logs)
    prompts: PromptStores | None = None  # the prompt stores of model-call logs
