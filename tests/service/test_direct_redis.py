"""A move's read and write answered in the calling thread (service/direct_redis.py), against a
real redis-server: the replies, the bound on the wait, and a write sent twice applied once."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis
from redis.exceptions import ResponseError

from service import keys
from service.direct_redis import DirectClient, is_local
from service.embedded_redis import EmbeddedRedis
from service.redis_store import RedisStore
from service.store import Commit


def _stall(port: int, seconds: float) -> threading.Thread:
    """Redis busy for `seconds` (DEBUG SLEEP from another connection), started before return."""
    thread = threading.Thread(
        target=lambda: redis.Redis(port=port).execute_command("DEBUG", "SLEEP", seconds)
    )
    thread.start()
    time.sleep(0.05)
    return thread


def test_only_a_redis_on_this_host_is_local() -> None:
    assert is_local("redis://127.0.0.1:6379/0")
    assert is_local("redis://localhost:6379")
    assert is_local("redis://[::1]:6379/0")
    assert is_local("redis://:secret@127.0.0.2:6379/1")
    assert not is_local("redis://10.0.0.7:6379/0")
    assert not is_local("redis://redis:6379/0")
    assert not is_local("rediss://127.0.0.1:6379/0")  # TLS goes through redis-py
    assert not is_local("redis+cluster://127.0.0.1:7000")


def test_commands_scripts_and_error_replies() -> None:
    with EmbeddedRedis() as server:
        client = DirectClient(server.url, wait=1.0)
        assert client.execute_many([("SET", "k", "v"), ("HMGET", "h", "a"), ("GET", "k")]) == [
            b"OK",
            [None],
            b"v",
        ]
        script = "return ARGV[1] .. KEYS[1]"
        assert client.run_script(script, ["k"], ["a"]) == b"ak"  # NOSCRIPT, then EVAL
        assert client.run_script(script, ["k"], ["b"]) == b"bk"  # EVALSHA
        with pytest.raises(ResponseError):
            client.execute_many([("LPUSH", "k", "x")])  # wrong type
        assert client.execute_many([("GET", "k")]) == [b"v"]  # still in step
        assert client.missed == 0
        client.close()


def test_a_late_reply_turns_the_direct_path_off_for_a_pause() -> None:
    """Redis busy: the call gives up after about `wait` (the event loop is held no longer), and
    for `pause` seconds the direct path answers None at once; then it connects again."""
    with EmbeddedRedis(extra_args=("--enable-debug-command", "local")) as server:
        client = DirectClient(server.url, wait=0.05, pause=0.5)
        assert client.execute_many([("SET", "k", "v")]) == [b"OK"]
        stalled = _stall(server.port, 0.4)
        started = time.monotonic()
        assert client.execute_many([("GET", "k")]) is None
        assert 0.04 < time.monotonic() - started < 0.2
        started = time.monotonic()
        assert client.execute_many([("GET", "k")]) is None  # off: no wait at all
        assert time.monotonic() - started < 0.01
        stalled.join()
        time.sleep(0.5)
        assert client.execute_many([("GET", "k")]) == [b"v"]
        assert client.missed == 1
        client.close()


def test_a_redis_that_is_down_costs_no_wait_and_is_found_again() -> None:
    with EmbeddedRedis() as server:
        client = DirectClient(server.url, wait=0.05, pause=0.2)
        assert client.execute_many([("PING",)]) == [b"PONG"]
        server.stop()
        started = time.monotonic()
        assert client.execute_many([("PING",)]) is None
        assert time.monotonic() - started < 0.1
        server.start()
        time.sleep(0.2)
        assert client.execute_many([("PING",)]) == [b"PONG"]
        client.close()


def test_the_store_uses_the_direct_path_only_for_a_local_redis() -> None:
    with EmbeddedRedis() as server:
        assert RedisStore(server.url, direct_wait=0.01).direct is not None
        assert RedisStore(server.url, direct_wait=0).direct is None
        assert (
            RedisStore(f"redis://localhost.invalid:{server.port}/0", direct_wait=0.01).direct
            is None
        )


def test_a_commit_sent_again_after_a_late_direct_reply_is_applied_once() -> None:
    """The direct write gives up while Redis is busy and the store sends it again through the
    event loop: Redis then runs the script twice, and the commit token makes the second a no-op
    (one version step, one log entry, success)."""

    async def run(server: EmbeddedRedis) -> None:
        store = RedisStore(server.url, timeout=2.0, direct_wait=0.05)
        assert store.direct is not None
        await store.create("g1", b"state-1", 60)
        commit = Commit(
            game_id="g1",
            expected_version=1,
            data=b"state-2",
            log_entry=b"move-1",
            notification_head=b"",
            ttl_seconds=60,
        )
        stalled = await asyncio.to_thread(_stall, server.port, 0.3)
        assert await store.commit(commit)
        await asyncio.to_thread(stalled.join)
        assert store.direct.missed == 1
        snapshot = await store.load("g1")
        assert snapshot is not None and (snapshot.version, snapshot.data) == (2, b"state-2")
        plain = redis.Redis(port=server.port)
        assert plain.lrange(keys.log("g1"), 0, -1) == [b"move-1"]
        plain.close()
        # A commit from the same version again is a conflict, not a second move.
        assert not await store.commit(commit)
        await store.close()

    with EmbeddedRedis(extra_args=("--enable-debug-command", "local")) as server:
        asyncio.run(run(server))


def test_moves_go_through_the_direct_path() -> None:
    async def run(server: EmbeddedRedis) -> None:
        store = RedisStore(server.url, direct_wait=0.05)
        assert store.direct is not None
        await store.create("g2", b"state-1", 60)
        before = store.direct.answered
        assert await store.load("g2", "request-1") is not None
        commit = Commit("g2", 1, b"state-2", b"move-1", b"", 60, "request-1", b"record", 60)
        assert await store.commit(commit)
        snapshot = await store.load("g2", "request-1")
        assert snapshot is not None and snapshot.record == b"record"
        # Four round trips: the loads, and the first commit's EVALSHA (answered NOSCRIPT) and EVAL.
        assert (store.direct.answered - before, store.direct.missed) == (4, 0)
        await store.close()

    with EmbeddedRedis() as server:
        asyncio.run(run(server))
