"""Local fan-out of a game's notifications to the watchers of one process.

Each watcher gets a bounded queue. A watcher too slow to keep up is never skipped silently:
when its queue is full the newest notification is not queued, the queue counts it as skipped
and tells its owner (`on_overflow`), which either catches up from the store's move log or, when
the client itself is not reading, ends the stream with a reason.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable

QUEUE_SIZE = 64


class WatchQueue(asyncio.Queue[bytes]):
    """A watcher's pending notifications, and how many did not fit since it last caught up."""

    def __init__(self, maxsize: int = QUEUE_SIZE) -> None:
        super().__init__(maxsize)
        self.skipped = 0
        self.closed = False
        # Called (synchronously, by the publisher) for every notification that did not fit.
        self.on_overflow: Callable[[], None] | None = None

    def close(self) -> None:
        """Take no more notifications and let go of those held (the stream is ending)."""
        self.closed = True
        while not self.empty():
            self.get_nowait()

    def offer(self, payload: bytes) -> None:
        if self.closed:
            return
        if self.full():
            # The oldest stay queued (they come first); the newest are in the store's log.
            self.skipped += 1
            if self.on_overflow is not None:
                self.on_overflow()
            return
        self.put_nowait(payload)


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
        if queues:
            return False
        del self._queues[channel]
        return True

    def publish(self, channel: str, payload: bytes) -> None:
        # A copy: an overflow callback may end a stream, which removes its queue.
        for queue in list(self._queues.get(channel, ())):
            queue.offer(payload)
