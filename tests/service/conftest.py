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
from service.embedded_redis import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest.fixture(scope="session")
def redis_client(redis_server: EmbeddedRedis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


@pytest.fixture(scope="session")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs") / "server-a.log"


@pytest.fixture(scope="session")
def server_a(redis_server: EmbeddedRedis, server_log: Path) -> Iterator[LocalServer]:
    with (
        server_log.open("wb") as log,
        LocalServer(redis_server.url, log_level="info", stderr=log.fileno()) as server,
    ):
        yield server


@pytest.fixture(scope="session")
def server_b(redis_server: EmbeddedRedis) -> Iterator[LocalServer]:
    with LocalServer(redis_server.url, stderr=subprocess.DEVNULL) as server:
        yield server


@pytest.fixture(scope="session")
def client(server_a: LocalServer) -> Iterator[Croupier]:
    with Croupier(server_a.target) as croupier:
        yield croupier


@pytest.fixture(scope="session")
def client_b(server_b: LocalServer) -> Iterator[Croupier]:
    with Croupier(server_b.target) as croupier:
        yield croupier
