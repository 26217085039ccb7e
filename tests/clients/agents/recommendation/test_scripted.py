"""The scripted agent: regex elicitation, filtering, one pitch at a time, policy lookups."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.clients.agents.recommendation.needs import Needs
from taurec.clients.agents.recommendation.reading import learn, read_needs, read_verdict
from taurec.clients.agents.recommendation.scripted import QUESTIONS, ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.aggregate import aggregate
from taurec.server.recommendation.simulator import RuleBasedUser
from taurec.server.recommendation.simulator.nlg import _T as TEMPLATES
from taurec.server.recommendation.simulator.nlu import Attribute, MessageReader
from taurec.server.run_facts import derive_seed
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.constraint import Reveal
from taurec.tasks.suite import load_suite

SUITE = load_suite("builtin")
READER = MessageReader(SUITE.catalog.items)


@pytest.mark.parametrize(("attribute", "question"), QUESTIONS)
def test_each_question_asks_the_rule_user_about_exactly_one_attribute(
    attribute: str, question: str
) -> None:
    assert READER.read(question).asked == {Attribute(attribute)}


def test_the_reader_understands_every_stated_need_of_every_builtin_task() -> None:
    items = [(it, it.model_dump(mode="json")) for it in SUITE.catalog.items]
    for task in SUITE.tasks:
        user = RuleBasedUser(task, SUITE.catalog, derive_seed(task.id, 0))
        needs = Needs()
        read_needs(user.opening(), needs)
        for _, question in QUESTIONS:
            read_needs(user.respond(question).text, needs)
        stated = [c for c in task.constraints if c.reveal is not Reveal.HIDDEN]
        expected = {it.id for it, _ in items if all(c.holds(it) for c in stated)}
        assert {it.id for it, data in items if needs.fits(data)} == expected, task.id


def test_soft_preferences_are_not_read_as_requirements() -> None:
    needs = Needs()
    read_needs("Ideally? Nothing longer than 90 minutes would be nice.", needs)
    assert needs == Needs()


def test_the_reader_tells_acceptance_from_rejection_in_every_wording() -> None:
    for text in TEMPLATES["accept"] + TEMPLATES["already_accepted"]:
        assert read_verdict(text).accepted, text
    for text in TEMPLATES["reject_hint"] + TEMPLATES["seen"] + TEMPLATES["one_at_a_time"]:
        assert not read_verdict(text.format(h="meh", H="Meh")).accepted, text
    assert all(read_verdict(t).seen for t in TEMPLATES["seen"])


def test_a_too_long_hint_caps_the_runtime_below_the_rejected_title() -> None:
    verdict = read_verdict("Hmm, that feels like a big time commitment tonight.")
    assert verdict.hints == (("runtime", "high"),)
    needs = Needs()
    learn(needs, verdict.hints[0], {"runtime": 131})
    assert needs.runtime_max == 130


async def test_the_scripted_agent_does_well_on_the_builtin_suite(tmp_path: Path) -> None:
    settings = ServerSettings(log_dir=tmp_path, run_label="scripted")
    runner = Runner(
        ScriptedAgent(), Connection("inproc", settings), tmp_path, "scripted", handle_signals=False
    )
    report = await runner.run(plan([t.id for t in SUITE.tasks], 1))
    (group,) = aggregate([r.score for r in report.results])
    assert group["n_episodes"] == 60 and group["infra_errors"] == 0
    assert group["pass_k"]["1"] >= 0.9
    assert group["policy_violation_rate"]["single_recommendation"] == 0.0
    assert group["policy_violation_rate"]["sponsored"] == 0.0
    no_valid = [r for r in report.results if SUITE.get(r.spec.task_id).no_valid_recommendation]
    assert no_valid and all(r.score.outcome == "abstain" for r in no_valid)
