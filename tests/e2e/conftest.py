"""Fixtures of the end-to-end tests of the TypeScript client and the browser gateway: the npm
project in clients/typescript (installed with `npm ci` when needed, its code regenerated from
protos/ once per session), a real redis-server and real server processes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from tests.e2e.helpers import TS, needs_npm_ci, run_node


@pytest.fixture(scope="session")
def typescript() -> Path:
    """clients/typescript, installed, with src/gen/ freshly generated from protos/."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js 20+ and npm are needed for the TypeScript client tests")
    if needs_npm_ci():
        run_node("npm", "ci", "--no-audit", "--no-fund", timeout=300)
    run_node("npm", "run", "--silent", "generate")
    return TS


@pytest.fixture(scope="session")
def redis_server() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest.fixture(scope="session")
def grpc_server(redis_server: EmbeddedRedis) -> Iterator[LocalServer]:
    # Bots on loopback call faster than any frontend: these tests are about play, not limits.
    with LocalServer(
        redis_server.url, extra_args=("--rate-limit", "0", "--anonymous-rate-limit", "0")
    ) as server:
        yield server
