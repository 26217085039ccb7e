"""The CRS harness commits on the simulated user's decision, not on its words: an LLM user
that accepts in words no harness knows commits as often as one that says "Sounds great";
a server that does not report acceptances is refused; an acceptance of a title the CRS did
not name unambiguously commits nothing and is noted in the log."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from support.loopback import serve_app

from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.store import Catalog
from taurec.clients.agents.contestants.crs import NO_ACCEPTANCE, CrsAgent
from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.logs import Resolver, score_files
from taurec.server.recommendation.simulator import UserReply
from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
from taurec.server.recommendation.simulator.llm_sp_dp import deciding_llm_users
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.crs_suite import generate_crs_tasks
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.suite import SuiteManifest, load_suite, write_suite_dir
from taurec.tasks.trajectory.dialogue_acts import DialogueAct
from taurec.tasks.trajectory.reader import read_log

N_TASKS = 12
#: How the mocked LLM user accepts: the rule user's stock phrase, and words no harness reads.
WORDINGS = {
    "stock": "Sounds great, I'll take {title}.",
    "plain": "I'll take {title}.",
    "terse": "{title}. Deal.",
    "warm": "Oh, {title} is exactly my kind of thing, let's do it.",
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> str:
    catalog = load_suite("builtin").catalog
    folder = tmp_path_factory.mktemp("crs-suite")
    manifest = SuiteManifest(format_version=1, id="crs", catalog="builtin")
    write_suite_dir(folder, manifest, generate_crs_tasks(catalog, N_TASKS, seed=3))
    return str(folder)


@pytest.fixture(scope="module")
def crs_url() -> Any:
    with serve_app(crs_app(DemoCrs(load_suite("builtin").catalog))) as url:
        yield url + "/"


class AcceptsTheFirstTitle:
    """A mocked model for llm-sp: it says what it wants, then accepts the first title the
    assistant names in `wording`; its act line (the classifier's answer) says accept."""

    def __init__(self, titles: TitleMatcher, wording: str) -> None:
        self.titles, self.wording = titles, wording

    def __call__(self, **kwargs: Any) -> Any:
        prompt = kwargs["messages"][-1]["content"]
        if "ACTS:" in prompt:
            said = re.search(r"UTTERANCE: (.*)\nACTS:", prompt, re.S)
            found = self.titles.find(said.group(1) if said else "")
            text = f'accept(title="{found[0].title}")' if found else "other()"
        else:
            last = [line for line in prompt.splitlines() if line.startswith("ASSISTANT: ")]
            found = self.titles.find(last[-1]) if last else []
            wants = re.search(r"following characteristics: (.*?)\.", prompt)
            looking = f"I'm looking for {wants.group(1)}." if wants else "Any good film?"
            text = self.wording.format(title=found[0].title) + " \\end" if found else looking
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=None
        )


def _play(
    suite: str, url: str, out: Path, make_user: Any, *, report_acceptance: bool = True
) -> list[Path]:
    catalog = load_suite(suite).catalog
    settings = ServerSettings(
        suite=suite, log_dir=out, run_label="crs", report_acceptance=report_acceptance
    )
    agent = CrsAgent(url, TitleMatcher(catalog.items), label="crs")
    runner = Runner(agent, Connection(settings=settings, make_user=make_user), out, "crs")
    report = anyio.run(runner.run, plan([t.id for t in load_suite(suite).tasks], 1))
    assert report.failure is None and not report.interrupted
    return sorted(out.rglob("*.jsonl"))


def _llm_user(suite: str, wording: str) -> Any:
    catalog = load_suite(suite).catalog
    model = AcceptsTheFirstTitle(TitleMatcher(catalog.items), wording)
    llm = LLMUserSettings(model="openai/test", cache_dir=None, completion=model, acts="classifier")
    return deciding_llm_users(catalog, llm)


def _pass_1(logs: list[Path], suite: str) -> float:
    (group,) = aggregate(score_files(logs, Resolver(suite=suite), workers=1))
    return float(group["pass_k"]["1"])


def test_an_llm_user_commits_alike_whatever_words_it_accepts_in(suite, crs_url, tmp_path):
    rates = {
        name: _pass_1(_play(suite, crs_url, tmp_path / name, _llm_user(suite, wording)), suite)
        for name, wording in WORDINGS.items()
    }
    assert rates["stock"] > 0.5
    for name, rate in rates.items():
        assert abs(rate - rates["stock"]) <= 0.05, (name, rates)


def test_a_server_that_does_not_report_acceptances_is_refused_saying_why(suite, crs_url, tmp_path):
    logs = _play(suite, crs_url, tmp_path, None, report_acceptance=False)
    ends = [read_log(p).events[-1] for p in logs]
    assert len(ends) == N_TASKS
    assert all(e["reason"] == "agent_error" and NO_ACCEPTANCE in e["detail"] for e in ends)


class AcceptsWhatWasNeverNamed:
    """A simulated user that accepts, in its first reply, a title the CRS did not name."""

    kind = "scripted"

    def __init__(self, item_id: str) -> None:
        self.item_id, self.turn = item_id, 0

    def opening(self) -> str:
        return "I'd like a comedy."

    def respond(self, agent_text: str) -> UserReply:
        self.turn += 1
        if self.turn == 1:
            acts = (DialogueAct(intent="accept", items=(self.item_id,)),)
            return UserReply(
                "Actually, I'll watch something else.", accepted=self.item_id, acts=acts
            )
        return UserReply("Bye.", left=True, acts=(DialogueAct(intent="stop"),))

    def react_to_commit(self, item_id: str | None) -> UserReply:
        return UserReply("Thanks.", accepted=item_id)


def test_an_acceptance_of_a_title_the_crs_did_not_name_commits_nothing(suite, crs_url, tmp_path):
    catalog = load_suite(suite).catalog
    unnamed = catalog.items[-1].id

    def make_user(
        task: RecommendationTask, catalog: Catalog, seed: int
    ) -> AcceptsWhatWasNeverNamed:
        return AcceptsWhatWasNeverNamed(unnamed)

    logs = _play(suite, crs_url, tmp_path, make_user)
    for path in logs:
        events = read_log(path).events
        assert not [e for e in events if e["type"] == "tool_call" and e["name"] == "recommend"]
        asides = [
            e["text"]
            for e in events
            if e["type"] == "agent_message" and not e.get("delivered", True)
        ]
        assert any(unnamed in a and "nothing was committed" in a for a in asides)
        assert events[-1]["reason"] == "user_left"


def test_in_the_usersimcrs_dialogue_mode_nothing_is_committed_and_the_dialogue_goes_on(
    suite, crs_url, tmp_path
):
    """As UserSimCRS runs a CRS: the agenda user's acceptances end nothing; the dialogue
    runs until the user stops or the turns run out, and its metrics are the whole
    dialogue's."""
    catalog = load_suite(suite).catalog
    out = tmp_path / "logs"
    settings = ServerSettings(
        suite=suite, log_dir=out, run_label="crs", simulator="abus", report_acceptance=True
    )
    agent = CrsAgent(crs_url, TitleMatcher(catalog.items), label="crs", dialogue="usersimcrs")
    runner = Runner(agent, Connection(settings=settings), out, "crs")
    report = anyio.run(runner.run, plan([t.id for t in load_suite(suite).tasks], 1))
    assert report.failure is None
    logs = sorted(out.rglob("*.jsonl"))
    accepting = 0
    for path in logs:
        events = read_log(path).events
        assert not [e for e in events if e["type"] == "tool_call" and e["name"] == "recommend"]
        assert events[-1]["reason"] in ("max_turns", "user_left")
        users = [e for e in events if e["type"] == "user_message"]
        accepting += sum(any(a["intent"] == "accept" for a in u.get("acts") or []) for u in users)
    assert accepting > len(logs)  # more than one acceptance a dialogue: it went on past them
    (group,) = aggregate(score_files(logs, Resolver(suite=suite), workers=1))
    assert group["dialogue"]["sr"] > 0.5 and group["dialogue"]["avg_turns"] > 5


def test_an_unknown_dialogue_mode_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match="taurec, usersimcrs"):
        CrsAgent("http://x/", TitleMatcher([]), dialogue="paper")
