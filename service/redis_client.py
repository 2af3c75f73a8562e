"""The three Redis client paths behind one typed interface, and which URL takes which.

| URL | commands and scripts | pub/sub (watch streams) |
| --- | --- | --- |
| `redis://` | the lean client (service/resp.py) | redis-py's `Redis` |
| `rediss://`, `unix://` | redis-py's `Redis` | the same client |
| `redis+cluster://` | the lean cluster client (resp_cluster.py) | redis-py's `RedisCluster` |
| `rediss+cluster://` | redis-py's `RedisCluster` | the same client |

The lean clients are the hot path (docs/performance.md, docs/scaling.md); they speak neither
TLS nor pub/sub, so those go through redis-py. `RedisClient` is the part of the three clients
the store uses: all three satisfy it (mypy checks the assignments in `connect`), so the store's
code does not depend on which one runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry  # redis.retry's is the synchronous clients'
from redis.backoff import ExponentialBackoff, NoBackoff

from croupier.service.resp import RespClient
from croupier.service.resp_cluster import ClusterClient

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")

# redis-py's asyncio client, or its cluster client: the two that serve pub/sub.
PubSubClient = aioredis.Redis | RedisCluster


class RedisPipeline(Protocol):
    """Commands sent in one write (`pipeline(transaction=False)`), their replies in order."""

    def hmget(self, name: str, keys: str, *args: str) -> Any: ...
    def get(self, name: str, /) -> Any: ...
    async def execute(self) -> list[Any]: ...


class RedisClient(Protocol):
    """What the store asks of a Redis client (a method's reply is awaited)."""

    def register_script(self, script: str, /) -> Callable[..., Awaitable[Any]]: ...
    def pipeline(self, transaction: bool = ...) -> RedisPipeline: ...
    def hmget(self, name: str, keys: str, *args: str) -> Awaitable[list[Any]]: ...
    def get(self, name: str, /) -> Awaitable[Any]: ...
    def set(self, name: str, value: bytes, *, ex: int, nx: bool, get: bool) -> Awaitable[Any]: ...
    def ping(self) -> Awaitable[bool]: ...
    def execute_command(self, *args: Any) -> Awaitable[Any]: ...
    async def aclose(self) -> None: ...


def is_cluster_url(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def connect(url: str, timeout: float) -> RedisClient:
    """The client of the table above for `url`'s commands."""
    if url.startswith("redis+cluster://"):
        lean_cluster: RedisClient = ClusterClient(url, connect_timeout=timeout, timeout=timeout)
        return lean_cluster
    if is_cluster_url(url):
        return cluster(url, timeout)
    if url.startswith("redis://"):
        # Each command has a deadline of its own.
        lean: RedisClient = RespClient(url, connect_timeout=timeout, timeout=timeout)
        return lean
    single: RedisClient = redis_py(url, timeout, socket_timeout=timeout)
    return single


def subscriber(url: str, timeout: float, commands: RedisClient) -> PubSubClient:
    """The client of the table above for `url`'s pub/sub: `commands` itself when it is
    redis-py's cluster client, else a redis-py client of its own."""
    if isinstance(commands, RedisCluster):
        return commands
    if not is_cluster_url(url):
        return redis_py(url, timeout)
    pubsub = cluster(url, timeout)
    if isinstance(commands, ClusterClient):
        # It reads its slot map again when the lean client does (a slot moved): redis-py then
        # moves the subscriptions of that slot's channels to their new master.
        commands.map_listeners.append(pubsub.nodes_manager.initialize)
    return pubsub


def cluster(url: str, timeout: float) -> RedisCluster:
    # Redirections after a resharding or failover are followed with a few retries; the
    # commit token makes a re-sent write safe.
    return RedisCluster.from_url(
        url.replace("+cluster", "", 1),
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 6),
    )


def redis_py(url: str, timeout: float, socket_timeout: float | None = None) -> aioredis.Redis:
    """redis-py for a single Redis: TLS and socket URLs, and every pub/sub connection (which
    waits for messages without a deadline)."""
    return aioredis.Redis.from_url(
        url,
        socket_timeout=socket_timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),  # fail fast: the caller gets UNAVAILABLE at once
    )
