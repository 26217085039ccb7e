"""The whole UserSimCRS loop: a CRS server reached as it is (`--crs-url http://HOST:PORT/`),
a suite a text-only CRS can win (`tasks generate --for crs`), and the paper's users
(abus, llm-sp with a mocked model) beside agenda-requests; every dialogue ends and is
scored with SR, SRRR, RDL and turns."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from support.crs_arena import ArenaStandIn
from support.loopback import serve_app

from taurec.catalog.mentions import TitleMatcher
from taurec.clients.agents.contestants.crs import CrsAgent
from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.logs import Resolver, score_files
from taurec.server.recommendation.simulator.llm_client import LLMUserSettings
from taurec.server.recommendation.simulator.llm_sp_dp import deciding_llm_users
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.crs_suite import generate_crs_tasks
from taurec.tasks.recommendation.validate import validate_suite
from taurec.tasks.suite import SuiteManifest, load_suite, write_suite_dir

N_TASKS = 8


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> str:
    catalog = load_suite("builtin").catalog
    folder = tmp_path_factory.mktemp("crs-suite")
    manifest = SuiteManifest(format_version=1, id="crs", catalog="builtin")
    write_suite_dir(folder, manifest, generate_crs_tasks(catalog, N_TASKS, seed=1))
    return str(folder)


@pytest.fixture(scope="module", params=["reference", "arena"])
def crs_url(request: pytest.FixtureRequest) -> Iterator[str]:
    catalog = load_suite("builtin").catalog
    app = crs_app(DemoCrs(catalog)) if request.param == "reference" else ArenaStandIn(catalog).app()
    with serve_app(app) as url:
        yield url + "/"


class TakesTheFirstTitle:
    """A mocked model for llm-sp: it states what it is looking for, takes the first title
    the assistant names, and ends."""

    def __init__(self, titles: TitleMatcher) -> None:
        self.titles = titles

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
            text = f"Sounds great, I'll take {found[0].title}. \\end" if found else looking
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=None
        )


def _play(suite: str, url: str, out: Path, simulator: str) -> dict[str, Any]:
    catalog = load_suite(suite).catalog
    make_user = None
    if simulator == "llm-sp":
        model = TakesTheFirstTitle(TitleMatcher(catalog.items))
        llm = LLMUserSettings(
            model="openai/test", cache_dir=None, completion=model, acts="classifier"
        )
        make_user = deciding_llm_users(catalog, llm)
    settings = ServerSettings(
        suite=suite,
        log_dir=out,
        run_label=simulator,
        simulator="rule" if simulator == "llm-sp" else simulator,
        report_acceptance=True,
    )
    agent = CrsAgent(url, TitleMatcher(catalog.items), label=f"crs-{simulator}")
    runner = Runner(agent, Connection(settings=settings, make_user=make_user), out, simulator)
    report = anyio.run(runner.run, plan([t.id for t in load_suite(suite).tasks], 1))
    assert report.failure is None and not report.interrupted
    assert len(report.results) == N_TASKS
    scores = score_files(sorted(out.rglob("*.jsonl")), Resolver(suite=suite), workers=1)
    (group,) = aggregate(scores)
    return group


@pytest.mark.slow
@pytest.mark.parametrize("simulator", ["abus", "llm-sp", "agenda-requests"])
def test_a_crs_plays_the_suite_against_each_user_and_every_dialogue_is_scored(
    suite: str, crs_url: str, tmp_path: Path, simulator: str
) -> None:
    group = _play(suite, crs_url, tmp_path / simulator, simulator)
    assert group["n_episodes"] == N_TASKS and group["infra_errors"] == 0
    dialogue = group["dialogue"]
    assert dialogue["episodes"] == N_TASKS
    assert {"sr", "srrr", "srrr_usersimcrs", "rdl", "avg_turns", "utterances"} <= set(dialogue)
    assert dialogue["utterances"] >= 2


def test_the_crs_suite_needs_no_tool_and_every_task_has_an_answer(suite: str) -> None:
    loaded = load_suite(suite)
    report = validate_suite(loaded)
    assert report.ok and report.n_warnings == 0
    assert {f.value for t in loaded.tasks for f in t.policy_flags} <= {
        "recommend_tool",
        "single_recommendation",
    }
    assert not any(t.no_valid_recommendation for t in loaded.tasks)
    assert all(t.user.services == [] and t.user.watch_history == [] for t in loaded.tasks)
