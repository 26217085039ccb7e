"""Episodes and their store: ids, turn budget, commits, ends, locking, failures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.server.recommendation.episode import Episode
from taurec.server.recommendation.episodes import EpisodeStore
from taurec.server.recommendation.simulator import UserReply
from taurec.server.run_facts import RunFacts, derive_seed
from taurec.tasks.errors import ArgumentError, EpisodeError
from taurec.tasks.recommendation.task import RecommendationTask
from taurec.tasks.trajectory.format import SuiteRef
from taurec.tasks.trajectory.reader import read_log

CATALOG = Catalog.from_items(
    [
        Item(
            id=f"m{i}",
            title=f"Film Number {i}",
            release_date=date(2019, 5, 1),
            runtime=100,
            genres=["Comedy"],
            rating=7.0,
            vote_count=500,
            streaming_services=["Netflix"],
            content_rating="PG",
        )
        for i in range(1, 4)
    ]
)


def _task(**protocol: int) -> RecommendationTask:
    return RecommendationTask.model_validate(
        {
            "id": "t1",
            "persona": "You are Ana.",
            "constraints": [{"field": "genres", "op": "contains", "value": "Comedy"}],
            "protocol": protocol,
        }
    )


@dataclass
class StandInUser:
    """A trivial simulated user: echoes, leaves when told 'bye', accepts what is committed."""

    kind: str = "stand-in"
    fail: bool = False

    def opening(self) -> str:
        return "Hi, I want a comedy."

    def respond(self, agent_text: str) -> UserReply:
        if self.fail:
            raise RuntimeError("simulator bug")
        return UserReply(f"You said: {agent_text}", left="bye" in agent_text)

    def react_to_commit(self, item_id: str | None) -> UserReply:
        return UserReply("Thanks!" if item_id else "Oh well.", accepted=item_id)


def _store(tmp_path: Path, user: StandInUser | None = None, **kw: Any) -> EpisodeStore:
    facts = RunFacts(
        run_id="r1",
        suite=SuiteRef(id="builtin", spec="builtin"),
        catalog_sha256=CATALOG.sha256(),
        server_version="test",
        log_dir=tmp_path,
    )
    return EpisodeStore(CATALOG, lambda task, catalog, seed: user or StandInUser(), facts, **kw)


async def _start(store: EpisodeStore, task: RecommendationTask | None = None) -> Episode:
    return await store.start(task or _task(), trial=0, seed=1, agent_label="a")


async def _say(episode: Episode, text: str) -> Any:
    async with episode.lock:
        return await episode.send_message(text)


async def _commit(episode: Episode, item_id: str | None) -> Any:
    async with episode.lock:
        return await episode.recommend(item_id, None, CATALOG)


def _events(episode: Episode) -> list[dict[str, Any]]:
    parsed = read_log(episode.log_path)
    return parsed.events


async def test_episode_ids_are_unguessable_and_unique(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids = {(await _start(store)).id for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)  # 128 bits of hex


async def test_start_logs_the_header_and_the_opening(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    parsed = read_log(episode.log_path)
    assert parsed.header is not None and parsed.header.episode_id == episode.id
    assert parsed.events[0]["type"] == "user_message"
    assert parsed.events[0]["text"] == episode.opening == "Hi, I want a comedy."


async def test_the_log_header_names_the_task_kind(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    raw = episode.log_path.read_bytes().splitlines()[0]
    assert b'"kind":"recommendation"' in raw


async def test_an_unknown_id_is_refused_with_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(EpisodeError, match="start_episode returned"):
        _store(tmp_path).get("f" * 32)


async def test_the_turn_budget_ends_the_episode(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path), _task(max_turns=2))
    first = await _say(episode, "hello")
    assert (first.turns_left, first.episode_ended) == (1, False)
    last = await _say(episode, "what genre?")
    assert (last.turns_left, last.episode_ended, last.end_reason) == (0, True, "max_turns")
    assert _events(episode)[-1]["reason"] == "max_turns"


async def test_a_user_who_leaves_ends_the_episode(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    reply = await _say(episode, "ok bye")
    assert reply.user_left and reply.end_reason == "user_left"
    assert [e["type"] for e in _events(episode)][-2:] == ["user_message", "end"]


async def test_a_commit_ends_the_episode_with_the_item(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    result = await _commit(episode, "m2")
    assert (result.committed, result.title, result.episode_ended) == ("m2", "Film Number 2", True)
    events = _events(episode)
    assert [e["type"] for e in events[-4:]] == ["tool_call", "user_message", "tool_result", "end"]
    assert (events[-1]["reason"], events[-1]["item_id"]) == ("recommended", "m2")


async def test_null_abstains(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    result = await _commit(episode, None)
    assert result.abstained and _events(episode)[-1]["reason"] == "abstained"


@pytest.mark.parametrize("item_id", ["", "null", "None", "nope", " m1"])
async def test_a_bad_item_id_commits_nothing_and_the_episode_goes_on(
    tmp_path: Path, item_id: str
) -> None:
    episode = await _start(_store(tmp_path))
    with pytest.raises(ArgumentError, match="Nothing was committed"):
        await _commit(episode, item_id)
    assert episode.end is None and episode.commits == []
    result = _events(episode)[-1]
    assert result["type"] == "tool_result" and result["is_error"] is True


async def test_several_recommendations_when_the_protocol_allows_them(tmp_path: Path) -> None:
    user = StandInUser()
    user.react_to_commit = lambda item_id: UserReply("Not that one.")  # type: ignore[method-assign]
    episode = await _start(_store(tmp_path, user), _task(max_recommendations=2))
    first = await _commit(episode, "m1")
    assert (first.episode_ended, first.recommendations_left) == (False, 1)
    second = await _commit(episode, "m2")
    assert second.episode_ended and _events(episode)[-1]["item_id"] == "m2"


async def test_after_the_end_every_step_says_how_it_ended(tmp_path: Path) -> None:
    store = _store(tmp_path)
    episode = await _start(store)
    await _commit(episode, "m3")
    for step in (lambda: store.get(episode.id), episode.check_open):
        with pytest.raises(EpisodeError, match=r"has ended \(recommended\): you recommended m3"):
            step()


async def test_a_simulator_failure_ends_the_episode_as_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    episode = await _start(_store(tmp_path, StandInUser(fail=True)))
    with pytest.raises(EpisodeError, match="internal server error"):
        await _say(episode, "hello")
    end = _events(episode)[-1]
    assert end["type"] == "end" and end["reason"] == "infra_error"
    assert "simulator bug" in end["detail"]


async def test_concurrent_calls_on_one_episode_serialise(tmp_path: Path) -> None:
    episode = await _start(_store(tmp_path))
    async with anyio.create_task_group() as tg:
        for i in range(15):
            tg.start_soon(_say, episode, f"message {i}")
    events = _events(episode)[1:]
    assert [e["seq"] for e in events] == list(range(2, 32))
    for said, answer in zip(events[0::2], events[1::2], strict=True):
        assert answer["text"] == f"You said: {said['text']}"


async def test_the_open_episode_limit_is_enforced(tmp_path: Path) -> None:
    store = _store(tmp_path, max_open=2)
    first = await _start(store)
    await _start(store)
    with pytest.raises(EpisodeError, match="limit"):
        await _start(store)
    await _commit(first, None)  # an ended episode frees its place
    await _start(store)


def test_the_default_seed_is_stable_and_differs_by_trial() -> None:
    assert derive_seed("t001", 0) == derive_seed("t001", 0)
    assert derive_seed("t001", 0) != derive_seed("t001", 1)
    assert derive_seed("t001", 0) == 3629712993  # pinned: logs from other machines must agree
