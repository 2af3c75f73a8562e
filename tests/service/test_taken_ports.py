"""A loopback port picked as free can be taken before the process meant for it binds it: by
another test's process, or as the local end of an outgoing connection. Ports are picked below
the kernel's range for those, and the suite's Redis, Redis Cluster nodes and server processes
start on fresh ports when theirs was taken anyway; a restart keeps its port."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from croupier.local import LocalServer, free_port
from croupier.service.store.embedded_redis import EmbeddedRedis


@contextmanager
def taken(port: int) -> Iterator[None]:
    """Something else listens on `port` for the block."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))
        sock.listen()
        yield


def answering_pid(port: int) -> int:
    with redis.Redis(host="127.0.0.1", port=port) as client:
        return int(client.info("server")["process_id"])


def test_ports_are_picked_below_the_range_of_outgoing_connections() -> None:
    first_ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    picked = {free_port() for _ in range(50)}
    assert all(1024 <= port < first_ephemeral for port in picked)
    assert len(picked) > 40  # spread out, so that two test processes rarely pick the same


def test_a_redis_whose_port_was_taken_starts_on_another() -> None:
    store = EmbeddedRedis()
    picked = store.port
    with taken(picked), store:
        assert store.port != picked
        assert store.process is not None
        assert answering_pid(store.port) == store.process.pid


def test_a_port_held_by_another_redis_is_not_taken_for_its_own() -> None:
    """Another redis-server answers on the port: its answer does not count as this one's."""
    with EmbeddedRedis() as other:
        store = EmbeddedRedis()
        store.port = other.port
        with store:
            assert store.port != other.port
            assert store.process is not None and other.process is not None
            assert answering_pid(store.port) == store.process.pid
            assert answering_pid(other.port) == other.process.pid


def test_a_cluster_node_whose_bus_port_was_taken_starts_on_others() -> None:
    node = EmbeddedRedis(cluster_node=True)
    assert node.bus_port is not None
    bus = node.bus_port
    with taken(bus), node:
        assert node.bus_port != bus
        with redis.Redis(host="127.0.0.1", port=node.port) as client:
            assert client.config_get("cluster-port")["cluster-port"] == str(node.bus_port)


def test_a_restart_keeps_the_port() -> None:
    with EmbeddedRedis() as store:
        port = store.port
        store.stop()
        store.start()
        assert store.port == port
        assert store.process is not None and answering_pid(port) == store.process.pid


def test_a_server_whose_port_was_taken_starts_on_another() -> None:
    server = LocalServer()
    picked = server.port
    with taken(picked), server:
        assert server.port != picked
        assert server.target == f"127.0.0.1:{server.port}"
