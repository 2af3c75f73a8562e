"""The one place that chooses how the store reaches Redis for a URL: one client, the lean one,
for every URL, for commands, scripts and pub/sub alike.

- `redis://`, `rediss://` (TLS), `unix://`: commands and scripts through `RespClient`
  (store/resp.py), pub/sub (the watch streams) through `Subscriber`, in the same module.
- `redis+cluster://`, `rediss+cluster://` (TLS): `ClusterClient` (store/resp_cluster.py), a
  `RespClient` per master; pub/sub through `ClusterSubscriber`, a `Subscriber` per master.

TLS and Unix sockets only change how a connection opens (`resp.Endpoint`): what runs on it is
the same code, so a TLS deployment runs the path the benchmarks measure, group commit and
--durability's waits included. The URL's query options for TLS are redis-py's (`Endpoint`).
"""

from __future__ import annotations

from croupier.service.store.resp import Confirmed, Delivered, RespClient, Subscriber
from croupier.service.store.resp_cluster import ClusterClient, ClusterSubscriber

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
SCHEMES = ("redis://", "rediss://", "unix://", *CLUSTER_SCHEMES)

RedisClient = RespClient | ClusterClient
PubSub = Subscriber | ClusterSubscriber


def is_cluster_url(url: str) -> bool:
    return url.lower().startswith(CLUSTER_SCHEMES)


def connect(url: str, timeout: float) -> RedisClient:
    """The client of `url`'s commands: each command has a deadline of `timeout` seconds, as
    has each connection's opening."""
    if not url.lower().startswith(SCHEMES):
        raise ValueError(f"a Redis URL starts with one of {', '.join(SCHEMES)}")
    if is_cluster_url(url):
        return ClusterClient(url, connect_timeout=timeout, timeout=timeout)
    return RespClient(url, connect_timeout=timeout, timeout=timeout)


def subscriber(
    commands: RedisClient, delivered: Delivered, confirmed: Confirmed, timeout: float
) -> PubSub:
    """The pub/sub of the Redis `commands` reaches: a connection of its own (a subscribed
    connection takes no other command), or one per master of a cluster, placed by the
    commands' own slot map. Its reads wait without a deadline: messages come when they do."""
    if isinstance(commands, ClusterClient):
        return ClusterSubscriber(commands, delivered, confirmed, connect_timeout=timeout)
    return Subscriber(commands.endpoint, delivered, confirmed, connect_timeout=timeout)
