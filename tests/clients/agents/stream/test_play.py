"""The loop every stream agent shares: interim picks, stated confidences, and an id
outside the choice set under BIEL's rules (a question) and taurec's (refused)."""

from __future__ import annotations

import asyncio
from typing import Any

from support.streams import make_stream

from taurec.clients.agents.stream.play import Action, Dialogue, LocalStreamPort, play_stream
from taurec.tasks.stream.protocol import StreamProtocol, StreamRules
from taurec.tasks.stream.session import StreamSession


class Scripted:
    """Plays a fixed list of actions per episode, then recommends the set's last item."""

    label = "scripted"

    def __init__(self, script: list[Action]) -> None:
        self.script = script
        self.seen: list[Dialogue] = []

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        self.seen.append(list(dialogue))
        step = len(self.seen) - 1
        if step < len(self.script):
            return self.script[step]
        return "recommend", str(view["items"][-1]["id"])

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None


def play(policy: Scripted, protocol: StreamProtocol | None = None) -> StreamSession:
    session = StreamSession(make_stream(episodes=1), seed=1, protocol=protocol or StreamProtocol())
    view = session.view().model_dump(mode="json")
    asyncio.run(play_stream(LocalStreamPort(session), view, policy))
    return session


def test_under_biels_rules_an_unknown_id_costs_a_question_and_the_policy_hears_why() -> None:
    policy = Scripted([("recommend", "nope")])
    session = play(policy)
    assert session.asked == [1]
    question, note = policy.seen[1][0]
    assert question == "RECOMMEND: nope" and "counts as a question" in note


def test_under_taurecs_rules_an_unknown_id_is_refused_and_the_policy_asked_again() -> None:
    policy = Scripted([("recommend", "nope")])
    session = play(policy, StreamProtocol(rules=StreamRules.TAUREC))
    assert session.asked == [0]  # no question spent
    assert "refused" in policy.seen[1][0][1]
    assert session.chosen == [session.task.episodes[0].item_ids[-1]]


def test_after_three_refusals_the_first_item_is_recommended() -> None:
    policy = Scripted([("recommend", "nope")] * 10)
    session = play(policy, StreamProtocol(rules=StreamRules.TAUREC))
    assert session.chosen == [session.task.episodes[0].item_ids[0]]


def test_interim_picks_and_confidences_reach_the_session() -> None:
    session_items = make_stream(episodes=1).episodes[0].item_ids
    policy = Scripted(
        [
            ("ask", "What do you like?"),
            ("interim", session_items[1], {"favorite": 0.3}),
            ("recommend", session_items[2], {"top5": 0.9}),
        ]
    )
    session = play(policy)
    picks = session.picks[0]
    assert [(p.item_id, p.final, p.questions) for p in picks] == [
        (session_items[1], False, 1),
        (session_items[2], True, 1),
    ]
    assert picks[1].confidence is not None and picks[1].confidence.top5 == 0.9


def test_an_interim_pick_outside_the_set_is_refused_and_the_episode_goes_on() -> None:
    policy = Scripted([("interim", "nope")])
    session = play(policy)
    assert "refused" in policy.seen[1][0][1] and session.picks[0][-1].final


def test_at_the_budget_the_server_applies_the_rules_to_an_unknown_id() -> None:
    task = make_stream(episodes=1).model_copy(update={"question_budget": 0})
    for rules, refusals in ((StreamRules.BIEL, 0), (StreamRules.TAUREC, 1)):
        policy = Scripted([("recommend", "nope")])
        session = StreamSession(task, seed=1, protocol=StreamProtocol(rules=rules))
        view = session.view().model_dump(mode="json")
        asyncio.run(play_stream(LocalStreamPort(session), view, policy))
        heard = [answer for seen in policy.seen for _, answer in seen]
        assert sum("refused" in a for a in set(heard)) == refusals
        # BIEL: the server forces the set's first item; taurec: refused, then the last item
        expected = task.episodes[0].item_ids[0 if rules is StreamRules.BIEL else -1]
        assert session.chosen == [expected]
