"""The measured store's watch (service/croupier/service/observability/metrics.py,
`MeasuredStore.watch`): the store's own watch opened and closed as without it, whatever ends the
stream, and a watch the store cannot open counted as a store error. A real redis-server, stopped,
for the failure."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import REGISTRY

from croupier.service.observability.metrics import MeasuredStore
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.service.store.memory_store import MemoryStore
from croupier.service.store.protocol import StoreUnavailable
from croupier.service.store.redis_store import RedisStore


def watch_errors() -> float:
    counted = REGISTRY.get_sample_value("croupier_store_errors_total", {"operation": "watch"})
    return counted or 0.0


def test_the_watch_is_the_stores_own_and_is_closed_however_the_stream_ends() -> None:
    async def main() -> None:
        store = MeasuredStore(MemoryStore())
        async with store.watch("g1") as queue:
            assert not queue.closed and queue.empty()
        assert queue.closed  # left the fan-out
        with pytest.raises(LookupError):
            async with store.watch("g1") as failed:
                raise LookupError("the stream's own error")
        assert failed.closed
        with pytest.raises(asyncio.CancelledError):
            async with store.watch("g1") as cancelled:
                raise asyncio.CancelledError
        assert cancelled.closed

    asyncio.run(main())


def test_a_watch_the_store_cannot_open_is_counted() -> None:
    with EmbeddedRedis() as redis:
        url = redis.url
    before = watch_errors()

    async def main() -> None:
        store = MeasuredStore(RedisStore(url, timeout=0.5))
        try:
            with pytest.raises(StoreUnavailable):
                async with store.watch("g1"):
                    raise AssertionError("not reached: the store is down")
        finally:
            await store.close()

    asyncio.run(main())
    assert watch_errors() == before + 1
