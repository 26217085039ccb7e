"""How an episode ended, in the words its tools answer with once it has.

An end is a reason (the trajectory format's EndReason) with an optional committed item and
a detail for the log; the details that begin with the markers below tell the agent more
precisely why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from taurec.tasks.trajectory.format import EndReason

#: How the detail of an end by abort_episode begins.
ABORTED: Final = "aborted: "
#: End reasons abort_episode may set.
ABORT_REASONS: Final = (EndReason.AGENT_ERROR, EndReason.INFRA_ERROR)
#: How the detail of an end at the tool-call limit begins.
CALL_LIMIT: Final = "tool-call limit: "
#: How the detail of an end at a stream's log size limit begins.
LOG_LIMIT: Final = "log limit: "
#: How the detail of an end that made room on a full server begins.
EVICTED: Final = "evicted: "
#: How the detail of an end by idle expiry begins.
IDLE: Final = "idle timeout: "
#: How the detail of an end by a log that could not be written begins.
LOG_FAILED: Final = "log write failed: "
#: The detail of the end record of an episode still open when the server stopped.
SHUTDOWN_DETAIL: Final = "server shut down"


@dataclass(frozen=True)
class EpisodeEnd:
    reason: EndReason
    item_id: str | None = None
    detail: str | None = None
    #: the server itself cut the episode off (it was stopping): in a sealed run such an
    #: episode may be played once more. Nothing an agent sends can set it.
    cut_by_server: bool = False

    def describe(self) -> str:
        match self.reason:
            case EndReason.RECOMMENDED:
                return f"you recommended {self.item_id}"
            case EndReason.ABSTAINED:
                return "you abstained (recommend with item_id null)"
            case EndReason.USER_LEFT:
                return "the user left the conversation"
            case EndReason.MAX_TURNS:
                return "the turn budget ran out"
            case EndReason.INFRA_ERROR:
                if self.detail and self.detail.startswith(ABORTED):
                    return "it was aborted (an infrastructure failure, not yours)"
                if self.detail and self.detail.startswith(LOG_FAILED):
                    return (
                        "the server could not write its log (an infrastructure failure, not yours)"
                    )
                return "an internal server error (an infrastructure failure, not yours)"
            case EndReason.AGENT_ERROR:
                if self.detail and self.detail.startswith(CALL_LIMIT):
                    return "the agent made more tool calls than this server allows per episode"
                if self.detail and self.detail.startswith(IDLE):
                    return "no call came for longer than this server waits (idle_timeout_seconds)"
                return "it was aborted (the agent failed or stopped without committing)"
            case _:
                return self.reason.value


def shutdown_end(*, sealed: bool, seen: str | None, detail: str = SHUTDOWN_DETAIL) -> EpisodeEnd:
    """How the server ends an episode still open when it stops: infra_error, for every kind.

    `seen` names what the contestant saw past the opening ("tool outputs", "feedback", "the
    user's replies"), None if nothing. In a sealed run an episode cut after that counts as
    played (a failure): a replay would know what it saw, so parking an episode until an
    operator restarts the server buys nothing. Otherwise the cut is the server's
    (`cut_by_server`, the plain detail): a sealed run may play it once more, and in open
    mode, where any task may be replayed at will, `taurec run --resume` replays it.
    """
    if sealed and seen is not None:
        played = f"{detail} (after the contestant saw {seen}: played)"
        return EpisodeEnd(EndReason.INFRA_ERROR, detail=played)
    return EpisodeEnd(EndReason.INFRA_ERROR, detail=detail, cut_by_server=True)


def ended_message(episode_id: str, end: EpisodeEnd) -> str:
    return (
        f"episode {episode_id[:8]}... has ended ({end.reason.value}): {end.describe()}. "
        "Its tools no longer answer; call start_episode to begin a new episode."
    )


def commits_end(commits: list[str | None]) -> EpisodeEnd:
    """How a recommendation episode ends after these commits (None: an abstention): the last
    item committed, else an abstention."""
    items = [c for c in commits if c is not None]
    if not items:
        return EpisodeEnd(EndReason.ABSTAINED)
    detail = f"abstained after recommending {items[-1]}" if commits[-1] is None else None
    return EpisodeEnd(EndReason.RECOMMENDED, item_id=items[-1], detail=detail)
