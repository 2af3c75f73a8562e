"""Local fan-out of a game's notifications to the watchers of one process.

Each watcher gets a queue, and is never skipped silently. Once QUEUE_SIZE notifications wait in
it, the queue tells its owner of every further one (`on_overflow`): a stream whose write gRPC
holds (its client is not reading) is then ended with a reason. A stream merely behind (the
server is busy) keeps receiving up to QUEUE_LIMIT; what comes beyond is counted as skipped, and
the stream fills that gap from the store's move log.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

QUEUE_SIZE = 64  # waiting notifications beyond which a stream whose write is held is ended
# The most a queue holds: notifications are shared by every queue of a game, so each waiting
# one costs a queue a reference, and a game at most this many distinct payloads.
QUEUE_LIMIT = 1024


@dataclass(slots=True)
class Inbound:
    """A message from a session's client (None: the client closed its side), waiting in its
    stream's queue in turn with the game's notifications, so that one loop sends every message
    of the stream. `handled` is set once the stream has dealt with it: the client's next
    message is read only then."""

    message: object
    handled: asyncio.Event = field(default_factory=asyncio.Event)


class WatchQueue:
    """A watcher's pending notifications, and how many did not fit since it last caught up.

    Not an asyncio.Queue: its stream waits with `next`, which takes a waiting notification
    without suspending and otherwise waits on one future, where `asyncio.wait_for(queue.get(),
    ...)` made a task per wait. One timer serves all
    of a queue's waits: made when a wait finds none, moved only when it would end a wait late,
    and otherwise left to fire, when it ends the wait that has reached its time or is set again
    for the wait in progress. A timer made and cancelled at every wait was a visible share of
    an update's cost."""

    def __init__(self) -> None:
        # Bounded by `offer`. A list, not a deque: most hold nothing or one notification, and
        # an empty deque takes about 600 bytes more than an empty list, in every open stream;
        # taking the first of QUEUE_LIMIT moves 8 KB, well under a microsecond.
        self._items: list[bytes | Inbound] = []
        self._waiter: asyncio.Future[None] | None = None
        self._until = 0.0  # the loop's time at which the wait in progress ends
        self._timer: asyncio.TimerHandle | None = None  # fires no later than `_until`
        self.skipped = 0
        self.closed = False
        # Called (synchronously, by the publisher) for every notification that comes while
        # QUEUE_SIZE are waiting.
        self.on_overflow: Callable[[], None] | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> bytes | Inbound:
        return self._items.pop(0)

    async def next(self, seconds: float) -> bytes | Inbound:
        """The oldest notification, waiting for one at most `seconds` (then TimeoutError)."""
        if not self._items:
            loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            self._until = until = loop.time() + seconds
            timer = self._timer
            if timer is None or timer.when() > until:
                if timer is not None:
                    timer.cancel()
                self._timer = loop.call_at(until, self._expire, until)
            try:
                await waiter
            finally:
                self._waiter = None
            if not self._items:
                raise TimeoutError
        return self._items.pop(0)

    def _expire(self, at: float) -> None:
        """The timer set for `at` fired: the wait in progress ends if that was its time (the
        loop may run a timer up to a millisecond early), or gets a timer for its own."""
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return  # no wait in progress: the next one sets a timer
        if at >= self._until:
            waiter.set_result(None)
        else:
            self._timer = waiter.get_loop().call_at(self._until, self._expire, self._until)

    def put_inbound(self, inbound: Inbound) -> None:
        """A session's client message: never counted against the bounds, as a session reads
        its next message only once this one is handled."""
        if not self.closed:
            self._items.append(inbound)
            _wake(self._waiter)

    def close(self) -> None:
        """Take no more notifications and let go of those held and of the timer (the stream is
        ending, or has left the fan-out)."""
        self.closed = True
        self._items.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def offer(self, payload: bytes) -> None:
        if self.closed:
            return
        if len(self._items) >= QUEUE_SIZE and self.on_overflow is not None:
            self.on_overflow()
            if self.closed:
                return
        if len(self._items) >= QUEUE_LIMIT:
            # The oldest stay queued (they come first); the newest are in the store's log.
            self.skipped += 1
            return
        self._items.append(payload)
        _wake(self._waiter)


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


class Fanout:
    def __init__(self) -> None:
        self._queues: defaultdict[str, set[WatchQueue]] = defaultdict(set)

    def add(self, channel: str) -> tuple[WatchQueue, bool]:
        """A new queue for `channel`, and whether it is the channel's first."""
        queue = WatchQueue()
        first = channel not in self._queues
        self._queues[channel].add(queue)
        return queue, first

    def remove(self, channel: str, queue: WatchQueue) -> bool:
        """Drop a queue; whether the channel has no queue left."""
        queues = self._queues.get(channel)
        if queues is None:
            return False
        queues.discard(queue)
        queue.close()
        if queues:
            return False
        del self._queues[channel]
        return True

    def publish(self, channel: str, payload: bytes) -> None:
        # A copy: an overflow callback may end a stream, which removes its queue.
        for queue in list(self._queues.get(channel, ())):
            queue.offer(payload)
