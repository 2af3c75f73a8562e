"""Local fan-out of a game's notifications to the watchers of one process.

Each watcher gets a bounded queue; a watcher too slow to keep up loses the oldest pending
notifications (each carries the whole game, so its next view is still current).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

QUEUE_SIZE = 64


class Fanout:
    def __init__(self) -> None:
        self._queues: defaultdict[str, set[asyncio.Queue[bytes]]] = defaultdict(set)

    def add(self, channel: str) -> tuple[asyncio.Queue[bytes], bool]:
        """A new queue for `channel`, and whether it is the channel's first."""
        queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE_SIZE)
        first = channel not in self._queues
        self._queues[channel].add(queue)
        return queue, first

    def remove(self, channel: str, queue: asyncio.Queue[bytes]) -> bool:
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
        for queue in self._queues.get(channel, ()):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(payload)
