"""Every Redis URL the docs list (docs/deployment.md) runs the store on the same client: a
game created, a move committed and heard by a watcher, over redis://, rediss:// (TLS),
unix:// and rediss+cluster:// (TLS to every node); and a server started on a rediss:// URL
plays and watches a game end to end."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.client import Croupier
from croupier.local import LocalServer
from croupier.service.store.durability import Durability
from croupier.service.store.embedded_redis import EmbeddedRedis, self_signed_certificate
from croupier.service.store.protocol import Commit, NotDurable, Snapshot, StoreUnavailable
from croupier.service.store.redis_store import RedisStore
from tests.redis_cluster import EmbeddedRedisCluster
from tests.service.helpers import create
from tests.service.test_watch import Players, collect


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def server(certificate: tuple[Path, Path]) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tls=certificate, unix_socket=True) as running:
        yield running


async def play_one_move(url: str, durability: Durability | None = None) -> None:
    store = RedisStore(url, timeout=5, durability=durability or Durability())
    game = secrets.token_hex(12)  # the tests share their Redis
    try:
        await store.create(game, b"state 1", ttl_seconds=60)
        async with store.watch(game) as queue:
            commit = Commit(game, 1, b"state 2", b"entry", b"head:", 60, "r1", b"record", 60)
            assert (await store.commit(commit)).written
            assert await queue.next(5) == b"head:state 2"
        assert await store.load(game, "r1") == Snapshot(2, b"state 2", b"record")
        assert await store.load_with_log(game) == (Snapshot(2, b"state 2", None), [b"entry"])
        assert await store.ping()
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["tcp", "tls", "unix"])
def test_the_store_runs_on_every_single_redis_url(server: EmbeddedRedis, kind: str) -> None:
    url = {"tcp": server.url, "tls": server.tls_url, "unix": server.unix_url}[kind]
    asyncio.run(play_one_move(url))


def test_durability_waits_run_over_tls_and_sockets(server: EmbeddedRedis) -> None:
    """--durability's wait goes on the write's own connection, whatever the URL: refused here
    only because this Redis has no replica (NotDurable), which shows it was sent and answered."""
    for url in (server.tls_url, server.unix_url):
        with pytest.raises(NotDurable, match="on 0 of 1 replicas"):
            asyncio.run(play_one_move(url, Durability.parse("replicas:1")))


def test_the_store_runs_on_a_cluster_over_tls(certificate: tuple[Path, Path]) -> None:
    with EmbeddedRedisCluster(tls=certificate) as cluster:
        asyncio.run(play_one_move(cluster.tls_url))


def test_a_server_on_a_tls_url_plays_and_watches(server: EmbeddedRedis) -> None:
    with LocalServer(server.tls_url) as croupier_server, Croupier(croupier_server.target) as client:
        game = create(client, "vampire_queen", 3, seed=5)
        watcher = collect(client, game.name, game.seat_credentials[0])
        players = Players(client, game, seed=5)
        players.play(3)
        watcher.wait_count(4)
        etags = [int(m.view.etag) for m in watcher.received]
        assert etags == list(range(1, players.moves + 2))


def test_a_password_in_the_url_reaches_commands_and_pubsub(certificate: tuple[Path, Path]) -> None:
    """`[:PASSWORD@]` (docs/deployment.md) authenticates every connection: the commands', the
    subscriber's, over TLS and a socket alike; a wrong one is StoreUnavailable."""
    with EmbeddedRedis(tls=certificate, unix_socket=True) as protected:
        with redis.Redis(port=protected.port) as plain:
            plain.config_set("requirepass", "s3cret")
        tls = protected.tls_url.replace("rediss://", "rediss://:s3cret@")
        unix = protected.unix_url.replace("unix://", "unix://:s3cret@")
        for url in (tls, unix):
            asyncio.run(play_one_move(url))
        with pytest.raises(StoreUnavailable):
            asyncio.run(play_one_move(tls.replace("s3cret", "wrong")))
