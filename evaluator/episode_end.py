"""What a score keeps of how its episode ended: the time it took, the end record's detail
and the last line of the agent's traceback, so the scorer's rows, the viewer and the report
say the same of a crash (and a search finds it) without reading the log again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from taurec.evaluator.episode import EpisodeScore
from taurec.tasks.trajectory.secrets import scrub

#: The most characters of an end record's detail (or a traceback's last line) a score keeps.
MAX_END_CHARS: Final = 500


def last_line(text: str) -> str | None:
    """The last non-blank line of `text` (a traceback's exception line), stripped."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return None


def note_end(score: EpisodeScore, events: Sequence[Any]) -> None:
    """Fill `duration_s` from the last event's time, and `end_detail` and `error` from the
    end record, when the log has one."""
    if not events:
        return
    last = events[-1]
    t = last.get("t")
    if isinstance(t, int | float) and not isinstance(t, bool):
        score.duration_s = float(t)
    if last.get("type") != "end":
        return
    detail = last.get("detail")
    if isinstance(detail, str) and detail.strip():
        score.end_detail = scrub(detail.strip()[:MAX_END_CHARS])
    traceback = last.get("traceback")
    line = last_line(traceback) if isinstance(traceback, str) else None
    if line:
        score.error = scrub(line[:MAX_END_CHARS])
