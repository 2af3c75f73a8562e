"""What a commit answers, the same from both stores: written; refused as stale with the game as
it is now; refused with the record of a request applied before; refused past its deadline; and
nothing changed by any refusal. The Redis store runs against a real redis-server."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis

from croupier.service.application.config import Settings
from croupier.service.application.recent_states import RecentStates
from croupier.service.application.writes import GameWrites
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.service.store.memory_store import MemoryStore
from croupier.service.store.protocol import Commit, FeedEntry, IndexEntry, Snapshot, Store
from croupier.service.store.redis_store import COMMIT_SCRIPT, RedisStore, commit_arguments
from tests.redis_cluster import EmbeddedRedisCluster, direct_client

GAME = "0123456789abcdef01234567"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with EmbeddedRedis() as server:
        yield server.url


@pytest.fixture(params=["memory", "redis"])
def store_factory(request: pytest.FixtureRequest, redis_url: str) -> Callable[[], Store]:
    if request.param == "memory":
        return MemoryStore
    with redis.Redis.from_url(redis_url) as client:
        client.flushdb()  # each test starts from an empty store
    return lambda: RedisStore(redis_url)


def run(store_factory: Callable[[], Store], scenario: Callable[[Store], Awaitable[None]]) -> None:
    async def main() -> None:
        store = store_factory()
        try:
            await store.create(GAME, b"state 1", ttl_seconds=60)
            await scenario(store)
        finally:
            await store.close()

    asyncio.run(main())


def move(expected: int, data: bytes, request_id: str | None = None) -> Commit:
    return Commit(
        game_id=GAME,
        expected_version=expected,
        data=data,
        log_entry=b"entry",
        notification_head=b"",
        ttl_seconds=60,
        request_id=request_id,
        record=None if request_id is None else b"record of " + data,
        record_ttl_seconds=60,
    )


def test_a_current_commit_is_written(store_factory: Callable[[], Store]) -> None:
    async def scenario(store: Store) -> None:
        assert (await store.commit(move(1, b"state 2"))).written
        assert await store.load(GAME) == Snapshot(2, b"state 2", None)

    run(store_factory, scenario)


def test_a_stale_commit_is_answered_with_the_game_as_it_is(
    store_factory: Callable[[], Store],
) -> None:
    async def scenario(store: Store) -> None:
        await store.commit(move(1, b"state 2"))
        result = await store.commit(move(1, b"other state 2"))
        assert not result.written and not result.too_late
        assert result.current == Snapshot(2, b"state 2", None)
        assert await store.load(GAME) == Snapshot(2, b"state 2", None)

    run(store_factory, scenario)


def test_a_commit_of_a_request_applied_before_is_answered_with_its_record(
    store_factory: Callable[[], Store],
) -> None:
    async def scenario(store: Store) -> None:
        await store.commit(move(1, b"state 2", request_id="r1"))
        await store.commit(move(2, b"state 3"))
        # Decided again on the current version: still refused, because of the record.
        result = await store.commit(move(3, b"state 4", request_id="r1"))
        assert not result.written
        assert result.current == Snapshot(3, b"state 3", b"record of state 2")
        assert await store.load(GAME) == Snapshot(3, b"state 3", None)

    run(store_factory, scenario)


def test_a_commit_past_its_deadline_is_not_written(store_factory: Callable[[], Store]) -> None:
    async def scenario(store: Store) -> None:
        late = replace(move(1, b"state 2", "r1"), deadline_ms=int(time.time() * 1000) - 1)
        result = await store.commit(late)
        assert (result.written, result.too_late, result.current) == (False, True, None)
        assert await store.load(GAME, "r1") == Snapshot(1, b"state 1", None)
        in_time = replace(late, deadline_ms=int(time.time() * 1000) + 5000)
        assert (await store.commit(in_time)).written

    run(store_factory, scenario)


def test_a_commit_to_a_game_that_is_gone_says_so(store_factory: Callable[[], Store]) -> None:
    async def scenario(store: Store) -> None:
        result = await store.commit(replace(move(1, b"state 2"), game_id="f" * 24))
        assert (result.written, result.too_late, result.current) == (False, False, None)

    run(store_factory, scenario)


def test_the_game_and_its_move_log_are_read_together(store_factory: Callable[[], Store]) -> None:
    """What WatchGame resumes from, the same from both stores: the log holds the written moves
    only, oldest first, and starts again with a new game under the same id."""

    async def scenario(store: Store) -> None:
        assert await store.load_with_log(GAME) == (Snapshot(1, b"state 1", None), [])
        for version in (1, 2, 3):
            entry = replace(
                move(version, b"state %d" % (version + 1)), log_entry=b"move %d" % version
            )
            assert (await store.commit(entry)).written
        assert not (await store.commit(replace(move(1, b"stale"), log_entry=b"stale"))).written
        assert await store.load_with_log(GAME) == (
            Snapshot(4, b"state 4", None),
            [b"move 1", b"move 2", b"move 3"],
        )
        assert await store.load_with_log("f" * 24) is None
        await store.create(GAME, b"new state 1", ttl_seconds=60)
        assert await store.load_with_log(GAME) == (Snapshot(1, b"new state 1", None), [])

    run(store_factory, scenario)


STREAM = "croupier:feed:{feed-0}"
FEED = (
    FeedEntry(STREAM, b"move event", {"kind": "move", "game": "games/x", "version": "2"}, 100),
    FeedEntry(STREAM, b"end event", {"kind": "game_finished", "game": "games/x"}, 100),
)
DUE = IndexEntry("croupier:due:{due-0}", 1234, GAME)


def with_entries(commit: Commit) -> Commit:
    return replace(commit, due=DUE, feed=FEED)


def fed(store: Store, redis_url: str) -> list[tuple[dict[str, str], bytes]]:
    """The stream's entries, each its plain fields and its event."""
    if isinstance(store, MemoryStore):
        return store.feed.get(STREAM, [])
    with redis.Redis.from_url(redis_url) as plain:
        entries = plain.xrange(STREAM)
    return [
        ({k.decode(): v.decode() for k, v in fields.items() if k != b"event"}, fields[b"event"])
        for _, fields in entries
    ]


async def indexed(store: Store) -> list[IndexEntry]:
    return await store.index_page([DUE.key], None, 10)


def test_a_moves_entries_are_written_with_it_once_written(
    store_factory: Callable[[], Store], redis_url: str
) -> None:
    """A commit's due-index and feed entries go in its own step where the store can
    (docs/architecture.md, "Turn clocks", rule 3; docs/api.md, "The event feed"): after the
    write, in order; none for a commit that is refused, nor twice for one sent twice."""

    async def scenario(store: Store) -> None:
        result = await store.commit(with_entries(move(1, b"state 2", "r1")))
        assert (result.written, result.feed_lost, result.due_refused) == (True, 0, False)
        assert result.later is None  # answered with the commit
        expected = [(entry.fields, entry.event) for entry in FEED]
        assert fed(store, redis_url) == expected
        assert await indexed(store) == [DUE]
        await store.index_remove([DUE])
        stale = await store.commit(with_entries(move(1, b"other state 2")))
        replayed = await store.commit(with_entries(move(2, b"state 3", "r1")))
        late = replace(move(2, b"state 3"), deadline_ms=int(time.time() * 1000) - 1)
        too_late = await store.commit(with_entries(late))
        assert [r.written for r in (stale, replayed, too_late)] == [False, False, False]
        assert fed(store, redis_url) == expected
        assert await indexed(store) == []
        assert await store.load(GAME) == Snapshot(2, b"state 2", None)

    run(store_factory, scenario)


def test_on_a_single_redis_a_move_sends_redis_its_commit_alone(redis_url: str) -> None:
    """GameWrites leaves a move's entries to its commit script on a single Redis: the server
    sends Redis the script and nothing else, and the script indexes the deadline and appends
    the feed entries (seen by MONITOR, which shows what clients sent and what scripts ran)."""
    with redis.Redis.from_url(redis_url) as plain:
        plain.flushdb()
    seen: list[tuple[str, str]] = []  # (client type, command name)
    listening = threading.Event()

    def monitor() -> None:
        with redis.Redis.from_url(redis_url) as watcher, watcher.monitor() as commands:
            listening.set()
            while not seen or seen[-1][1] != "ECHO":
                command = commands.next_command()
                seen.append((command["client_type"], command["command"].split()[0]))

    async def scenario(store: Store) -> None:
        writes = GameWrites(store, Settings(), RecentStates(8))
        assert (await store.commit(move(1, b"state 2"))).written  # connected, script loaded
        with redis.Redis.from_url(redis_url) as plain:
            plain.ping()  # connected before the monitor starts
            thread = threading.Thread(target=monitor, daemon=True)
            thread.start()
            assert listening.wait(10)
            result = await writes.commit(with_entries(move(2, b"state 3")))
            assert result.written and result.later is None
            await asyncio.sleep(0.1)  # a command sent without waiting would be out by now
            plain.echo("the end")
            thread.join(10)
            assert plain.xlen(STREAM) == 2
            assert plain.zscore(DUE.key, GAME) == DUE.score
        assert [name for kind, name in seen if kind != "lua"] == ["EVALSHA", "ECHO"]
        assert sorted(
            name for kind, name in seen if kind == "lua" and name in ("ZADD", "XADD")
        ) == ["XADD", "XADD", "ZADD"]

    run(lambda: RedisStore(redis_url), scenario)


def test_a_commit_sent_twice_writes_its_entries_once(redis_url: str) -> None:
    """A commit the client library sends again (its first answer lost) is recognised by its
    token: written once, its entries too."""
    with redis.Redis.from_url(redis_url) as plain:
        plain.flushdb()
        plain.hset(keys.game(GAME), mapping={"v": "1", "s": b"state 1"})
        script_keys, args = commit_arguments(
            with_entries(move(1, b"state 2")), "token-1", entries=True
        )
        sha = plain.script_load(COMMIT_SCRIPT)
        first = plain.evalsha(sha, len(script_keys), *script_keys, *args)
        plain.zrem(DUE.key, GAME)  # taken by a sweep meanwhile, say: not written again
        again = plain.evalsha(sha, len(script_keys), *script_keys, *args)
        assert (first, again) == (1, 1)
        assert plain.xlen(STREAM) == 2 and plain.zscore(DUE.key, GAME) is None
        assert plain.llen(keys.log(GAME)) == 1


def test_entries_redis_refuses_in_the_commit_leave_the_move_written(redis_url: str) -> None:
    """A refused entry (here the keys hold strings) is told, never a refused move."""
    with redis.Redis.from_url(redis_url) as plain:
        plain.flushdb()
        plain.set(STREAM, b"not a stream")
        plain.set(DUE.key, b"not a sorted set")

    async def scenario(store: Store) -> None:
        result = await store.commit(with_entries(move(1, b"state 2")))
        assert (result.written, result.feed_lost, result.due_refused) == (True, 2, True)
        assert result.refusal == "ResponseError"
        assert await store.load_with_log(GAME) == (Snapshot(2, b"state 2", None), [b"entry"])
        only_the_feed = await store.commit(replace(move(2, b"state 3"), feed=FEED))
        assert only_the_feed.written
        assert (only_the_feed.feed_lost, only_the_feed.due_refused) == (2, False)

    run(lambda: RedisStore(redis_url), scenario)


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedRedisCluster]:
    with EmbeddedRedisCluster() as running:
        yield running


def test_in_a_cluster_a_moves_entries_are_written_around_it(
    cluster: EmbeddedRedisCluster,
) -> None:
    """Their keys are in other slots than the game's: the store sends the deadline ahead of
    the commit and the feed entries after it, once it is written, and tells what Redis made of
    them once it has answered (`later`): none for a move refused (its deadline stays, a hint),
    nor for one sent again."""
    with direct_client(cluster.url) as plain:
        plain.flushall()

    async def scenario(store: Store) -> None:
        result = await store.commit(with_entries(move(1, b"state 2", "r1")))
        assert result.written and result.later is not None
        assert (result.feed_lost, result.due_refused) == (0, False)  # told by `later`
        later = await result.later
        assert (later.feed_lost, later.due_refused, later.refusal) == (0, False, "")
        assert await indexed(store) == [DUE]
        with direct_client(cluster.url) as plain:
            entries = plain.xrange(STREAM)
        assert [fields[b"event"] for _, fields in entries] == [e.event for e in FEED]
        await store.index_remove([DUE])
        stale = await store.commit(with_entries(move(1, b"other state 2")))
        replayed = await store.commit(with_entries(move(2, b"state 3", "r1")))
        assert [r.written for r in (stale, replayed)] == [False, False]
        for refused in (stale, replayed):
            assert refused.later is not None and not (await refused.later).due_refused
        assert await indexed(store) == [DUE]  # ahead of the refused moves: hints
        with direct_client(cluster.url) as plain:
            assert plain.xlen(STREAM) == len(FEED)  # nothing after a refused move
        assert await store.load(GAME) == Snapshot(2, b"state 2", None)

    run(lambda: RedisStore(cluster.url), scenario)


def test_in_a_cluster_entries_redis_refuses_are_told_later(
    cluster: EmbeddedRedisCluster,
) -> None:
    """A refused entry (the keys hold strings) never refuses the move; `later` tells it."""
    with direct_client(cluster.url) as plain:
        plain.flushall()
        plain.set(STREAM, b"not a stream")
        plain.set(DUE.key, b"not a sorted set")

    async def scenario(store: Store) -> None:
        result = await store.commit(with_entries(move(1, b"state 2")))
        assert result.written and result.later is not None
        later = await result.later
        assert (later.feed_lost, later.due_refused, later.refusal) == (2, True, "ResponseError")
        assert await store.load_with_log(GAME) == (Snapshot(2, b"state 2", None), [b"entry"])

    run(lambda: RedisStore(cluster.url), scenario)


def test_in_a_cluster_the_deadlines_of_a_turn_go_out_in_one_write(
    cluster: EmbeddedRedisCluster,
) -> None:
    """The deadlines of moves committed in one turn of the event loop share one write of
    their master's connection, at the turn's end (not one write each, at once); each entry's
    reply is told when it comes (`later`)."""
    with direct_client(cluster.url) as plain:
        plain.flushall()
    due = keys.due_index(0)
    masters = [redis.Redis(port=node.port) for node in cluster.nodes]
    with direct_client(cluster.url) as plain:
        due_port = plain.get_node_from_key(due).port
        # Games whose master is not the deadlines': its reads are the deadlines' alone.
        games = [
            g
            for g in (f"{n:024x}" for n in range(200))
            if plain.get_node_from_key(keys.game(g)).port != due_port
        ][:5]
    due_master = next(m for m in masters if m.connection_pool.connection_kwargs["port"] == due_port)

    def reads() -> int:
        """The reads the deadlines' master has made from its clients (this question's included)."""
        return int(due_master.info("stats")["total_reads_processed"])

    async def scenario(store: Store) -> None:
        for game in games:
            await store.create(game, b"state 1", ttl_seconds=60)
        await store.index_add([IndexEntry(due, 1, GAME)])  # the entries' master connected
        before = reads()
        commits = [
            replace(move(1, b"state 2"), game_id=g, due=IndexEntry(due, 1000 + n, g))
            for n, g in enumerate(games)
        ]
        results = await asyncio.gather(*(store.commit(c) for c in commits))
        assert all(r.written and r.later is not None for r in results)
        outcomes = [await r.later for r in results if r.later is not None]
        assert [o.due_refused for o in outcomes] == [False] * len(games)
        # One read of the entries, and one for this count.
        assert reads() - before == 2
        page = await store.index_page([due], None, 10)
        assert [e.game_id for e in page[:5]] == [c.game_id for c in reversed(commits)]

    try:
        run(lambda: RedisStore(cluster.url), scenario)
    finally:
        for master in masters:
            master.close()


def score_seen_holding_the_loop(url: str, entry: IndexEntry) -> float | None:
    """The entry's score as Redis comes to hold it within 10 s, asked from outside the event
    loop while it is held still (the caller's: this blocks it), so that nothing the process
    has not written yet can reach Redis meanwhile."""
    with direct_client(url) as plain:
        deadline = time.monotonic() + 10
        while (score := plain.zscore(entry.key, entry.game_id)) is None:
            if time.monotonic() > deadline:
                return None
            time.sleep(0.01)
        return float(score)


def test_in_a_cluster_a_moves_deadline_is_written_before_its_commit_is_sent(
    cluster: EmbeddedRedisCluster,
) -> None:
    """docs/architecture.md, "Turn clocks", rule 3: when the commit is sent, its deadline is on
    its way to its master (written to the connection), so the commit can never reach Redis
    without it. Checked with the event loop held still as the commit script is called: an
    entry still waiting in the process would never reach Redis meanwhile."""
    with direct_client(cluster.url) as plain:
        plain.flushall()

    async def scenario(store: Store) -> None:
        assert isinstance(store, RedisStore)
        assert (await store.commit(move(1, b"state 2"))).written  # connected, map read
        await store.index_add([DUE])  # the entry's master connected too
        await store.index_remove([DUE])
        seen: list[float | None] = []
        script = store._commit

        def held(*args: Any, **kwargs: Any) -> Any:
            seen.append(score_seen_holding_the_loop(cluster.url, DUE))
            return script(*args, **kwargs)

        store._commit = held
        assert (await store.commit(replace(move(2, b"state 3"), due=DUE))).written
        assert seen == [DUE.score]

    run(lambda: RedisStore(cluster.url), scenario)
