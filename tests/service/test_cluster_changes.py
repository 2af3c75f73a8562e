"""Redis Cluster changes during play: a manual failover of the game's master and a resharding
of the game's slot to another master lose no acknowledged move."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator

import grpc
import pytest
from redis.cluster import RedisCluster

from croupier.bots import RandomBot
from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store import keys
from croupier.v1 import game_service_pb2 as pb
from tests.redis_cluster import EmbeddedRedisCluster
from tests.service.helpers import assert_replays, create, game_id


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedRedisCluster]:
    with EmbeddedRedisCluster(masters=3, replicas=1) as running:
        yield running


class Player(threading.Thread):
    """Plays one game through two replicas until stopped, retrying each move with its request
    id until it is acknowledged: every acknowledged move is counted."""

    def __init__(self, clients: list[Croupier], game: pb.CreateGameResponse) -> None:
        super().__init__(daemon=True)
        self.clients, self.game = clients, game
        self.acknowledged = 0
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            self._play()
        except BaseException as exc:
            self.failure = exc

    def _play(self) -> None:
        bot = RandomBot(5)
        credentials = self.game.seat_credentials
        number = 0
        while not self.stop.is_set():
            client = self.clients[number % 2]
            try:
                view = client.get(self.game.name)
                if view.HasField("result"):
                    return
                seat = bot.choose(list(view.active_seats))
                move = bot.choose(client.legal_moves(self.game.name, credentials[seat]))
            except CroupierError as error:
                self.errors.append(error.reason)
                time.sleep(0.05)
                continue
            request_id = str(uuid.uuid4())
            while True:  # the same request id until acknowledged: applied exactly once
                try:
                    client.apply(self.game.name, credentials[seat], move, request_id=request_id)
                    break
                except CroupierError as error:
                    if error.code != grpc.StatusCode.UNAVAILABLE:
                        raise
                    self.errors.append(error.reason)
                    time.sleep(0.05)
            self.acknowledged += 1
            number += 1


def play_through(cluster: EmbeddedRedisCluster, change: Callable[[str], None]) -> None:
    with (
        LocalServer(cluster.url) as a, LocalServer(cluster.url) as b,
        Croupier(a.target, timeout=10) as client_a, Croupier(b.target, timeout=10) as client_b,
    ):  # fmt: skip
        game = create(client_a, "vampire_queen", 12, seed=77)
        player = Player([client_a, client_b], game)
        player.start()
        while player.acknowledged < 20:
            time.sleep(0.01)
        change(keys.game(game_id(game.name)))
        before = player.acknowledged
        while player.acknowledged < before + 20 and player.is_alive():
            time.sleep(0.01)
        player.stop.set()
        player.join(30)
        assert not player.is_alive()
        assert player.failure is None, player.failure
        assert player.acknowledged >= before + 20
        with RedisCluster.from_url(cluster.url.replace("+cluster", "")) as direct:
            assert assert_replays(direct, game.name) == player.acknowledged
        assert client_b.get(game.name).move_count == player.acknowledged


def served_by(cluster: EmbeddedRedisCluster, key: str) -> tuple[int, str, int] | None:
    """The slot of `key`, and the id and port of the master serving it as the first node
    sees it; None while it sees none (for a moment of a failover)."""
    with cluster.client(cluster.nodes[0]) as c:
        slot = int(c.execute_command("CLUSTER", "KEYSLOT", key))
        for start, end, master, *_ in c.execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                port = int(master[1])
                node_id = master[2].decode()
                return slot, node_id, port
    return None


def node_of(cluster: EmbeddedRedisCluster, key: str) -> tuple[int, str, int]:
    node = served_by(cluster, key)
    assert node is not None, "slot not served"
    return node


def test_failover_of_the_games_master_loses_no_acknowledged_move(
    cluster: EmbeddedRedisCluster,
) -> None:
    def failover(key: str) -> None:
        _, master_id, _ = node_of(cluster, key)
        for node in cluster.nodes:
            with cluster.client(node) as c:
                me = next(
                    line.split()
                    for line in c.execute_command("CLUSTER", "NODES").decode().splitlines()
                    if "myself" in line
                )
                if "slave" in me[2] and me[3] == master_id:
                    c.execute_command("CLUSTER", "FAILOVER")
                    break
        else:
            raise AssertionError("no replica of the game's master")
        deadline = time.monotonic() + 20
        while (serving := served_by(cluster, key)) is None or serving[1] == master_id:
            assert time.monotonic() < deadline, "failover did not happen"
            time.sleep(0.1)

    play_through(cluster, failover)


def test_resharding_the_games_slot_loses_no_acknowledged_move(
    cluster: EmbeddedRedisCluster,
) -> None:
    def reshard(key: str) -> None:
        slot, source_id, source_port = node_of(cluster, key)
        with cluster.client(cluster.nodes[0]) as c:
            masters = [
                line.split()
                for line in c.execute_command("CLUSTER", "NODES").decode().splitlines()
                if "master" in line.split()[2]
            ]
        target = next(m for m in masters if m[0] != source_id)
        target_id, target_port = target[0], int(target[1].split("@")[0].split(":")[1])
        move_slot(cluster, slot, source_port, target_port, source_id, target_id)
        assert node_of(cluster, key)[1] == target_id

    play_through(cluster, reshard)


def move_slot(
    cluster: EmbeddedRedisCluster, slot: int, source_port: int, target_port: int,
    source_id: str, target_id: str,
) -> None:  # fmt: skip
    """Migrate one slot with the cluster's own protocol (IMPORTING, MIGRATING, MIGRATE, NODE)."""
    import redis

    source = redis.Redis(port=source_port)
    target = redis.Redis(port=target_port)
    try:
        target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        while keys_left := source.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
            source.execute_command(
                "MIGRATE", "127.0.0.1", target_port, "", 0, 5000, "KEYS", *keys_left
            )
        for node in cluster.nodes:
            with cluster.client(node) as c:
                if c.execute_command("ROLE")[0] == b"master":
                    c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    finally:
        source.close()
        target.close()
    cluster.wait_ok()
