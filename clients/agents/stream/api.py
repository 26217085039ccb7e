"""Your own stream agent: the stable surface for writing one (docs/streams.md, "Your own
stream agent").

A stream policy is a class with a `label`, an `async act(view, dialogue)` that returns
the next action, and optionally `observe(view, item_id, feedback)`, called after each
episode's recommendation with the feedback heard (None when there is none). Subclass
`StreamPolicyBase` and play it with

    taurec run --suite stream:builtin --agent my_policy.py:MyPolicy

`taurec run` makes a fresh instance for every stream (streams run concurrently, so
nothing an instance keeps leaks from one stream into another), with the run's
`AgentSettings` when its constructor takes one required argument (or one named
`settings`), else with none. What the instance keeps between episodes of its stream is
its in-context learning.

`view` is the episode as the `current_episode` tool returns it: `episode` (1-based) and
`episodes`, `setting`, `customer` ("customer 2": the same label is the same customer),
`category`, `question_budget`, `questions_left`, `feedback_kind` and `items` (the choice
set: dicts with `id`, `title`, `categories`, `year`, `runtime`, `rating` (0-10),
`rating_count`, `language`, `maker`, `keywords`, `price`, `description`; absent
attributes are None or empty). `dialogue` is this episode's (question, answer) pairs so
far. With no questions left only a recommendation is taken. Under BIEL's rules (the
default) a recommended id outside the choice set counts as a question: the server's note
is added to the dialogue and `act` is called again.
"""

from __future__ import annotations

from typing import Any

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.stream.play import Action, Dialogue, StreamCallError, StreamPolicy
from taurec.tasks.stream.results import Confidence

#: The current episode, as the `current_episode` tool returns it (see the module docstring).
View = dict[str, Any]


def _stated(confidence: Confidence | dict[str, float] | None) -> dict[str, float] | None:
    if confidence is None:
        return None
    checked = Confidence.model_validate(confidence)  # a bad value fails here, not at the server
    return {k: float(v) for k, v in checked.model_dump(exclude_none=True).items()}


def ask(question: str) -> Action:
    """Ask the customer `question` (one of the episode's question budget)."""
    return "ask", question


def recommend(item_id: str, confidence: Confidence | dict[str, float] | None = None) -> Action:
    """Recommend `item_id`, ending the episode; optionally with the confidence you state
    (fields of `Confidence`: favorite, top5, predicted_regret, within_5 ... within_30)."""
    return "recommend", str(item_id), _stated(confidence)


def interim(item_id: str, confidence: Confidence | dict[str, float] | None = None) -> Action:
    """A hidden pick (planning): scored as the regret after the questions asked so far,
    never answered; the episode goes on. At most three in a row."""
    return "interim", str(item_id), _stated(confidence)


class StreamPolicyBase:
    """A stream policy to subclass: set `label`, write `act`, and `observe` if it learns
    from feedback."""

    label: str = "my-stream-agent"

    async def act(self, view: View, dialogue: Dialogue) -> Action:
        """The next action: `ask(question)`, `recommend(item_id)` or `interim(item_id)`."""
        raise NotImplementedError

    def observe(self, view: View, item_id: str, feedback: str | None) -> None:
        """Called after each recommendation with the feedback on `item_id` (None: none)."""
        return None


__all__ = [
    "Action",
    "AgentSettings",
    "Confidence",
    "Dialogue",
    "StreamCallError",
    "StreamPolicy",
    "StreamPolicyBase",
    "View",
    "ask",
    "interim",
    "recommend",
]
