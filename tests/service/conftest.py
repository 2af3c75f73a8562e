"""Fixtures of the service tests: real redis-server processes and real croupier-server
processes on free loopback ports, started by the suite itself."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.client import Croupier
from croupier.local import LocalServer
from tests.redis_cluster import direct_client, embedded_store


@pytest.fixture(scope="session", params=["redis", "cluster"])
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every service test runs against a single Redis and against a three-master cluster."""
    with embedded_store(request.param) as url:
        yield url


@pytest.fixture(scope="session")
def redis_client(store_url: str) -> Iterator[redis.Redis]:
    """A direct client of the store, to inspect what the servers wrote."""
    client = direct_client(store_url)
    yield client
    client.close()


@pytest.fixture(scope="session")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs") / "server-a.log"


# The shared servers answer the anonymous calls (reads, spectators' streams) of every test on
# a worker, all from one address: on a fast machine more than the default 100 a second, and
# more spectator streams at once than one address may hold by default. The limits are tested
# on servers of their own (test_access.py, test_security_limits.py, test_stream_budgets.py).
UNLIMITED = ("--anonymous-rate-limit", "0", "--max-streams-per-address", "0")


@pytest.fixture(scope="session")
def server_a(store_url: str, server_log: Path) -> Iterator[LocalServer]:
    with (
        server_log.open("wb") as log,
        LocalServer(store_url, log_level="info", stderr=log.fileno(), extra_args=UNLIMITED)
        as server,
    ):  # fmt: skip
        yield server


@pytest.fixture(scope="session")
def server_b(store_url: str) -> Iterator[LocalServer]:
    with LocalServer(store_url, stderr=subprocess.DEVNULL, extra_args=UNLIMITED) as server:
        yield server


@pytest.fixture(scope="session")
def client(server_a: LocalServer) -> Iterator[Croupier]:
    with Croupier(server_a.target) as croupier:
        yield croupier


@pytest.fixture(scope="session")
def client_b(server_b: LocalServer) -> Iterator[Croupier]:
    with Croupier(server_b.target) as croupier:
        yield croupier
