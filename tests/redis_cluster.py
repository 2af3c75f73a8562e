"""A real Redis Cluster of local redis-server processes, for the tests: three masters (and
optionally one replica each), created with `redis-cli --cluster create`."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import redis
from redis.cluster import RedisCluster

from croupier.service.store.embedded_redis import LOG_FILE, EmbeddedRedis
from croupier.service.store.redis_client import is_cluster_url


@contextlib.contextmanager
def embedded_store(kind: str) -> Iterator[str]:
    """The URL of a new store of `kind`: "redis" (one redis-server) or "cluster" (three
    masters), stopped on exit."""
    if kind == "redis":
        with EmbeddedRedis() as server:
            yield server.url
    else:
        with EmbeddedRedisCluster() as cluster:
            yield cluster.url


def direct_client(store_url: str) -> redis.Redis:
    """A direct client of a store (single Redis, or a `redis+cluster://` URL), to inspect what
    the servers wrote."""
    if is_cluster_url(store_url):
        return RedisCluster.from_url(store_url.replace("+cluster", ""))  # type: ignore[return-value]
    return redis.Redis.from_url(store_url)


# Redis gives up a manual failover after five seconds (CLUSTER_MF_TIMEOUT); a little more here.
MANUAL_FAILOVER_TIMEOUT = 5.5


class EmbeddedRedisCluster:
    """With `tls` (a certificate and its key), every node also listens for TLS, the cluster's
    bus included, and `tls_url` reaches the cluster over it; `url` stays plain TCP."""

    def __init__(
        self, masters: int = 3, replicas: int = 0, tls: tuple[Path, Path] | None = None
    ) -> None:
        extra: tuple[str, ...] = ("--tls-cluster", "yes") if tls is not None else ()
        if replicas:
            # A replica's first sync otherwise waits five seconds for more replicas to share it;
            # until it is done its master does not take part in a manual failover.
            extra += ("--repl-diskless-sync-delay", "0")
        self.nodes = [
            EmbeddedRedis(cluster_node=True, tls=tls, extra_args=extra)
            for _ in range(masters * (1 + replicas))
        ]
        self.replicas = replicas
        self.tls = tls

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    @property
    def tls_url(self) -> str:
        """The cluster over TLS, trusting its certificate (Redis answers a TLS client's
        CLUSTER SLOTS with the nodes' TLS ports)."""
        return self.nodes[0].tls_url.replace("rediss://", "rediss+cluster://").replace("/0?", "?")

    def start(self) -> EmbeddedRedisCluster:
        cli = shutil.which("redis-cli")
        if cli is None:
            raise FileNotFoundError("redis-cli is not on the PATH")
        for node in self.nodes:
            node.start()
        # With TLS the bus is TLS too: the nodes are introduced by their TLS ports.
        tls = ["--tls", "--cacert", str(self.tls[0])] if self.tls is not None else []
        ports = [n.tls_port if self.tls is not None else n.port for n in self.nodes]
        subprocess.run(
            [cli, *tls, "--cluster", "create", *[f"127.0.0.1:{port}" for port in ports],
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        self.wait_ok()
        return self

    def client(self, node: EmbeddedRedis) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=node.port)

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every node reports cluster_state:ok and agrees on the slots, and every replica
        has made its first sync and is known as such by its master: before that, Redis answers
        a replica's CLUSTER FAILOVER with OK and lets it time out, the master keeping its slots."""
        deadline = time.monotonic() + timeout
        while True:
            states = []
            for node in self.nodes:
                if node.process is None:
                    continue
                with self.client(node) as c:
                    states.append(c.cluster("INFO").get("cluster_state") == "ok")
            if all(states) and self._replicas_ready():
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the cluster did not become ok")
            time.sleep(0.1)

    def _replicas_ready(self) -> bool:
        """Every replica synced, and known as its master's replica by every node (the masters
        vote on a failover: one that still has the replica a master refuses its vote)."""
        views = {}  # each running node's CLUSTER NODES: id -> (flags, master id)
        for node in self.nodes:
            if node.process is None:
                continue
            with self.client(node) as c:
                lines = c.execute_command("CLUSTER", "NODES").decode().splitlines()
            fields = [line.split() for line in lines]
            mine = next(f[0] for f in fields if "myself" in f[2])
            views[mine] = (node, {f[0]: (f[2], f[3]) for f in fields})
        for node_id, (node, view) in views.items():
            flags, master_id = view[node_id]
            if "slave" not in flags:
                continue
            with self.client(node) as c:
                if c.info("replication").get("master_link_status") != "up":
                    return False
            for _, other in views.values():
                other_flags, other_master = other.get(node_id, ("", ""))
                if "slave" not in other_flags or other_master != master_id:
                    return False
        return True

    def failover(self, replica: EmbeddedRedis, timeout: float = 20.0) -> None:
        """CLUSTER FAILOVER on `replica`, until every node has it a master (TimeoutError if it
        does not happen). Redis answers the request at once and gives it up after five seconds
        if the election is not won (a vote refused): it is then asked again."""
        deadline = time.monotonic() + timeout
        with self.client(replica) as c:
            replica_id = c.execute_command("CLUSTER", "MYID").decode()
            c.execute_command("CLUSTER", "FAILOVER")
        asked = time.monotonic()
        while True:
            masters = []
            for node in self.nodes:
                if node.process is None:
                    continue
                with self.client(node) as c:
                    for line in c.execute_command("CLUSTER", "NODES").decode().splitlines():
                        fields = line.split()
                        if fields[0] == replica_id:
                            masters.append("master" in fields[2])
            if all(masters):
                break
            if time.monotonic() > deadline:
                log = (replica.folder / LOG_FILE).read_text().splitlines()[-8:]
                raise TimeoutError(f"the failover to {replica.port} did not happen: {log}")
            if time.monotonic() - asked > MANUAL_FAILOVER_TIMEOUT:
                with self.client(replica) as c:
                    if c.info("replication").get("role") == "slave":
                        c.execute_command("CLUSTER", "FAILOVER")
                asked = time.monotonic()
            time.sleep(0.05)
        self.wait_ok()

    def close(self) -> None:
        for node in self.nodes:
            node.close()

    def __enter__(self) -> EmbeddedRedisCluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
