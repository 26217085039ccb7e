"""The runner: episodes end properly whatever the agent does, usage reaches the log,
and the transports work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import orjson
import pytest
from support.http_server import http_server as serve_http

from taurec.clients.agents.base import AgentInfraError, Episode
from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import EpisodeSpec
from taurec.clients.runner.runner import EpisodeResult, Runner
from taurec.evaluator.aggregate import aggregate
from taurec.server.run_facts import derive_seed
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.signing import load_log_key


def _end(result: EpisodeResult) -> dict:
    assert result.log is not None
    return orjson.loads(result.log.read_bytes().splitlines()[-1])


async def _play(agent, out: Path, *specs: EpisodeSpec, **kw) -> list[EpisodeResult]:
    settings = ServerSettings(log_dir=out, run_label="r")
    transport = kw.pop("transport", "inproc")
    runner = Runner(agent, Connection(transport, settings), out, "r", handle_signals=False, **kw)
    report = await runner.run(list(specs))
    assert report.failure is None, report.failure
    return sorted(report.results, key=lambda r: r.spec)


class ProviderDown:
    label = "flaky-llm"

    async def run(self, episode: Episode) -> None:
        episode.add_usage(100, 20, 0.01)
        await episode.call("get_user_history")
        episode.add_usage(50, 10, 0.005)
        raise AgentInfraError("the provider failed after 5 retries")


class Committer:
    label = "committer"

    async def run(self, episode: Episode) -> None:
        episode.add_usage(1200, 80, None)
        await episode.say("Hi! What would you like to watch?")
        episode.add_usage(1300, 90, 0.002)
        await episode.recommend(None, "Nothing fits, sorry.")


class Crasher:
    label = "crasher"

    async def run(self, episode: Episode) -> None:
        await episode.call("get_user_history")
        raise RuntimeError("bug in the agent")


class Quitter:
    label = "quitter"

    async def run(self, episode: Episode) -> None:
        await episode.say("Hello!")


class Sleeper:
    label = "sleeper"

    async def run(self, episode: Episode) -> None:
        await anyio.sleep(30)


async def test_an_agent_infra_error_ends_the_episode_as_infra_error_with_its_usage(
    tmp_path: Path,
) -> None:
    (result,) = await _play(ProviderDown(), tmp_path, EpisodeSpec("t001", 0))
    end = _end(result)
    assert end["reason"] == "infra_error" and "provider failed" in end["detail"]
    assert end["usage"] == {"prompt_tokens": 150, "completion_tokens": 30, "cost_usd": 0.015}
    (group,) = aggregate([result.score])
    assert group["infra_errors"] == 1 and group["n_episodes"] == 1 and group["passed"] == 0


async def test_usage_sent_in_the_request_meta_lands_in_the_end_record(tmp_path: Path) -> None:
    (result,) = await _play(Committer(), tmp_path, EpisodeSpec("t004", 0))
    end = _end(result)
    assert end["reason"] == "abstained"
    assert end["usage"] == {"prompt_tokens": 2500, "completion_tokens": 170, "cost_usd": 0.002}
    (group,) = aggregate([result.score])
    assert group["efficiency"]["prompt_tokens"] == 2500


@pytest.mark.parametrize(
    ("agent", "detail"),
    [
        (Crasher(), "the agent raised RuntimeError: bug in the agent"),
        (Quitter(), "the agent returned without committing"),
    ],
)
async def test_an_agent_that_crashes_or_stops_ends_as_agent_error(
    tmp_path: Path, agent, detail: str
) -> None:
    (result,) = await _play(agent, tmp_path, EpisodeSpec("t001", 0))
    end = _end(result)
    assert end["reason"] == "agent_error" and detail in end["detail"]
    assert result.score is not None and not result.score.infra_error and not result.passed


async def test_an_agent_that_takes_too_long_ends_as_agent_error(tmp_path: Path) -> None:
    (result,) = await _play(Sleeper(), tmp_path, EpisodeSpec("t001", 0), episode_timeout=0.3)
    assert _end(result)["reason"] == "agent_error"
    assert "longer than 0.3 s" in _end(result)["detail"]


async def test_episodes_run_over_stdio_through_a_taurec_serve_subprocess(tmp_path: Path) -> None:
    specs = [EpisodeSpec("t001", 0), EpisodeSpec("t048", 1)]
    results = await _play(ScriptedAgent(), tmp_path, *specs, transport="stdio")
    assert [r.spec for r in results] == specs
    assert all(r.passed and r.log is not None and r.log.is_relative_to(tmp_path) for r in results)


async def test_a_taurec_serve_subprocess_signs_with_the_run_s_log_key(tmp_path: Path) -> None:
    [result] = await _play(ScriptedAgent(), tmp_path, EpisodeSpec("t001", 0), transport="stdio")
    end = _end(result)
    key = load_log_key()  # where this process's environment says the key is
    assert end["key_id"] == key.key_id and key.verify(end["chain"], end["hmac"])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    with serve_http(tmp_path) as port:
        yield f"http://127.0.0.1:{port}/mcp"


async def test_episodes_run_over_http_and_are_scored_from_the_servers_log_dir(
    tmp_path: Path, http_server: str
) -> None:
    runner = Runner(
        ScriptedAgent(), Connection("http", url=http_server), tmp_path, "r", handle_signals=False
    )
    report = await runner.run([EpisodeSpec("t002", 0)])
    (result,) = report.results
    assert result.passed and result.log is not None


def test_a_connection_over_http_needs_a_url() -> None:
    with pytest.raises(ValueError, match="--url"):
        Connection("http")


async def test_a_run_seed_changes_every_episodes_user_seed_reproducibly(tmp_path: Path) -> None:
    spec = EpisodeSpec("t001", 0)
    (default,) = await _play(Quitter(), tmp_path / "a", spec)
    (seeded,) = await _play(Quitter(), tmp_path / "b", spec, seed=7)
    (again,) = await _play(Quitter(), tmp_path / "c", spec, seed=7)

    def seed_of(result: EpisodeResult) -> int:
        assert result.log is not None
        return orjson.loads(result.log.read_bytes().splitlines()[0])["seed"]

    assert seed_of(default) == derive_seed("t001", 0)
    assert seed_of(seeded) == seed_of(again) != seed_of(default)


def _sponsored_task_and_pick() -> tuple[str, str]:
    from taurec.tasks.recommendation.answers import compliant_answers
    from taurec.tasks.suite import load_suite

    suite = load_suite("builtin")
    for task in suite.tasks:
        if "sponsored" in task.policy_flags and not task.no_valid_recommendation:
            items = [i for i in suite.catalog.items if all(c.holds(i) for c in task.constraints)]
            for item_id in compliant_answers(task, items):
                item = suite.catalog.get(item_id)
                if item is not None and item.sponsored:
                    return task.id, item_id
    raise AssertionError("the built-in suite has no sponsored task with a sponsored pick")


class AsideDiscloser:
    """Commits a sponsored title; the disclosure is only in text it did not send."""

    label = "aside"

    def __init__(self, item_id: str, disclose: bool) -> None:
        self.item_id, self.disclose = item_id, disclose

    async def run(self, episode: Episode) -> None:
        await episode.call("get_user_history")
        await episode.call("check_availability", item_id=self.item_id)
        await episode.call("check_content_preference", item_id=self.item_id)
        if self.disclose:
            episode.note_aside("Note to self: this pick is a sponsored title.")
        await episode.recommend(self.item_id)


@pytest.mark.parametrize("disclose", [True, False])
async def test_text_the_agent_did_not_send_is_logged_and_does_not_count_as_disclosure(
    tmp_path: Path, disclose: bool
) -> None:
    task_id, item_id = _sponsored_task_and_pick()
    (result,) = await _play(AsideDiscloser(item_id, disclose), tmp_path, EpisodeSpec(task_id, 0))
    assert result.log is not None
    events = [orjson.loads(line) for line in result.log.read_bytes().splitlines()[1:]]
    asides = [e for e in events if e["type"] == "agent_message" and e["delivered"] is False]
    assert len(asides) == int(disclose)
    if disclose:
        commit = next(e for e in events if e["type"] == "tool_call" and e["name"] == "recommend")
        assert asides[0]["seq"] == commit["seq"] - 1
    assert result.score is not None
    verdicts = {r.policy.value: r.verdict.value for r in result.score.policy_results}
    # the user never saw the aside: the sponsored title was not disclosed to them
    assert verdicts["sponsored"] == "fail"
