"""Progress while many logs are scored: a bar on stderr when stderr is a terminal.

Scoring a few hundred logs takes well under a second; tens of thousands take long enough
that a silent terminal looks hung. The bar appears only from SHOW_FROM logs on, only on a
terminal (piped output and logs stay clean), and vanishes when scoring is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from rich.console import Console
from rich.progress import TaskID

#: (logs scored so far, logs to score)
ScoringProgress = Callable[[int, int], None]

#: Fewer logs than this are scored without a bar.
SHOW_FROM: Final = 2000


@contextmanager
def scoring_progress(console: Console) -> Iterator[ScoringProgress | None]:
    """A callback that draws the bar on `console`, or None when it is no terminal."""
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    bar = Progress(
        "scoring logs",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    task: list[TaskID] = []

    def update(done: int, total: int) -> None:
        if total < SHOW_FROM:
            return
        if not task:
            bar.start()
            task.append(bar.add_task("scoring logs", total=total))
        bar.update(task[0], completed=done)

    try:
        yield update
    finally:
        bar.stop()
