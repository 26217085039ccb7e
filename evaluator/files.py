"""Finding what a run left on disk: episode logs (`*.jsonl`) and run registers
(`run.register`), under the files and folders given.

A folder that cannot be read (permissions, a vanished entry, a symlink loop) is reported,
not raised: one bad sub-folder must not hide the rest of a run. Symlinked folders are not
followed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from taurec.tasks.runs.register import REGISTER_NAME

#: Where `evaluator judge` keeps its answers beside the logs; never searched for logs.
JUDGE_DIR = "judge"


class NotARunFile(ValueError):
    """A file given by name that is neither an episode log nor a run register."""


@dataclass
class RunFiles:
    logs: list[Path] = field(default_factory=list)
    registers: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # folders or entries that could not be read


def find_run_files(paths: Iterable[str | Path]) -> RunFiles:
    """Every log and register under `paths`, sorted by path components, deduplicated.
    FileNotFoundError when a path given does not exist; NotARunFile when a file given by
    name is neither a log (*.jsonl) nor a register (a README, a report, ...)."""
    logs: set[str] = set()
    registers: set[str] = set()
    problems: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            _walk(str(p), logs, registers, problems)
        elif p.is_file():
            if p.name != REGISTER_NAME and not p.name.endswith(".jsonl"):
                raise NotARunFile(
                    f"{p}: not an episode log; expected *.jsonl files, a {REGISTER_NAME} or "
                    "folders of them"
                )
            (registers if p.name == REGISTER_NAME else logs).add(str(p))
        else:
            raise FileNotFoundError(f"{p}: no such file or directory")
    # string keys: sorting 100,000 Path objects costs more than scanning the folders
    return RunFiles(
        [Path(f) for f in sorted(logs, key=lambda f: f.split(os.sep))],
        [Path(f) for f in sorted(registers, key=lambda f: f.split(os.sep))],
        problems,
    )


def find_logs(paths: Iterable[str | Path]) -> list[Path]:
    """Every *.jsonl file under the given files or directories (see find_run_files)."""
    return find_run_files(paths).logs


def _walk(folder: str, logs: set[str], registers: set[str], problems: list[str]) -> None:
    """Add the regular files under `folder` (scandir's cached types: no stat)."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name == JUDGE_DIR:
                            continue
                        _walk(entry.path, logs, registers, problems)
                    elif entry.name.endswith(".jsonl") and entry.is_file():
                        logs.add(entry.path)
                    elif entry.name == REGISTER_NAME and entry.is_file():
                        registers.add(entry.path)
                except OSError as exc:
                    problems.append(
                        f"{entry.path}: cannot be read ({exc.strerror or exc}); skipped"
                    )
    except OSError as exc:
        problems.append(f"{folder}: cannot be listed ({exc.strerror or exc}); skipped")
