"""The server under test: one started here (and its private Redis, or a local Redis Cluster),
or one given by --target."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from croupier.bench.cpu import affinity, find_redis_child, pin
from croupier.local import LocalServer

# The operator key of a started server (bot-only games need one): a bench's own, never a secret.
BENCH_OPERATOR_KEY = "croupier-bench-operator-key"


@dataclass
class Server:
    target: str
    started: bool
    pids: dict[str, int]  # "server", "redis": whose CPU is measured
    redis_url: str | None
    cluster: bool = False


def started_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The flags of a started server: Echo (the baseline) is served only when asked; every
    CreateGame of the benchmark comes from this one address, so the per-address limit of calls
    without a credential is off (a --target server must be started the same way:
    docs/performance.md); what a mode needs; then --server-arg's, which come last and win."""
    extra = ["--benchmark-service", "--anonymous-rate-limit", "0"]
    watchers = getattr(args, "watchers", None)
    if watchers:
        # 10,000 streams need more than the defaults (5,000 per process, 100 per game).
        per_game = -(-watchers // args.watch_games) + 1
        extra += ["--max-watch-streams", str(max(5_000, watchers + 100))]
        extra += ["--max-watchers-per-game", str(max(100, per_game))]
        # Its streams come from one address, several per seat, and spectators among them.
        extra += ["--max-spectator-streams", str(max(2_000, watchers + 100))]
        extra += ["--max-streams-per-address", "0", "--max-streams-per-seat", "0"]
    if getattr(args, "bot_games", None):
        extra += ["--operator-key", BENCH_OPERATOR_KEY]  # every seat a bot needs it
    if getattr(args, "table", False):
        # --table: 4 sessions (or watch streams) a game and up to 4 calls in flight each, beside
        # the streams of the phase before, which the server may still be closing.
        sessions = 4 * args.games
        extra += ["--max-watch-streams", str(max(5_000, 2 * sessions + 100))]
        extra += ["--max-calls-in-flight", str(max(1_000, sessions + 100))]
    return (*extra, *(getattr(args, "server_arg", None) or ()))


@contextlib.contextmanager
def server_for(args: argparse.Namespace) -> Iterator[Server]:
    if args.target:
        pids = {"server": args.server_pid} if args.server_pid else {}
        yield Server(args.target, False, pids, args.redis_url)
        return
    with _cluster(args) as cluster, _tls_redis(args, cluster) as tls_redis:
        redis_url = cluster.url if cluster is not None else args.redis_url
        if tls_redis is not None:
            redis_url = tls_redis.tls_url
        elif cluster is not None and cluster.tls:
            redis_url = cluster.tls_url
        server = LocalServer(
            redis_url, log_level=args.server_log_level, extra_args=started_args(args)
        )
        own = frozenset(os.sched_getaffinity(0))
        with affinity(args.server_cpus):  # the server process inherits the affinity
            server.start(timeout=60.0)
        # Threads of ours started meanwhile (gRPC's, by the health check) got it too.
        pin(os.getpid(), args.client_cpus or own)
        try:
            assert server.process is not None
            pid = server.process.pid
            pids = {"server": pid}
            found = find_redis_child(pid)
            if found is not None:
                pids["redis"], redis_url = found[0], found[1]
            if tls_redis is not None:
                assert tls_redis.process is not None
                pids["redis"] = tls_redis.process.pid
            if cluster is not None:
                for number, node in enumerate(cluster.nodes):
                    assert node.process is not None
                    pids["redis" if number == 0 else f"redis{number}"] = node.process.pid
            if args.server_cpus:
                pin(pid, args.server_cpus, tree=True)
            for label, redis_pid in pids.items():
                if label.startswith("redis") and (args.redis_cpus or args.server_cpus):
                    pin(redis_pid, args.redis_cpus or args.server_cpus, tree=True)
            yield Server(server.target, True, pids, redis_url, cluster is not None)
        finally:
            server.stop()


@contextlib.contextmanager
def _cluster(args: argparse.Namespace) -> Iterator[Any]:
    """With --redis-cluster N: N local redis-server masters made one cluster by
    `redis-cli --cluster create`, reached by the server through a redis+cluster:// URL (the
    production path: deploy/kubernetes), else nothing."""
    masters = getattr(args, "redis_cluster", None)
    if not masters:
        yield None
        return
    cluster = LocalCluster(masters, tls=getattr(args, "redis_tls", False))
    with affinity(args.redis_cpus or args.server_cpus):
        cluster.start()
    try:
        yield cluster
    finally:
        cluster.close()


@contextlib.contextmanager
def _tls_redis(args: argparse.Namespace, cluster: LocalCluster | None) -> Iterator[Any]:
    """With --redis-tls and no cluster: a private redis-server that also listens for TLS, with
    a throwaway self-signed certificate, which the started server reaches by its rediss:// URL
    (the same Redis as the default run's, but over TLS), else nothing."""
    if not getattr(args, "redis_tls", False) or cluster is not None:
        yield None
        return
    from croupier.service.store.embedded_redis import EmbeddedRedis, self_signed_certificate

    with tempfile.TemporaryDirectory(prefix="croupier-bench-tls-") as folder:
        redis = EmbeddedRedis(tls=self_signed_certificate(Path(folder)))
        with affinity(args.redis_cpus or args.server_cpus):
            redis.start()
        try:
            yield redis
        finally:
            redis.close()


class LocalCluster:
    """Redis Cluster masters on loopback (no replicas), each its own redis-server; with `tls`,
    every node also listens for TLS (the cluster's bus too), and `tls_url` reaches it so."""

    def __init__(self, masters: int, tls: bool = False) -> None:
        from croupier.service.store.embedded_redis import EmbeddedRedis, self_signed_certificate

        self.folder = tempfile.mkdtemp(prefix="croupier-bench-tls-") if tls else None
        files = self_signed_certificate(Path(self.folder)) if self.folder else None
        extra = ("--tls-cluster", "yes") if tls else ()
        self.nodes = [
            EmbeddedRedis(cluster_node=True, tls=files, extra_args=extra) for _ in range(masters)
        ]
        self.tls = files

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    @property
    def tls_url(self) -> str:
        return self.nodes[0].tls_url.replace("rediss://", "rediss+cluster://").replace("/0?", "?")

    def start(self) -> None:
        import time

        import redis

        cli = shutil.which("redis-cli")
        if cli is None:
            raise FileNotFoundError("--redis-cluster needs redis-cli on the PATH")
        for node in self.nodes:
            node.start()
        # With TLS the bus is TLS too: the nodes are introduced by their TLS ports.
        tls = ["--tls", "--cacert", str(self.tls[0])] if self.tls is not None else []
        ports = [n.tls_port if self.tls is not None else n.port for n in self.nodes]
        subprocess.run(
            [cli, *tls, "--cluster", "create", *[f"127.0.0.1:{port}" for port in ports],
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        for node in self.nodes:
            with redis.Redis(host="127.0.0.1", port=node.port) as client:
                while client.cluster("INFO").get("cluster_state") != "ok":
                    if time.monotonic() > deadline:
                        raise TimeoutError("the Redis Cluster did not become ok")
                    time.sleep(0.1)

    def close(self) -> None:
        for node in self.nodes:
            node.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def seats_of(games: list[str], seats: int | None) -> dict[str, int]:
    """Seats of each game: `seats` within the game's range, or by default its largest count
    (the heaviest states and views), from the registry."""
    try:
        from croupier.engines.registry import GAMES
    except Exception:
        return dict.fromkeys(games, seats or 4)
    out = {}
    for game in games:
        engine = GAMES.get(game)
        if engine is None:
            out[game] = seats or 4
        else:
            out[game] = min(max(seats or engine.max_seats, engine.min_seats), engine.max_seats)
    return out
