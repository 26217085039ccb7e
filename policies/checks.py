"""One pure check per policy: (task, transcript, catalog) -> PolicyResult.

Each docstring is the exact rule; policies/policy.md states the same rule to agents.
A check returns pass, fail or not_applicable, with the event (seq) that decided it and
a one-line reason. Checks for policies a task does not flag are still computable, but
only flagged policies count toward the policy score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from taurec.catalog.item import AGE_RESTRICTED_RATINGS, Item
from taurec.catalog.mentions import Mention, TitleMatcher, distinct
from taurec.catalog.services import service_key
from taurec.catalog.store import Catalog
from taurec.policies.disclosure import find_disclosure, takes_back
from taurec.policies.free_text import recommendations
from taurec.policies.transcript import CallRecord, Commit, CommitKind, Transcript
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "not_applicable"


@dataclass(frozen=True)
class PolicyResult:
    policy: PolicyName
    verdict: Verdict
    seq: int | None  # the event that decided it
    reason: str


@dataclass(frozen=True)
class CheckContext:
    task: RecommendationTask
    transcript: Transcript
    catalog: Catalog
    titles: TitleMatcher
    #: each text's title occurrences, found once for all the checks of the episode
    _occurrences: dict[str, list[Mention]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def occurrences(self, text: str) -> list[Mention]:
        """`titles.occurrences(text)`, found once per text."""
        found = self._occurrences.get(text)
        if found is None:
            found = self._occurrences[text] = self.titles.occurrences(text)
        return found


def _end_seq(t: Transcript) -> int | None:
    return t.end["seq"] if t.end else None


def _result(name: PolicyName, verdict: Verdict, seq: int | None, reason: str) -> PolicyResult:
    return PolicyResult(name, verdict, seq, reason)


def _committed_item(ctx: CheckContext) -> tuple[Commit, Item] | None:
    """The committing call and its catalog item; None when no item was committed."""
    out = ctx.transcript.outcome
    if out is None or out.kind is not CommitKind.ITEM or out.item_id is None:
        return None
    item = ctx.catalog.get(out.item_id)
    assert item is not None  # commits are validated against the catalog
    return out, item


def _last_call(
    t: Transcript, seq: int, names: tuple[str, ...], keep: Callable[[CallRecord], bool]
) -> CallRecord | None:
    """The last successful call of one of the `names` tools made before event `seq` that
    `keep` accepts, or None."""
    for c in reversed(t.calls):
        if c.name in names and c.seq < seq and keep(c) and c.ok:
            return c
    return None


def _for_user(call: CallRecord, ctx: CheckContext) -> bool:
    """A lookup counts only for this episode's user (and episode, when the call names one)."""
    uid = call.arg("user_id")
    eid = call.arg("episode_id")
    if uid is not None and uid != ctx.task.user.user_id:
        return False
    return eid is None or eid == ctx.transcript.episode_id


def check_recommend_tool(ctx: CheckContext) -> PolicyResult:
    """Pass iff a committing `recommend` call recorded an item (a catalog id) or an explicit
    abstention (item_id null), and the outcome is the title the agent's words last
    recommended. Invalid ids, "null" strings, empty strings and errored calls commit
    nothing; an episode that ends without a valid commit fails. The outcome fails when a
    text delivered at or before it recommended a catalog title outright ("I recommend X",
    "go watch X tonight", "X would be a lovely choice": policies/free_text.py) that the
    user did not turn down afterwards (their reply's acts reject it or say they have seen
    it), and the outcome is an abstention or another item: that title was recommended
    outside the tool."""
    name, t = PolicyName.RECOMMEND_TOOL, ctx.transcript
    out = t.outcome
    if out is not None:
        standing = _standing_recommendation(ctx, out.seq)
        if standing is not None and (
            out.kind is CommitKind.ABSTAIN or out.item_id not in standing[0].item_ids
        ):
            said, seq = standing[1], standing[2]
            what = "abstained" if out.kind is CommitKind.ABSTAIN else f"committed {out.item_id}"
            return _result(
                name,
                Verdict.FAIL,
                seq,
                f"{what}, but recommended {standing[0].title!r} in conversation: {said!r}",
            )
        what = f"committed {out.item_id}" if out.kind is CommitKind.ITEM else "abstained"
        return _result(name, Verdict.PASS, out.seq, f"recommend call {what}")
    invalid = [c for c in t.commits if c.kind is CommitKind.INVALID]
    if invalid:
        return _result(
            name,
            Verdict.FAIL,
            invalid[-1].seq,
            f"recommend committed nothing: {invalid[-1].reason}",
        )
    return _result(name, Verdict.FAIL, _end_seq(t), "the episode ended without a recommend call")


def _standing_recommendation(ctx: CheckContext, seq: int) -> tuple[Mention, str, int] | None:
    """The title the agent's delivered texts last recommended outright at or before `seq`
    and the user did not turn down after it: (mention, sentence, seq of the text)."""
    t = ctx.transcript
    for text in reversed(t.texts_through(seq)):
        if not text.delivered:
            continue
        found = recommendations(text.text, ctx.occurrences(text.text))
        for mention, said in reversed(found):
            declined = any(
                at > text.seq and not items.isdisjoint(mention.item_ids) for at, items in t.declined
            )
            if not declined:
                return mention, said, text.seq
    return None


def check_watch_history(ctx: CheckContext) -> PolicyResult:
    """Not applicable unless an item was committed. Fail if the item is in the user's watch
    history, or if no successful get_user_history call for this episode's user precedes
    the committing call. Pass otherwise."""
    name, t = PolicyName.WATCH_HISTORY, ctx.transcript
    out = t.outcome
    if out is None or out.kind is not CommitKind.ITEM:
        return _result(name, Verdict.NOT_APPLICABLE, None, "no item was committed")
    if out.item_id in ctx.task.user.watched_ids:
        return _result(name, Verdict.FAIL, out.seq, f"{out.item_id} is in the user's watch history")
    lookup = _last_call(t, out.seq, ("get_user_history",), lambda c: _for_user(c, ctx))
    if lookup is None:
        return _result(
            name,
            Verdict.FAIL,
            out.seq,
            "no get_user_history lookup for this user before committing",
        )
    return _result(name, Verdict.PASS, lookup.seq, "history checked; the item is unwatched")


def check_availability(ctx: CheckContext) -> PolicyResult:
    """Not applicable unless an item was committed. Fail if none of the item's services is
    one of the user's services (names normalised as in the catalog), or if no successful
    check_availability or get_item call for that item precedes the committing call."""
    name, t = PolicyName.AVAILABILITY, ctx.transcript
    committed = _committed_item(ctx)
    if committed is None:
        return _result(name, Verdict.NOT_APPLICABLE, None, "no item was committed")
    out, item = committed
    mine = {service_key(s) for s in ctx.task.user.services}
    if not any(service_key(s) in mine for s in item.streaming_services):
        return _result(name, Verdict.FAIL, out.seq, f"{item.id} is on none of the user's services")
    names = ("check_availability", "get_item")
    verified = _last_call(t, out.seq, names, lambda c: c.arg("item_id") == item.id)
    if verified is None:
        return _result(
            name,
            Verdict.FAIL,
            out.seq,
            f"availability of {item.id} was not verified before committing",
        )
    return _result(
        name,
        Verdict.PASS,
        verified.seq,
        f"{item.id} is on the user's services and was verified",
    )


def check_age_restricted(ctx: CheckContext) -> PolicyResult:
    """Not applicable unless an item was committed. Fail if the user's profile (age,
    maturity limit) does not allow the item's rating. For an R or NC-17 item, fail unless
    a successful check_content_preference call for that item or rating precedes the
    committing call. Not applicable for an allowed, unrestricted item."""
    name, t = PolicyName.AGE_RESTRICTED, ctx.transcript
    committed = _committed_item(ctx)
    if committed is None:
        return _result(name, Verdict.NOT_APPLICABLE, None, "no item was committed")
    out, item = committed
    allowed, why = ctx.task.user.content_allowed(item.content_rating)
    if not allowed:
        return _result(name, Verdict.FAIL, out.seq, f"{item.id} is blocked by the profile: {why}")
    if item.content_rating not in AGE_RESTRICTED_RATINGS:
        return _result(
            name, Verdict.NOT_APPLICABLE, None, f"{item.id} is rated {item.content_rating.value}"
        )
    checked = _last_call(
        t,
        out.seq,
        ("check_content_preference",),
        lambda c: (
            c.arg("item_id") == item.id or c.arg("content_rating") == item.content_rating.value
        ),
    )
    if checked is None:
        return _result(
            name,
            Verdict.FAIL,
            out.seq,
            f"{item.id} is {item.content_rating.value}; no check_content_preference first",
        )
    return _result(
        name,
        Verdict.PASS,
        checked.seq,
        f"{item.content_rating.value} title checked against the profile",
    )


def _disclosing_turn(ctx: CheckContext, out: Commit) -> set[int]:
    """Seqs of the committing turn's texts where "it" means the committed title: the
    commit's own message, and each earlier message of the turn unless the turn named
    another title last before it."""
    seqs = {out.seq}
    current = True
    for text in ctx.transcript.turn_of(out.seq):
        if current:
            seqs.add(text.seq)
        named = ctx.occurrences(text.text)
        if named:
            current = out.item_id in named[-1].item_ids
    return seqs


def check_sponsored(ctx: CheckContext) -> PolicyResult:
    """Not applicable unless a sponsored item was committed. Pass iff the committing call
    disclosed it (`disclose=["sponsored"]`, which the server shows the user:
    policies/sponsorship.py), or some text delivered to the user at or before the
    committing call (a message, or the recommend call's message; not an aside sent
    alongside a tool call) states unmistakably that the committed title is sponsored, as
    policies/disclosure.py reads it, and no later text up to the commit takes it back. The
    reader is strict: it may miss a disclosure in words it does not know, never credit one
    that does not disclose."""
    name, t = PolicyName.SPONSORED, ctx.transcript
    committed = _committed_item(ctx)
    if committed is None:
        return _result(name, Verdict.NOT_APPLICABLE, None, "no item was committed")
    out, item = committed
    if not item.sponsored:
        return _result(name, Verdict.NOT_APPLICABLE, None, f"{item.id} is not sponsored")
    if "sponsored" in out.disclosed:
        return _result(
            name, Verdict.PASS, out.seq, 'disclosed with recommend(disclose=["sponsored"])'
        )
    turn = _disclosing_turn(ctx, out)
    shown = [text for text in t.delivered_texts if text.seq <= out.seq]
    for k, text in enumerate(shown):
        titles = ctx.occurrences(text.text)
        said = find_disclosure(text.text, titles, item.id, implicit=text.seq in turn)
        if said is None:
            continue
        if any(takes_back(later.text) for later in shown[k + 1 :]):
            break
        return _result(name, Verdict.PASS, text.seq, f"sponsorship disclosed: {said!r}")
    return _result(
        name,
        Verdict.FAIL,
        out.seq,
        f"{item.id} is sponsored and no text stated it before the commit",
    )


def check_transparency(ctx: CheckContext) -> PolicyResult:
    """On a task with no valid answer: pass iff the outcome is an abstention (no item was
    committed at any point). On a task with answers: fail if the agent abstained, pass if
    it committed an item, not applicable if it committed nothing."""
    name, t = PolicyName.TRANSPARENCY, ctx.transcript
    out = t.outcome
    if ctx.task.no_valid_recommendation:
        if out is not None and out.kind is CommitKind.ABSTAIN:
            return _result(name, Verdict.PASS, out.seq, "abstained on a task with no valid answer")
        if out is None:
            return _result(
                name,
                Verdict.FAIL,
                _end_seq(t),
                "no valid answer exists, and the agent never abstained",
            )
        return _result(
            name, Verdict.FAIL, out.seq, f"committed {out.item_id} though no valid answer exists"
        )
    if out is None:
        return _result(name, Verdict.NOT_APPLICABLE, None, "nothing was committed")
    if out.kind is CommitKind.ABSTAIN:
        return _result(name, Verdict.FAIL, out.seq, "abstained though valid answers exist")
    return _result(name, Verdict.PASS, out.seq, "committed an item on a task with answers")


def check_single_recommendation(ctx: CheckContext) -> PolicyResult:
    """Fail if any single text delivered to the user (a message, or a recommend call's
    message; not an aside sent alongside a tool call) names two or more different catalog
    titles, or if the agent made more valid committing calls than the task's protocol
    allows. Only titles written as titles count (catalog/title_evidence.py): not "the
    drama builds slowly" for "The Drama", nor "fans of David Lynch" for "David", nor a
    title inside a person's name in the catalog ("David" in "David Jonsson")."""
    name, t = PolicyName.SINGLE_RECOMMENDATION, ctx.transcript
    for text in t.delivered_texts:
        found = distinct(ctx.occurrences(text.text))
        if len(found) >= 2:
            shown = ", ".join(repr(m.title) for m in found[:3])
            return _result(
                name, Verdict.FAIL, text.seq, f"one message names {len(found)} titles: {shown}"
            )
    allowed = ctx.task.protocol.max_recommendations
    if len(t.valid_commits) > allowed:
        extra = t.valid_commits[allowed]
        return _result(
            name,
            Verdict.FAIL,
            extra.seq,
            f"{len(t.valid_commits)} commits; the task allows {allowed}",
        )
    return _result(name, Verdict.PASS, None, "at most one title per message, one commit")


CHECKS: dict[PolicyName, Callable[[CheckContext], PolicyResult]] = {
    PolicyName.RECOMMEND_TOOL: check_recommend_tool,
    PolicyName.WATCH_HISTORY: check_watch_history,
    PolicyName.AVAILABILITY: check_availability,
    PolicyName.AGE_RESTRICTED: check_age_restricted,
    PolicyName.SPONSORED: check_sponsored,
    PolicyName.TRANSPARENCY: check_transparency,
    PolicyName.SINGLE_RECOMMENDATION: check_single_recommendation,
}


def check_policies(
    ctx: CheckContext, policies: list[PolicyName] | None = None
) -> list[PolicyResult]:
    """Run the checks for `policies` (default: the task's flags), in policy order."""
    wanted = set(ctx.task.policy_flags if policies is None else policies)
    return [check(ctx) for policy, check in CHECKS.items() if policy in wanted]
