"""A watch stream's queue (fanout.WatchQueue): a notification waiting is taken at once, and a
wait for one ends by its own time, however the queue's one timer was left by the waits before
it. On uvloop, the server's event loop. The bounds on how late a wait may end are generous (a
busy machine runs timers late); how early it may end is the loop's rounding of a timer to the
millisecond."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
import uvloop

from croupier.service.store.fanout import Fanout, WatchQueue

EARLY = 0.002  # a timer may run up to a millisecond early: its delay is rounded to one
LATE = 2.0  # how late a busy machine may run it


def run(test: Callable[[], Awaitable[None]]) -> None:
    uvloop.run(asyncio.wait_for(test(), 30))


async def timed_out(queue: WatchQueue, seconds: float) -> float:
    """How long `queue.next(seconds)` waited before it gave up."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError):
        await queue.next(seconds)
    return loop.time() - started


def test_a_waiting_notification_is_taken_without_a_wait() -> None:
    async def test() -> None:
        queue = WatchQueue()
        queue.offer(b"one")
        queue.offer(b"two")
        assert await queue.next(0) == b"one"
        assert await queue.next(0) == b"two"

    run(test)


def test_a_notification_ends_the_wait_for_it() -> None:
    async def test() -> None:
        queue = WatchQueue()
        asyncio.get_running_loop().call_later(0.05, queue.offer, b"move")
        assert await queue.next(60) == b"move"

    run(test)


def test_a_wait_with_nothing_offered_ends_at_its_time() -> None:
    async def test() -> None:
        waited = await timed_out(WatchQueue(), 0.2)
        assert 0.2 - EARLY <= waited < 0.2 + LATE

    run(test)


@pytest.mark.parametrize(
    ("first", "answered_after", "second"),
    [(0.3, 0.15, 0.3), (60, 0.05, 0.2)],
    ids=[
        "the first wait's timer fires while the second has time left",
        "the first wait's timer would end the second late",
    ],
)
def test_a_wait_after_an_answered_one_ends_at_its_own_time(
    first: float, answered_after: float, second: float
) -> None:
    async def test() -> None:
        queue = WatchQueue()
        asyncio.get_running_loop().call_later(answered_after, queue.offer, b"move")
        assert await queue.next(first) == b"move"
        waited = await timed_out(queue, second)
        assert second - EARLY <= waited < second + LATE

    run(test)


def test_a_queue_that_leaves_the_fanout_keeps_no_timer() -> None:
    """A stream that ended leaves nothing scheduled on the loop holding its queue."""

    async def test() -> None:
        fanout = Fanout()
        queue, first = fanout.add("channel")
        assert first
        asyncio.get_running_loop().call_later(0.05, fanout.publish, "channel", b"move")
        assert await queue.next(60) == b"move"
        assert queue._timer is not None  # left set after the answered wait, for the next one
        assert fanout.remove("channel", queue)
        assert queue.closed and queue._timer is None

    run(test)
