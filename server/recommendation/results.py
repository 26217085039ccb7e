"""What the episode and server tools return: their output schemas, in one place.

(The read-only catalog tools' results live beside their pure functions in catalog_tools.)
Nothing here may carry a task's constraints, persona or answers: only ids, strata,
protocol limits and the simulated user's own words.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from taurec.tasks.recommendation.task import Complexity, RevealDifficulty
from taurec.tasks.trajectory.format import EndReason

POLICY_URI = "taurec://policy"
CATALOG_SCHEMA_URI = "taurec://catalog/schema"
TASKS_URI = "taurec://tasks"


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskSummary(_Result):
    id: str = Field(description="Pass to start_episode as task_id.")
    complexity: Complexity = Field(description="simple (1-2), medium (3-4), complex (5+) needs.")
    reveal_difficulty: RevealDifficulty = Field(
        description="volunteer: the user states every need; mixed / hidden: some must be asked "
        "for or discovered from the user's reactions."
    )
    trials_left: list[int] | None = Field(
        default=None,
        description="Sealed runs: the trials of this task your plan still holds (pass one "
        "as start_episode's trial). Absent on an open server, where any trial may be played.",
    )


class TaskList(_Result):
    suite: str = Field(description="The suite these tasks come from.")
    tasks: list[TaskSummary]


class EpisodeStarted(_Result):
    episode_id: str = Field(description="Pass this id to every other tool of the episode.")
    task_id: str
    trial: int
    opening: str = Field(description="The user's first message to you.")
    max_turns: int = Field(description="Messages you may send before the user leaves.")
    max_recommendations: int = Field(
        description="Committing recommend calls allowed; the last one ends the episode."
    )
    policy_uri: str = Field(
        default=POLICY_URI, description="The rules you are checked against (an MCP resource)."
    )
    next_steps: str = Field(
        default="Talk with the user (send_message), look titles up (search_catalog, "
        "filter_catalog, get_item, check_availability, get_user_history, "
        "check_content_preference), then commit with recommend (an item_id, or null to abstain)."
    )


class UserReplyResult(_Result):
    reply: str = Field(description="The user's answer.")
    user_left: bool = Field(description="The user ended the conversation; the episode is over.")
    turns_used: int = Field(description="Messages you have sent in this episode.")
    turns_left: int = Field(description="Messages you may still send; at 0 the episode ends.")
    episode_ended: bool
    end_reason: EndReason | None = Field(default=None, description="Why it ended, if it did.")
    opening: str | None = Field(
        default=None,
        description="The user's first message, included once when you never called start_episode.",
    )
    accepted: str | None = Field(
        default=None,
        exclude_if=lambda accepted: accepted is None,
        description="On a harness's server only (report_acceptance): the catalog id of the "
        "title the user accepted in this reply, as the simulated user decided it.",
    )


class RecommendResult(_Result):
    committed: str | None = Field(description="The committed item id; null when you abstained.")
    abstained: bool
    title: str | None = Field(default=None, description="The committed item's title.")
    message_shown: str | None = Field(
        default=None,
        exclude_if=lambda shown: shown is None,
        description="What the user was shown with it, when you passed `disclose`: the "
        "disclosure line, then your message.",
    )
    user_reaction: str = Field(description="What the user says about it.")
    episode_ended: bool
    end_reason: EndReason | None = None
    recommendations_left: int = Field(description="Further committing calls allowed.")


class EpisodeAborted(_Result):
    ended: bool = True
    end_reason: EndReason


class ServerInfo(_Result):
    name: str
    version: str
    suite: str
    tasks: int = Field(description="Tasks in the suite.")
    catalog_items: int
    reports_acceptance: bool = Field(
        default=False,
        exclude_if=lambda reports: not reports,
        description="send_message results name the title the user accepted (a harness's "
        "server, --report-acceptance).",
    )
    bound_task: str | None = Field(
        default=None,
        description="Bound mode: the one task this server serves (episode_id optional).",
    )
    bound_trial: int | None = None
    sealed_label: str | None = Field(
        default=None,
        description="Sealed runs: the agent label your token plays under (start_episode "
        "takes no other); absent on an open server.",
    )
    policy_uri: str = POLICY_URI
