"""The suites shipped in this package, by the spec that loads each, and whether a suite
someone generated holds their tasks.

Light on purpose: command-line help names the shipped suites (SUITE_HELP), and a
command's `--help` must not import pydantic; `shipped_twins` imports what it reads.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Final

#: The spec of each shipped suite, as `--suite` takes it (a test holds this to the folders
#: under taurec/tasks/suites/: "builtin" is the recommendation suite, KIND:builtin another).
BUILTIN_SUITES: Final = ("builtin", "ranking:builtin", "stream:builtin")
#: The shipped suite of each task kind.
BUILTIN_BY_KIND: Final = dict(
    zip(("recommendation", "ranking", "stream"), BUILTIN_SUITES, strict=True)
)
#: What a `--suite` option takes, for its help and for the error on a suite that is none.
SUITE_CHOICES: Final = (
    f"a built-in suite ({', '.join(BUILTIN_SUITES)}), a suite folder, or tau-rec:PATH"
)


def packaged_suites_dir() -> Path:
    """The folder of the shipped suites, one sub-folder each."""
    return Path(str(importlib.resources.files("taurec.tasks") / "suites"))


def shipped_twins(folder: Path) -> tuple[str, int, int] | None:
    """(the shipped suite sharing the most tasks with the suite in `folder`, how many of
    `folder`'s task files equal one of its tasks but for the task id, how many task files
    `folder` has), or None when no shipped suite shares one. A generator run with the seed and data a shipped suite was
    made with writes that suite's tasks again."""
    import orjson

    from taurec.tasks.task_files import TASKS_DIR

    def contents(tasks_dir: Path) -> list[bytes]:
        out = []
        for path in sorted(tasks_dir.glob("*.json")):
            try:
                doc = orjson.loads(path.read_bytes())
            except (OSError, orjson.JSONDecodeError):
                continue
            if isinstance(doc, dict):
                doc.pop("id", None)
                out.append(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS))
        return out

    written = contents(folder / TASKS_DIR)
    best: tuple[str, int, int] | None = None
    for spec in BUILTIN_SUITES:
        name = spec.split(":")[0]
        shipped = set(contents(packaged_suites_dir() / name / TASKS_DIR))
        same = sum(doc in shipped for doc in written)
        if same and (best is None or same > best[1]):
            best = (spec, same, len(written))
    return best
