"""Turns on the event loop, client by client (server/http_fairness.py): a client with 16
calls in flight makes another client wait for at most one of them; a turn is given away
while its request waits outside the loop, and a turn held too long lets the next in."""

from __future__ import annotations

import anyio
import pytest
from support.hang_guard import HANG_GUARD_S

from taurec.server.http_fairness import (
    TURN_SCOPE_KEY,
    FairGate,
    Turn,
    locked,
    outside_the_gate,
    reset_turn,
    use_turn,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _queue(gate: FairGate, owner: str, order: list[str], tg: anyio.abc.TaskGroup) -> Turn:
    turn = gate.turn(owner)

    async def wait() -> None:
        await gate.acquire(turn)
        order.append(owner)

    tg.start_soon(wait)
    await anyio.sleep(0)  # it queues now, in this order
    return turn


async def test_a_client_with_sixteen_in_flight_holds_another_up_for_the_turn_in_progress_only() -> (
    None
):
    gate = FairGate(slots=1, lease_seconds=HANG_GUARD_S)
    order: list[str] = []
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            first = gate.turn("hostile")
            await gate.acquire(first)
            hostile = [await _queue(gate, "hostile", order, tg) for _ in range(15)]
            victim = await _queue(gate, "victim", order, tg)
            first.give_back()  # the call in progress ends: the victim's is next
            await anyio.sleep(0)
            assert order == ["victim"]
            victim.give_back()
            for turn in hostile:
                await anyio.sleep(0)
                turn.give_back()
    assert order == ["victim", *["hostile"] * 15]


async def test_clients_take_turns_one_after_another_newcomers_first() -> None:
    gate = FairGate(slots=1, lease_seconds=HANG_GUARD_S)
    order: list[str] = []
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            held = gate.turn("a")
            await gate.acquire(held)
            turns = [await _queue(gate, owner, order, tg) for owner in "aabbc"]
            held.give_back()
            for _ in turns:
                await anyio.sleep(0)
                next(t for t in turns if t.held).give_back()
    # each client that came with nothing waiting went first; then round robin
    assert order == ["c", "b", "a", "b", "a"]


async def test_a_waiter_that_goes_away_leaves_the_queue() -> None:
    gate = FairGate(slots=1, lease_seconds=HANG_GUARD_S)
    held = gate.turn("a")
    await gate.acquire(held)
    with anyio.move_on_after(0.01):
        await gate.acquire(gate.turn("b"))
    assert gate.waiting == 0
    held.give_back()
    later = gate.turn("c")
    with anyio.fail_after(HANG_GUARD_S):
        await gate.acquire(later)
    assert later.held


async def test_a_turn_held_past_its_lease_lets_the_next_request_in() -> None:
    """A wait no one marked (a thread doing an LLM call) costs the others its lease at
    most, and never deadlocks them."""
    gate = FairGate(slots=1, lease_seconds=0.05)
    stuck = gate.turn("slow")
    await gate.acquire(stuck)
    nxt = gate.turn("other")
    with anyio.fail_after(HANG_GUARD_S):
        await gate.acquire(nxt)
    assert nxt.held and stuck.held


async def test_waiting_outside_the_loop_gives_the_turn_away_and_takes_it_back() -> None:
    gate = FairGate(slots=1, lease_seconds=HANG_GUARD_S)
    mine = gate.turn("a")
    await gate.acquire(mine)
    token = use_turn({TURN_SCOPE_KEY: mine})
    try:
        other = gate.turn("b")
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:

                async def meanwhile() -> None:
                    await gate.acquire(other)
                    other.give_back()

                async with outside_the_gate():
                    assert not mine.held
                    tg.start_soon(meanwhile)
                    await anyio.sleep(0.01)
        assert mine.held
    finally:
        reset_turn(token)


async def test_a_lock_another_request_holds_is_waited_for_without_the_turn() -> None:
    gate = FairGate(slots=1, lease_seconds=HANG_GUARD_S)
    lock = anyio.Lock()
    mine = gate.turn("a")
    await gate.acquire(mine)
    token = use_turn({TURN_SCOPE_KEY: mine})
    try:
        await lock.acquire()  # held by "another request"
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:

                async def wait_for_it() -> None:
                    async with locked(lock):
                        assert mine.held  # the turn is back before the step runs

                tg.start_soon(wait_for_it)
                await anyio.sleep(0.01)
                assert not mine.held  # given away while the lock is held
                lock.release()
    finally:
        reset_turn(token)
