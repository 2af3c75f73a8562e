"""The Redis Cluster client (service/croupier/service/store/resp_cluster.py) against a real
three-master cluster: routing by slot and hash tag, MOVED and ASK during a slot's migration, a
node's restart; its pub/sub following a channel's slot through a resharding and a failover; TLS to
every node."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot as redis_py_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from croupier.service.store.embedded_redis import EmbeddedRedis, self_signed_certificate
from croupier.service.store.redis_client import connect, subscriber
from croupier.service.store.resp import RespClient, Subscriber
from croupier.service.store.resp_cluster import (
    ClusterClient,
    ClusterSubscriber,
    command_slot,
    key_slot,
)
from tests.redis_cluster import EmbeddedRedisCluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedRedisCluster]:
    with EmbeddedRedisCluster(masters=3) as running:
        yield running


def owner(cluster: EmbeddedRedisCluster, slot: int) -> tuple[int, str]:
    """Port and id of the master serving `slot`."""
    with cluster.client(cluster.nodes[0]) as c:
        for start, end, master, *_ in c.execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return int(master[1]), master[2].decode()
    raise AssertionError(f"slot {slot} not served")


def master_ids(cluster: EmbeddedRedisCluster) -> dict[int, str]:
    found = {}
    for node in cluster.nodes:
        with cluster.client(node) as c:
            found[node.port] = c.execute_command("CLUSTER", "MYID").decode()
    return found


def calls(port: int, command: str) -> int:
    with redis.Redis(port=port) as c:
        stats = c.info("commandstats").get(f"cmdstat_{command}", {})
        return int(stats.get("calls", 0))


def asked(port: int, command: str) -> int:
    """Times `command` was sent to the node, refused (a MOVED) or not."""
    with redis.Redis(port=port) as c:
        stats = c.info("commandstats").get(f"cmdstat_{command}", {})
        return int(stats.get("calls", 0)) + int(stats.get("rejected_calls", 0))


def shard_subscribers(port: int, channel: str) -> int:
    with redis.Redis(port=port) as c:
        return int(c.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1])


def source_and_target(cluster: EmbeddedRedisCluster, slot: int) -> tuple[int, str, int, str]:
    """Port and id of the master serving `slot`, then of another master."""
    source_port, source_id = owner(cluster, slot)
    target_port, target_id = next(
        (port, node_id) for port, node_id in master_ids(cluster).items() if port != source_port
    )
    return source_port, source_id, target_port, target_id


def migrate(
    source: redis.Redis, target: redis.Redis, slot: int, ids: tuple[str, str], *moved: str
) -> None:
    """Mark `slot` migrating from `source` to `target` (`ids`: theirs) and move `moved` keys."""
    target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[0])
    source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[1])
    port = target.connection_pool.connection_kwargs["port"]
    source.execute_command("MIGRATE", "127.0.0.1", port, "", 0, 5000, "KEYS", *moved)


def hand_over(cluster: EmbeddedRedisCluster, slot: int, target_id: str) -> None:
    """Every node: `slot` is the target's now."""
    for node in cluster.nodes:
        with cluster.client(node) as c:
            c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    cluster.wait_ok()


def test_slots_follow_the_hash_tag_rule() -> None:
    # CRC16 as Redis computes it: the same as redis-py's own copy.
    for key in ["plain", "g:{abc}", "l:{abc}", "{}x", "a{b}c{d}", "{", "x}{y"]:
        assert key_slot(key) == redis_py_slot(key.encode()), key
    assert key_slot("g:{abc}") == key_slot("l:{abc}") == key_slot("abc")
    assert command_slot(("EVALSHA", "f00", 2, "g:{abc}", "other", 1)) == key_slot("abc")
    assert command_slot(("EVAL", "return 1", 0)) is None
    assert command_slot(("PING",)) is None
    assert command_slot(("ZADD", "idx", 1, "m")) == key_slot("idx")


def test_commands_reach_the_master_of_their_slot(cluster: EmbeddedRedisCluster) -> None:
    async def run() -> None:
        client = ClusterClient(cluster.url, timeout=5)
        assert await client.ping()
        names = [f"key-{n}" for n in range(60)] + [f"g:{{game{n}}}" for n in range(20)]
        await asyncio.gather(*(client.execute_command("SET", k, k) for k in names))
        assert await client.get("key-7") == b"key-7"
        # A script over a game's keys (one slot), sent by its hash, then by its text.
        script = client.register_script(
            "redis.call('SET', KEYS[2], ARGV[1]); return redis.call('GET', KEYS[1])"
        )
        assert await script(keys=["g:{game3}", "l:{game3}"], args=["x"]) == b"g:{game3}"
        assert await script(keys=["g:{game3}", "l:{game3}"], args=["y"]) == b"g:{game3}"
        pipe = client.pipeline(transaction=False)
        pipe.get("l:{game3}")
        pipe.hmget("h:{game3}", "a")
        assert await pipe.execute() == [b"y", [None]]
        with pytest.raises(ResponseError):
            await client.execute_command("LPUSH", "key-1", "x")  # wrong type: not retried
        await client.aclose()

    asyncio.run(run())
    # Each key is on the master its slot names (a command sent elsewhere would have been
    # refused with MOVED, never stored there).
    spread = set()
    for key in [f"key-{n}" for n in range(60)] + ["l:{game3}"]:
        port, _ = owner(cluster, key_slot(key))
        spread.add(port)
        with redis.Redis(port=port) as c:
            assert c.exists(key), key
    assert len(spread) == 3


def test_a_slot_migration_is_followed_by_ask_then_moved(cluster: EmbeddedRedisCluster) -> None:
    slot = key_slot("migrating")
    source_port, source_id, target_port, target_id = source_and_target(cluster, slot)

    async def run() -> None:
        client = ClusterClient(cluster.url, timeout=5)
        told = asyncio.Event()

        async def listener() -> None:  # as redis-py's pub/sub client is told
            told.set()

        client.map_listeners.append(listener)
        await client.execute_command("SET", "a:{migrating}", "a")
        await client.execute_command("SET", "b:{migrating}", "b")
        with redis.Redis(port=source_port) as source, redis.Redis(port=target_port) as target:
            migrate(source, target, slot, (source_id, target_id), "a:{migrating}")
            # Half-way: the moved key is asked of the target, the other still served here.
            assert await client.get("a:{migrating}") == b"a"
            assert await client.get("b:{migrating}") == b"b"
            pipe = client.pipeline()
            pipe.get("a:{migrating}")
            pipe.get("b:{migrating}")
            assert await pipe.execute() == [b"a", b"b"]
            assert calls(target_port, "asking") >= 2  # the get and the pipeline's
            source.execute_command(
                "MIGRATE", "127.0.0.1", target_port, "", 0, 5000, "KEYS", "b:{migrating}"
            )
        hand_over(cluster, slot, target_id)
        # The source answers MOVED once; the map is then read again and the source not asked.
        assert await client.get("b:{migrating}") == b"b"
        # The map is read again in the background, and the listener told.
        await asyncio.wait_for(told.wait(), timeout=10)
        before = calls(source_port, "get")
        for _ in range(5):
            assert await client.get("a:{migrating}") == b"a"
        assert calls(source_port, "get") == before
        # A script is sent by its text to a node that has not cached it.
        script = client.register_script("return redis.call('GET', KEYS[1])")
        assert await script(keys=["a:{migrating}"], args=[]) == b"a"
        await client.aclose()

    asyncio.run(run())


def test_a_command_sent_without_waiting_follows_a_moved_slot(
    cluster: EmbeddedRedisCluster,
) -> None:
    """`send_nowait` goes to the slot's master as the client's map has it; when the slot has
    moved, the MOVED reply is followed as `execute_command` follows it, and the returned
    future gets the new master's reply. Before the map is read it sends nothing (None)."""
    slot = key_slot("sent-later")
    source_port, source_id, target_port, target_id = source_and_target(cluster, slot)

    async def run() -> None:
        client = ClusterClient(cluster.url, timeout=5)
        assert client.send_nowait("SET", "k:{sent-later}", "never") is None  # no map yet
        await client.execute_command("SET", "k:{sent-later}", "v")
        sent = client.send_nowait("GET", "k:{sent-later}")
        assert sent is not None and await sent == b"v"
        with redis.Redis(port=source_port) as source, redis.Redis(port=target_port) as target:
            migrate(source, target, slot, (source_id, target_id), "k:{sent-later}")
        hand_over(cluster, slot, target_id)
        appended = calls(target_port, "append")
        moved = client.send_nowait("APPEND", "k:{sent-later}", "w")  # to the old master
        assert moved is not None
        assert await moved == 2
        assert calls(target_port, "append") == appended + 1
        assert await client.get("k:{sent-later}") == b"vw"
        await client.aclose()

    asyncio.run(run())


def test_a_restarted_node_is_reached_again(cluster: EmbeddedRedisCluster) -> None:
    node = cluster.nodes[2]
    key = next(f"r{n}" for n in range(1000) if owner(cluster, key_slot(f"r{n}"))[0] == node.port)

    async def run() -> None:
        client = ClusterClient(cluster.url, connect_timeout=1, timeout=5)
        assert await client.execute_command("SET", key, "1") == b"OK"
        node.stop()
        # No replica: the command fails after its few attempts, in bounded time.
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(client.execute_command("GET", key), timeout=30)
        node.start()  # same port and nodes.conf: the same slots, its data gone
        cluster.wait_ok()
        assert await client.execute_command("SET", key, "2") == b"OK"
        assert await client.get(key) == b"2"
        await client.aclose()

    asyncio.run(run())


def test_each_url_takes_the_lean_client() -> None:
    """Every URL the docs list takes the lean client, for commands and for pub/sub: TLS and Unix
    sockets change only how a connection opens (service/croupier/service/store/redis_client.py)."""

    async def run() -> None:
        delivered: list[tuple[str, bytes]] = []
        confirmed: list[str] = []
        for url in ("redis+cluster://127.0.0.1:7000", "rediss+cluster://127.0.0.1:7000"):
            commands = connect(url, 1.0)
            assert isinstance(commands, ClusterClient)
            pubsub = subscriber(
                commands, lambda c, d: delivered.append((c, d)), confirmed.append, 1.0
            )
            assert isinstance(pubsub, ClusterSubscriber)
            await pubsub.aclose()
            await commands.aclose()
        for url in ("redis://127.0.0.1:6379/0", "rediss://h:6380/0", "unix:///run/redis.sock"):
            single = connect(url, 1.0)
            assert isinstance(single, RespClient)
            assert (single.endpoint.tls is not None) == url.startswith("rediss://")
            assert (single.endpoint.path is not None) == url.startswith("unix://")
            pubsub = subscriber(single, lambda c, d: None, confirmed.append, 1.0)
            assert isinstance(pubsub, Subscriber) and pubsub.endpoint == single.endpoint
            await single.aclose()
        with pytest.raises(ValueError, match="a Redis URL starts with"):
            connect("http://127.0.0.1:6379", 1.0)

    asyncio.run(run())


class Heard:
    """What a cluster's subscriber hands on: the messages, and the confirmed channels."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.confirmed: list[str] = []

    def delivered(self, channel: str, data: bytes) -> None:
        self.messages.append((channel, data))

    async def until(self, what: Callable[[], bool], seconds: float = 15.0) -> None:
        for _ in range(int(seconds * 100)):
            if what():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"not heard: {self.messages}, {self.confirmed}")


def test_a_channel_follows_its_slot_to_its_new_master(cluster: EmbeddedRedisCluster) -> None:
    """A channel is subscribed on its slot's master; once the slot moves (a resharding), the
    old master drops the subscription (`sunsubscribe`), the map is read again and the channel
    subscribed on the new master, where its next message is heard."""
    channel = "croupier:{follow-me}:moves"
    slot = key_slot(channel)
    source_port, source_id, target_port, target_id = source_and_target(cluster, slot)

    async def run() -> None:
        client = ClusterClient(cluster.url, timeout=5)
        heard = Heard()
        pubsub = ClusterSubscriber(client, heard.delivered, heard.confirmed.append)
        await pubsub.subscribe(channel)
        await heard.until(lambda: heard.confirmed == [channel])
        await pubsub.subscribe("croupier:{stays}:moves")  # another, on whichever master
        assert await client.execute_command("SPUBLISH", channel, b"before") == 1
        await heard.until(lambda: (channel, b"before") in heard.messages)
        with redis.Redis(port=source_port) as source, redis.Redis(port=target_port) as target:
            migrate(source, target, slot, (source_id, target_id))
        hand_over(cluster, slot, target_id)
        await heard.until(lambda: heard.confirmed.count(channel) == 2)
        with redis.Redis(port=target_port) as target:
            assert target.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1] == 1
        assert await client.execute_command("SPUBLISH", channel, b"after") == 1  # MOVED, then
        await heard.until(lambda: (channel, b"after") in heard.messages)
        pubsub.unsubscribe(channel)
        await asyncio.sleep(0.1)
        with redis.Redis(port=target_port) as target:
            assert target.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1] == 0
        await pubsub.aclose()
        await client.aclose()

    asyncio.run(run())


class LaggingClient(ClusterClient):
    """A cluster client whose next `lagging` readings of the map come from a node not yet told
    of a move: the map stays the one read before."""

    lagging = 0

    async def _read_map(self) -> None:
        if self.lagging > 0 and await self.masters():
            self.lagging -= 1
            return
        await super()._read_map()


def test_a_map_read_before_the_move_is_not_followed(cluster: EmbeddedRedisCluster) -> None:
    """The node that dropped a channel is not asked for it again while the map read still names
    it (a replica since a failover would take it): the map is read again until it names the
    slot's new master, where the channel is subscribed."""
    channel = "croupier:{lagging}:moves"
    slot = key_slot(channel)
    source_port, source_id, target_port, target_id = source_and_target(cluster, slot)

    async def run() -> None:
        client = LaggingClient(cluster.url, timeout=5)
        heard = Heard()
        pubsub = ClusterSubscriber(client, heard.delivered, heard.confirmed.append)
        await pubsub.subscribe(channel)
        await heard.until(lambda: heard.confirmed == [channel])
        subscribed = asked(source_port, "ssubscribe")
        client.lagging = 3
        with redis.Redis(port=source_port) as source, redis.Redis(port=target_port) as target:
            migrate(source, target, slot, (source_id, target_id))
        hand_over(cluster, slot, target_id)
        await heard.until(lambda: heard.confirmed.count(channel) == 2)
        assert client.lagging == 0
        assert asked(source_port, "ssubscribe") == subscribed
        assert shard_subscribers(target_port, channel) == 1
        assert await client.execute_command("SPUBLISH", channel, b"after") == 1
        await heard.until(lambda: (channel, b"after") in heard.messages)
        await pubsub.aclose()
        await client.aclose()

    asyncio.run(run())


def test_a_cluster_over_tls_runs_the_same_clients(tmp_path: Path) -> None:
    """rediss+cluster://: every node reached over TLS with the URL's options (Redis answers a
    TLS client's CLUSTER SLOTS with the nodes' TLS ports), commands and pub/sub alike."""
    with EmbeddedRedisCluster(tls=self_signed_certificate(tmp_path)) as tls_cluster:

        async def run() -> None:
            client = connect(tls_cluster.tls_url, 5.0)
            assert isinstance(client, ClusterClient)
            names = [f"tls-{n}" for n in range(30)]
            await asyncio.gather(*(client.execute_command("SET", k, k) for k in names))
            assert await client.get("tls-7") == b"tls-7"
            assert await client.ping()  # every master
            assert {node.endpoint.scheme for node in await client.masters()} == {"rediss"}
            heard = Heard()
            pubsub = subscriber(client, heard.delivered, heard.confirmed.append, 5.0)
            channels = [f"croupier:{{g{n}}}:moves" for n in range(6)]
            await asyncio.gather(*(pubsub.subscribe(channel) for channel in channels))
            await heard.until(lambda: sorted(heard.confirmed) == sorted(channels))
            for channel in channels:
                assert await client.execute_command("SPUBLISH", channel, channel) == 1
            await heard.until(lambda: len(heard.messages) == len(channels))
            assert sorted(heard.messages) == sorted((c, c.encode()) for c in channels)
            await pubsub.aclose()
            await client.aclose()

        asyncio.run(run())


def test_a_channel_follows_a_failover_of_its_master() -> None:
    """A manual failover of a channel's master: its replica takes the slot, the old master
    drops the subscription (or its connection goes), and the channel is subscribed on the new
    master, where the next message is heard."""
    channel = "croupier:{failing-over}:moves"
    with EmbeddedRedisCluster(masters=3, replicas=1) as replicated:

        async def run() -> None:
            client = ClusterClient(replicated.url, timeout=5)
            heard = Heard()
            pubsub = ClusterSubscriber(client, heard.delivered, heard.confirmed.append)
            await pubsub.subscribe(channel)
            await heard.until(lambda: heard.confirmed == [channel])
            old_port, old_id = owner(replicated, key_slot(channel))
            replica = next(
                node for node in replicated.nodes if _master_of(replicated, node) == old_id
            )
            # In a thread: the subscriber's loop goes on meanwhile, as it would in production.
            await asyncio.to_thread(replicated.failover, replica)
            new_port, _ = owner(replicated, key_slot(channel))
            assert new_port == replica.port
            await heard.until(lambda: heard.confirmed.count(channel) == 2)
            # Subscribed on the new master, not on the old one (a replica now, which would still
            # take the subscription).
            await heard.until(lambda: shard_subscribers(new_port, channel) == 1)
            await heard.until(lambda: shard_subscribers(old_port, channel) == 0)
            assert await client.execute_command("SPUBLISH", channel, b"after") == 1
            await heard.until(lambda: (channel, b"after") in heard.messages)
            await pubsub.aclose()
            await client.aclose()

        asyncio.run(run())


def _master_of(cluster: EmbeddedRedisCluster, node: EmbeddedRedis) -> str | None:
    """The id of the master `node` replicates; None for a master."""
    with cluster.client(node) as c:
        for line in c.execute_command("CLUSTER", "NODES").decode().splitlines():
            fields = line.split()
            if "myself" in fields[2]:
                return fields[3] if "slave" in fields[2] else None
    return None
