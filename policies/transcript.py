"""What happened in an episode, as the policy checks and scorers need it.

Derived once from a trajectory: tool calls paired with their results, the agent's
texts, and the committing `recommend` calls with what each one committed. This is where
the outcome rules live, so every check agrees on them:

- `recommend` with `item_id: null` (JSON null) is an abstention;
- `recommend` with a catalog id is a recommendation;
- `recommend` with an empty string, the string "null"/"none", an id not in the catalog,
  or a call that returned an error, is neither: it commits nothing;
- recommending and then abstaining is not an abstention: the outcome is the item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from operator import itemgetter
from typing import Any, Final, NamedTuple

from taurec.policies.sponsorship import logged_disclosures, logged_message
from taurec.tasks.trajectory.format import Trajectory
from taurec.tasks.trajectory.payloads import payload

RECOMMEND_TOOL = "recommend"


class CallRecord(NamedTuple):  # the records are tuples: scoring makes thousands a second
    """One tool call and its result (None when the log holds no result for it)."""

    seq: int
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None  # the tool_result record

    @property
    def ok(self) -> bool:
        return self.result is not None and not self.result.get("is_error", False)

    def arg(self, name: str) -> Any:
        return self.arguments.get(name)


class CommitKind(StrEnum):
    ITEM = "item"
    ABSTAIN = "abstain"
    INVALID = "invalid"


class Commit(NamedTuple):
    seq: int
    kind: CommitKind
    item_id: str | None
    message: str | None  # what the user was shown with it (policies/sponsorship.py)
    reason: str  # why it is invalid; empty otherwise
    disclosed: tuple[str, ...] = ()  # its structured disclosures ("sponsored")


class AgentText(NamedTuple):
    seq: int
    text: str
    delivered: bool


@dataclass
class Transcript:
    calls: list[CallRecord] = field(default_factory=list)
    texts: list[AgentText] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    end: dict[str, Any] | None = None  # the end record
    episode_id: str | None = None
    latencies: list[float] = field(default_factory=list)
    user_seqs: list[int] = field(default_factory=list)  # the user's messages
    #: (seq, items) of each user message whose acts turn titles down (reject, seen)
    declined: list[tuple[int, frozenset[str]]] = field(default_factory=list)

    @property
    def turns(self) -> list[int]:
        """Seqs of the agent messages delivered to the user (a commit's message is not one)."""
        commit_seqs = {c.seq for c in self.commits}
        return [t.seq for t in self.texts if t.delivered and t.seq not in commit_seqs]

    @property
    def valid_commits(self) -> list[Commit]:
        return [c for c in self.commits if c.kind is not CommitKind.INVALID]

    @property
    def committed_items(self) -> list[Commit]:
        return [c for c in self.commits if c.kind is CommitKind.ITEM]

    @property
    def outcome(self) -> Commit | None:
        """The episode's result: the last committed item, else an abstention, else None."""
        for c in reversed(self.commits):  # asked by every check: no lists built
            if c.kind is CommitKind.ITEM:
                return c
        for c in reversed(self.commits):
            if c.kind is not CommitKind.INVALID:
                return c
        return None

    @property
    def recommended_item(self) -> str | None:
        out = self.outcome
        return out.item_id if out is not None and out.kind is CommitKind.ITEM else None

    @property
    def abstained(self) -> bool:
        out = self.outcome
        return out is not None and out.kind is CommitKind.ABSTAIN

    def turn_of(self, seq: int) -> list[AgentText]:
        """The delivered texts that go with the call at `seq`: the agent's messages since
        the user last spoke, and the call's own message."""
        last_user = max((s for s in self.user_seqs if s < seq), default=-1)
        return [t for t in self.texts if t.delivered and last_user < t.seq <= seq]

    def texts_through(self, seq: int) -> list[AgentText]:
        return [t for t in self.texts if t.seq <= seq]

    @property
    def delivered_texts(self) -> list[AgentText]:
        """What the user was shown: messages and the recommend calls' messages, not the
        asides sent alongside tool calls."""
        return [t for t in self.texts if t.delivered]


_SEQ = itemgetter(0)  # a record's seq
_NULLISH = {"", "null", "none", "nil", "undefined"}


def _commit(call: CallRecord, known_ids: set[str] | frozenset[str] | Any) -> Commit:
    arguments, result = call.arguments, call.result
    item = arguments.get("item_id")
    msg = arguments.get("message")
    message = msg if isinstance(msg, str) else None
    if result is None or result.get("is_error", False):  # not `call.ok`
        why = "the recommend call returned an error" if result else "no result was logged"
        return Commit(call.seq, CommitKind.INVALID, None, message, why)
    if item is None:
        return Commit(call.seq, CommitKind.ABSTAIN, None, message, "")
    if not isinstance(item, str) or item.strip().casefold() in _NULLISH:
        return Commit(
            call.seq, CommitKind.INVALID, None, message, f"item_id {item!r} is not an item id"
        )
    if item not in known_ids:
        return Commit(
            call.seq, CommitKind.INVALID, None, message, f"item_id {item!r} is not in the catalog"
        )
    if "disclose" not in arguments:
        return Commit(call.seq, CommitKind.ITEM, item, message, "")
    shown = logged_message(arguments, payload(result.get("content")))
    return Commit(call.seq, CommitKind.ITEM, item, shown, "", logged_disclosures(arguments))


def build_transcript(trajectory: Trajectory, known_ids: Any) -> Transcript:
    """Derive the transcript in one pass; `known_ids` supports `in` (a Catalog does)."""
    results: dict[str, dict[str, Any]] = {}
    calls: list[dict[str, Any]] = []
    texts: list[AgentText] = []
    latencies: list[float] = []
    user_seqs: list[int] = []
    declined: list[tuple[int, frozenset[str]]] = []
    end = None
    new = tuple.__new__  # the records' own constructors, without a Python call each
    for ev in trajectory.events:  # the hot loop of scoring: one lookup per question
        kind = ev["type"]
        if kind == "tool_call":
            calls.append(ev)
        elif kind == "tool_result":
            call_id = ev["call_id"]
            if call_id not in results:
                results[call_id] = ev
        elif kind == "user_message":
            user_seqs.append(ev["seq"])
            if ev.get("acts"):
                turned_down = _declined(ev["acts"])
                if turned_down:
                    declined.append((ev["seq"], turned_down))
        elif kind == "agent_message":
            texts.append(new(AgentText, (ev["seq"], ev["text"], ev.get("delivered", True))))
        elif kind == "end":
            end = ev
        elif kind == "model_call":
            continue  # a model's latency, not a step's
        latency = ev.get("latency_ms")
        if latency is not None:
            latencies.append(latency)
    records = [
        new(
            CallRecord,
            (
                call["seq"],
                call["name"],
                call.get("arguments", {}),
                results.get(call["call_id"]),
            ),
        )
        for call in calls
    ]
    commits: list[Commit] = []
    for rec in records:
        if rec[1] == RECOMMEND_TOOL:
            commit = _commit(rec, known_ids)
            commits.append(commit)
            if commit.message:
                texts.append(new(AgentText, (rec.seq, commit.message, True)))
    if commits:
        texts.sort(key=_SEQ)
    return Transcript(
        calls=records,
        texts=texts,
        commits=commits,
        end=end,
        episode_id=trajectory.header.episode_id,
        latencies=latencies,
        user_seqs=user_seqs,
        declined=declined,
    )


#: The user's intents that turn a title down.
DECLINING: Final = frozenset({"reject", "seen"})


def _declined(acts: list[dict[str, Any]]) -> frozenset[str]:
    """The items a user message's acts turn down."""
    return frozenset(
        item for act in acts if act.get("intent") in DECLINING for item in act.get("items") or ()
    )
