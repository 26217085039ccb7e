"""Episodes whose logs the server could not write in full (a full disk, say).

Such an episode counts as an infrastructure error in the scores, but the run as a whole
has failed: `taurec run` names the cause and exits non-zero instead of printing a table
that quietly lacks them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from taurec.clients.runner.plan import summarize_log
from taurec.clients.runner.runner import EpisodeResult
from taurec.server.episode_end import LOG_FAILED
from taurec.server.trajectory_writer import LOG_UNWRITTEN


@dataclass(frozen=True)
class LogFailure:
    result: EpisodeResult
    cause: str  # one line


def log_failure(result: EpisodeResult) -> LogFailure | None:
    """Why `result`'s log is not whole, or None when it is (or the episode never got as
    far as the server, for reasons of its own)."""
    if result.error and LOG_UNWRITTEN in result.error:  # start_episode was refused
        return LogFailure(result, result.error.removeprefix("start_episode failed: "))
    if result.episode_id is None or not result.infra_error:
        return None
    if result.log is None:
        why = f" ({result.error})" if result.error else ""
        return LogFailure(result, f"its log is missing{why}")
    summary = summarize_log(result.log)
    if not summary.complete:
        return LogFailure(result, "its log has no end record (the server could not finish it)")
    if summary.end_detail and summary.end_detail.startswith(LOG_FAILED):
        return LogFailure(
            result, f"the server could not write its log: {summary.end_detail[len(LOG_FAILED) :]}"
        )
    return None


def log_failures(results: Iterable[EpisodeResult]) -> list[LogFailure]:
    return [f for r in results if (f := log_failure(r)) is not None]
