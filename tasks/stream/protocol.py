"""How a stream is played: the run-level choices a stream's rules depend on.

A stream task fixes its episodes, utilities, feedback kind and question budget. A run
adds its choices, recorded in every log header (`simulator.settings["protocol"]`) so
the evaluator replays the stream under the same rules:

- `feedback`: `task` (the task's own feedback, the default), `shuffled` (scrambled: the
  feedback the customer would give on another item of the same choice set, the one a
  seeded permutation of the set maps the chosen item to: its score, stars or tone, and
  for persona feedback a reason drawn from that item, told of the chosen item's kind;
  so the feedback keeps its form and its distribution but says nothing about the
  choice) or `none` (withheld: the agent hears nothing after recommending). The two are
  controls: an agent that improves as much without feedback as with it has not learned
  from it. Either way the episode view and the opening keep the task's feedback kind,
  so nothing but the feedback itself differs from a feedback run; withheld feedback is
  still missing where feedback is due, so only `shuffled` is blind (the control for a
  contestant that might look for the difference; `FeedbackMode.blind`).
- `rules`: `biel` (the default, BIEL's rules: recommending an id outside the choice set
  counts as a question while questions are left; with none left it recommends the
  set's first item, as BIEL's forced recommendation does when it cannot parse one) or
  `taurec` (such a recommendation is refused with an error result that says what to do).
- `shuffle_order`: play the task's episodes in an order drawn per trial from the
  stream's seed (`episode_order`), so improvement by position cannot come from the
  suite's order.
- `customer_knows`: `tastes` (the default, as BIEL's customer, who knows its persona
  and the category, not the products: asked about a named item it answers from its
  tastes in general) or `items` (it also knows the choice set, and says how a named
  item's attributes meet its tastes; an agent can then grade items by asking).

Logs written before a field existed replay under that field's old behaviour
(`protocol_of`): the customer knew the items, and a control's view said `none`.
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

#: The header key the protocol is recorded under (in `simulator.settings`).
PROTOCOL_KEY: Final = "protocol"


class FeedbackMode(StrEnum):
    TASK = "task"  # the task's own feedback kind
    NONE = "none"  # withheld
    SHUFFLED = "shuffled"  # about another item of the set (a seeded permutation)

    @property
    def blind(self) -> bool:
        """A control the agent cannot tell from a feedback run by its form (only by what
        the feedback says): scrambled feedback is; withheld feedback is not (it is
        missing where feedback is due)."""
        return self is FeedbackMode.SHUFFLED


class CustomerKnows(StrEnum):
    TASTES = "tastes"  # its persona and the category, as BIEL's customer
    ITEMS = "items"  # also the choice set: it describes a named item against its tastes


class StreamRules(StrEnum):
    BIEL = "biel"  # an unknown id counts as a question
    TAUREC = "taurec"  # an unknown id is an error result


class StreamProtocol(BaseModel):
    """The run's choices for every stream it plays (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    feedback: FeedbackMode = Field(
        default=FeedbackMode.TASK,
        description="task (the task's feedback), none (withheld) or shuffled (scrambled).",
    )
    rules: StreamRules = Field(
        default=StreamRules.BIEL,
        description="biel (an unknown id counts as a question) or taurec (an error result).",
    )
    shuffle_order: bool = Field(
        default=False, description="Play the episodes in an order drawn from each trial's seed."
    )
    customer_knows: CustomerKnows = Field(
        default=CustomerKnows.TASTES,
        description="tastes (the customer knows its persona and the category) or items (it "
        "also knows the choice set and describes a named item against its tastes).",
    )
    labelled_control: bool = Field(
        default=False,
        description="True only in logs written before controls were blind: a control's "
        "view then said feedback_kind 'none' and scrambled persona feedback had no reason.",
    )

    @property
    def is_control(self) -> bool:
        """Feedback withheld or scrambled: a control run for 'learns from feedback'."""
        return self.feedback is not FeedbackMode.TASK

    def record(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def protocol_problem(kind: str, protocol: StreamProtocol) -> str | None:
    """One line when a protocol other than the default is asked of a suite of another
    kind (it applies to stream suites only)."""
    if kind != "stream" and protocol != StreamProtocol():
        return (
            "the stream protocol (--feedback, --rules, --shuffle-order, --customer-knows) "
            f"applies to stream suites; this is a {kind} suite"
        )
    return None


#: What a recorded protocol without a field was played under (the field's old behaviour).
_BEFORE: Final[dict[str, Any]] = {
    "customer_knows": CustomerKnows.ITEMS.value,
    "labelled_control": True,
}


def protocol_of(settings: dict[str, Any] | None) -> StreamProtocol | None:
    """The protocol a log header records, or None for a log written before headers
    recorded it (such logs were played with the task's feedback and taurec's rules). A
    field the record lacks takes its behaviour from before it existed (`_BEFORE`)."""
    doc = (settings or {}).get(PROTOCOL_KEY)
    if not isinstance(doc, dict):
        return None
    return StreamProtocol.model_validate({**_BEFORE, **doc})


#: The protocol of logs that do not record one.
LEGACY: Final = StreamProtocol(rules=StreamRules.TAUREC, **_BEFORE)


def episode_order(n: int, seed: int, shuffled: bool) -> list[int]:
    """The order the task's n episodes are played in (0-based task indices)."""
    order = list(range(n))
    if shuffled:
        random.Random(f"episode-order:{seed}").shuffle(order)
    return order


def scrambled(item_ids: list[str], seed: int) -> dict[str, str]:
    """The seeded permutation of a choice set that `shuffled` feedback describes."""
    targets = list(item_ids)
    random.Random(f"shuffled-feedback:{seed}").shuffle(targets)
    return dict(zip(item_ids, targets, strict=True))
