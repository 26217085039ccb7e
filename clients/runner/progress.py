"""The live view of a run: a progress bar with ETA and running pass / failure counts."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from taurec.clients.runner.runner import EpisodeResult


class RunProgress:
    """Counts finished episodes; draws a bar on a terminal, stays quiet otherwise."""

    def __init__(self, total: int, label: str, console: Console) -> None:
        self.total = total
        self.label = label
        self.done = self.passed = self.infra = self.agent_errors = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=not console.is_terminal,
        )
        self._task = self._progress.add_task(label, total=total, counts=self.counts())

    def counts(self) -> str:
        text = f"pass {self.passed}/{self.done}"
        if self.agent_errors:
            text += f" · agent errors {self.agent_errors}"
        if self.infra:
            text += f" · infra errors {self.infra}"
        return text

    def __call__(self, result: EpisodeResult) -> None:
        self.done += 1
        self.passed += result.passed
        self.infra += result.infra_error
        self.agent_errors += result.end_reason == "agent_error"
        self._progress.update(self._task, advance=1, counts=self.counts())

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()
