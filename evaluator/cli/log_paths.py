"""Checking the paths a user names as logs before anything is scored, so that a wrong
path is one clear line rather than an empty report."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from taurec.evaluator.files import find_logs
from taurec.tasks.runs.register import REGISTER_NAME
from taurec.tasks.trajectory.reader import NOT_A_LOG, read_log


class NotLogs(ValueError):
    """A path named as logs that is none: the message says which and what was expected."""


def check_log_paths(paths: Iterable[Path], *, allow_empty: bool = False) -> list[Path]:
    """Every episode log under `paths`. Raises NotLogs for a path that does not exist,
    a file that is not an episode log (`.jsonl`, written by taurec) or run register, and
    (unless `allow_empty`) a folder holding no episode log."""
    paths = list(paths)
    for p in paths:
        if not p.exists():
            raise NotLogs(
                f"{p}: no such file or folder; expected episode logs (.jsonl) or a folder of them"
            )
        if p.is_file() and not (p.name.endswith(".jsonl") or p.name == REGISTER_NAME):
            raise NotLogs(
                f"{p}: not an episode log; expected a log file (.jsonl) or a folder of logs"
            )
        if p.is_file() and p.name.endswith(".jsonl") and read_log(p).foreign:
            raise NotLogs(f"{p}: {NOT_A_LOG}; expected an episode log that taurec wrote")
        if p.is_dir() and not allow_empty and not find_logs([p]):
            raise NotLogs(f"{p}: a folder with no episode logs (*.jsonl) in it")
    return find_logs(paths)
