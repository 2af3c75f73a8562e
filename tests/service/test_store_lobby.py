"""The lobby's store operations, the same from both stores (the Redis store against a real
redis-server): writes that are not moves, listing-index pages with ties and cursors, the
shared page-token key."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from croupier.service.store.protocol import FeedEntry, IndexEntry, Snapshot, Store, Update
from tests.service.test_store_commit import GAME, move, redis_url, store_factory

__all__ = ["redis_url", "store_factory"]  # the fixtures, shared with test_store_commit


def run(store_factory: Callable[[], Store], scenario: Callable[[Store], Awaitable[None]]) -> None:
    async def main() -> None:
        store = store_factory()
        try:
            await store.create(GAME, b"state 1", ttl_seconds=60)
            await scenario(store)
        finally:
            await store.close()

    asyncio.run(main())


def test_a_write_that_is_not_a_move_takes_a_version_and_no_log_entry(
    store_factory: Callable[[], Store],
) -> None:
    async def scenario(store: Store) -> None:
        assert (await store.update(Update(GAME, 1, b"joined", b"", 60))).written
        stale = await store.update(Update(GAME, 1, b"lost the race", b"", 60))
        assert not stale.written and stale.current == Snapshot(2, b"joined", None)
        # A move decided on version 1 (before the join) is refused: the version moved on.
        refused = await store.commit(move(1, b"move on the old state"))
        assert not refused.written and refused.current == Snapshot(2, b"joined", None)
        assert (await store.commit(move(2, b"state 3"))).written
        assert await store.load_with_log(GAME) == (Snapshot(3, b"state 3", None), [b"entry"])
        gone = await store.update(Update("f" * 24, 1, b"x", b"", 60))
        assert not gone.written and gone.current is None
        await store.delete(GAME)
        assert await store.load_many([GAME, "f" * 24]) == [None, None]

    run(store_factory, scenario)


def test_a_write_with_a_request_record_is_made_once(store_factory: Callable[[], Store]) -> None:
    """JoinGame's write keeps its record in the same step; a second write under the same
    request id is refused with the record, whatever version it was decided on."""

    async def scenario(store: Store) -> None:
        joined = Update(GAME, 1, b"seat 1", b"", 60, "join:r1", b"first answer", 30)
        assert (await store.update(joined)).written
        again = await store.update(Update(GAME, 2, b"seat 2", b"", 60, "join:r1", b"x", 30))
        assert not again.written and again.current == Snapshot(2, b"seat 1", b"first answer")
        assert await store.load(GAME, "join:r1") == Snapshot(2, b"seat 1", b"first answer")
        other = Update(GAME, 2, b"seat 2", b"", 60, "join:r2", b"second answer", 30)
        assert (await store.update(other)).written
        assert await store.load(GAME, "join:r2") == Snapshot(3, b"seat 2", b"second answer")

    run(store_factory, scenario)


@pytest.mark.parametrize("buckets", [1, 3])
def test_index_pages_are_newest_first_and_exact_at_ties(
    store_factory: Callable[[], Store], buckets: int
) -> None:
    async def scenario(store: Store) -> None:
        keys = [f"croupier:test-index:{{b{i}}}" for i in range(buckets)]
        ids = [f"{n:024x}" for n in range(12)]
        scores = [100, 100, 100, 200, 200, 300, 300, 300, 300, 400, 500, 500]
        await store.index_add([IndexEntry(keys[n % buckets], scores[n], ids[n]) for n in range(12)])
        expected = sorted(zip(scores, ids, strict=True), reverse=True)
        seen: list[tuple[int, str]] = []
        cursor = None
        while True:
            page = await store.index_page(keys, cursor, 4)
            if not page:
                break
            seen += [(e.score, e.game_id) for e in page]
            cursor = seen[-1]
        assert seen == expected
        await store.index_remove([IndexEntry(keys[0], 100, ids[0])])
        rest = await store.index_page(keys, None, 20)
        assert ids[0] not in [e.game_id for e in rest] and len(rest) == 11

    run(store_factory, scenario)


def test_the_first_secret_stored_is_everyones(store_factory: Callable[[], Store]) -> None:
    async def scenario(store: Store) -> None:
        first = await store.shared_secret("croupier:test-secret", b"one")
        assert first == b"one"
        assert await store.shared_secret("croupier:test-secret", b"two") == b"one"
        await store.feed_append(FeedEntry("croupier:test-feed", b"event", {"kind": "x"}, 10))

    run(store_factory, scenario)
