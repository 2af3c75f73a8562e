"""--durability's waits against real redis-servers (service/croupier/service/store/resp.py,
resp_cluster.py, redis_store.py): a write's wait goes on the write's own connection, to the node
that took it, one wait for a turn's writes; a write that no replica confirms raises NotDurable and
is counted, and so does its retry until a replica has it; with a replica, every write is confirmed,
on a single Redis and on a cluster with a replica per master."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis
from prometheus_client import REGISTRY

from croupier.service.observability.metrics import MeasuredStore
from croupier.service.store.durability import Durability
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.service.store.protocol import Commit, IndexEntry, NotDurable, Update
from croupier.service.store.redis_store import RedisStore
from croupier.service.store.resp import RespClient
from croupier.service.store.resp_cluster import ClusterClient, key_slot
from tests.redis_cluster import EmbeddedRedisCluster

GAME = "0123456789abcdef01234567"
REPLICA = Durability("replicas", 1)


def test_the_writes_of_one_turn_share_one_wait_on_their_own_connection() -> None:
    async def run(url: str, port: int) -> None:
        client = RespClient(url)
        own = await client.execute_command("CLIENT", "ID")
        sent = await asyncio.gather(
            *(client.execute_then_wait(("SET", f"k{n}", n), ("WAIT", 0, 0)) for n in range(20))
        )
        assert [reply for reply, _ in sent] == [b"OK"] * 20
        # The 20 go out in one write; their replies come back in one read, or in a few on a
        # busy machine: one wait per read, shared by the writes it answered.
        waits = {id(waiting): waiting for _, waiting in sent}
        assert len(waits) < 20
        assert [await waiting for waiting in waits.values()] == [0] * len(waits)
        counter = redis.Redis(port=port)
        assert counter.info("commandstats")["cmdstat_wait"]["calls"] == len(waits)
        counter.close()
        # Any command can stand for the wait: CLIENT ID shows whose connection it went on.
        _, which = await client.execute_then_wait(("SET", "k", "v"), ("CLIENT", "ID"))
        assert await which == own
        await client.aclose()

    with EmbeddedRedis() as server:
        asyncio.run(run(server.url, server.port))


def test_in_a_cluster_a_writes_wait_goes_to_the_node_that_took_it() -> None:
    async def run(url: str) -> None:
        client = ClusterClient(url)
        nodes = set()
        for n in range(24):
            key = f"{{game-{n}}}:k"
            reply, which = await client.execute_then_wait(("SET", key, "v"), ("CLIENT", "INFO"))
            assert reply == b"OK"
            info = dict(
                field.split("=", 1) for field in (await which).decode().split() if "=" in field
            )
            port = int(info["laddr"].rpartition(":")[2])
            nodes.add(port)
            # The node that answered the wait holds the key, and on the write's connection.
            with redis.Redis(port=port) as node:
                assert node.execute_command("CLUSTER", "KEYSLOT", key) == key_slot(key)
                assert node.exists(key) == 1
            writer = client._slots[key_slot(key)]
            assert writer is not None
            assert int(info["id"]) == await writer.execute_command("CLIENT", "ID")
        assert len(nodes) == 3  # every master took some
        await client.aclose()

    with EmbeddedRedisCluster() as cluster:
        asyncio.run(run(cluster.url))


def commit(expected: int, data: bytes, request_id: str) -> Commit:
    return Commit(
        game_id=GAME,
        expected_version=expected,
        data=data,
        log_entry=b"entry " + data,
        notification_head=b"",
        ttl_seconds=60,
        request_id=request_id,
        record=b"record of " + data,
        record_ttl_seconds=60,
    )


def not_durable(operation: str) -> float:
    value = REGISTRY.get_sample_value("croupier_writes_not_durable_total", {"operation": operation})
    return value or 0.0


def test_a_write_no_replica_confirms_is_not_durable_nor_its_retry_until_one_does() -> None:
    async def unconfirmed(url: str, direct: redis.Redis) -> None:
        store = MeasuredStore(RedisStore(url, timeout=0.5, durability=REPLICA))
        before = not_durable("commit")
        # Redis answers the wait with no replica (or, on a busy machine, not before the store's
        # own timeout): either way the write is made and not acknowledged as durable.
        with pytest.raises(NotDurable, match=r"^the write is made but not .*replicas:1"):
            await store.create(GAME, b"state 1", ttl_seconds=60)
        assert direct.hget(f"croupier:{{{GAME}}}:game", "v") == b"1"  # made all the same
        started = time.monotonic()
        with pytest.raises(NotDurable):
            await store.commit(commit(1, b"state 2", "r1"))
        assert time.monotonic() - started < 1.0  # within --store-timeout
        # Its retry (another commit of the same request id) finds the record: not durable yet.
        with pytest.raises(NotDurable):
            await store.commit(commit(1, b"state 2", "r1"))
        with pytest.raises(NotDurable):
            await store.load(GAME, "r1")
        assert not_durable("commit") == before + 2
        assert direct.hget(f"croupier:{{{GAME}}}:game", "v") == b"2"
        await store.close()

    async def confirmed(url: str, direct: redis.Redis) -> None:
        store = MeasuredStore(RedisStore(url, timeout=2.0, durability=REPLICA))
        retried = await store.commit(commit(1, b"state 2", "r1"))
        assert not retried.written and retried.current is not None
        assert retried.current.record == b"record of state 2"
        loaded = await store.load(GAME, "r1")
        assert loaded is not None and loaded.record == b"record of state 2"
        assert (await store.commit(commit(2, b"state 3", "r2"))).written
        update = Update(GAME, 3, b"state 4", b"", 60, "r3", b"join record", 60)
        assert (await store.update(update)).written
        again = await store.update(Update(GAME, 3, b"state 4", b"", 60, "r3", b"join record", 60))
        assert again.current is not None and again.current.record == b"join record"
        assert await store.put_create_record("c1", b"created", 60) == b"created"
        assert await store.put_create_record("c1", b"other", 60) == b"created"
        assert await store.get_create_record("c1") == b"created"
        assert await store.shared_secret("croupier:secret", b"s1") == b"s1"
        await store.index_add([IndexEntry("croupier:index:{games-0}", 1, GAME)])
        assert direct.lrange(f"croupier:{{{GAME}}}:log", 0, -1) == [
            b"entry state 2",
            b"entry state 3",
        ]
        await store.close()

    with EmbeddedRedis() as primary:
        direct = redis.Redis(port=primary.port)
        asyncio.run(unconfirmed(primary.url, direct))
        replica = EmbeddedRedis(extra_args=("--replicaof", "127.0.0.1", str(primary.port)))
        with replica:
            with redis.Redis(port=replica.port) as watcher:
                deadline = time.monotonic() + 20
                while watcher.info("replication").get("master_link_status") != "up":
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            asyncio.run(confirmed(primary.url, direct))
        direct.close()


def test_a_cluster_with_a_replica_per_master_confirms_every_write() -> None:
    async def run(url: str) -> None:
        store = RedisStore(url, timeout=2.0, durability=REPLICA)
        games = [f"{n:024x}" for n in range(12)]
        for game in games:
            await store.create(game, b"state 1", ttl_seconds=60)
            moved = Commit(game, 1, b"state 2", b"entry", b"", 60, "r", b"record", 60)
            assert (await store.commit(moved)).written
            retried = await store.commit(moved)
            assert retried.current is not None and retried.current.record == b"record"
        entries = [IndexEntry(f"croupier:index:{{games-{n}}}", 1, games[n]) for n in range(12)]
        await store.index_add(entries)
        await store.close()

    with EmbeddedRedisCluster(replicas=1) as cluster:
        # Every master's replica has caught up (the cluster answers before they have).
        deadline = time.monotonic() + 30
        for node in cluster.nodes:
            with redis.Redis(port=node.port) as client:
                while True:
                    replication = client.info("replication")
                    if replication["role"] == "slave":
                        break
                    if replication.get("slave0", {}).get("state") == "online":
                        break
                    assert time.monotonic() < deadline, "the replicas did not catch up"
                    time.sleep(0.05)
        asyncio.run(run(cluster.url))
