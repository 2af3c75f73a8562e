"""Per-process limits: request rate per credential (a token bucket each) and watchers per game.

They bound what one replica accepts; with N replicas behind a balancer a client can reach at
most N times these figures (docs/reliability.md).
"""

from __future__ import annotations

import functools
import ipaddress
import time
import urllib.parse
from collections import OrderedDict, defaultdict


class RateLimiter:
    """A token bucket per key: `rate` calls per second on average, bursts of `burst`."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def acquire(self, key: str, now: float | None = None) -> float | None:
        """Take one token; None when allowed, else the seconds until a token is available."""
        if self.rate <= 0:
            return None
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1.0
        if allowed:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return None if allowed else (1.0 - tokens) / self.rate

    def wait(self, key: str, now: float | None = None) -> float | None:
        """What `acquire` would answer, without taking a token."""
        if self.rate <= 0 or key not in self._buckets:
            return None
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets[key]
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        return None if tokens >= 1.0 else (1.0 - tokens) / self.rate


def _peer_ip(peer: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | str:
    """The IP address of a peer: gRPC's peers look like `ipv4:127.0.0.1:53422` and
    `ipv6:[::1]:53422` (some versions percent-encode the brackets), the web gateway's like
    `web:127.0.0.1:53422` or `web:::1:53422`. An IPv4-mapped IPv6 address is its IPv4
    address. Anything else (a Unix socket) is given back as it is."""
    kind, _, rest = urllib.parse.unquote(peer).partition(":")
    if kind not in ("ipv4", "ipv6", "web"):
        return peer
    host = rest.rsplit(":", 1)[0] if ":" in rest else rest
    host = host.removeprefix("[").removesuffix("]")
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host or peer
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


# Memoized: every call with a credential asks for its peer's (a connection's peer is the same
# string for all its calls), and parsing it was about 5 µs of each call.
@functools.lru_cache(maxsize=4096)
def peer_address(peer: str) -> str:
    """The address a call comes from, without its port: the key of the rate limit of calls
    without a credential. An IPv6 host usually holds a whole /64, so its calls count
    together."""
    address = _peer_ip(peer)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


# Memoized as peer_address: every call's log line gives its address.
@functools.lru_cache(maxsize=4096)
def client_address(peer: str) -> str:
    """The address of a call's log line: the peer's IP address without its port (an IPv6
    host's own address, not its /64), so that abuse can be traced to an address."""
    return str(_peer_ip(peer))


class WatcherCount:
    """How many watch streams each game has on this process."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: defaultdict[str, int] = defaultdict(int)

    def enter(self, game_id: str) -> bool:
        if self.limit > 0 and self._counts[game_id] >= self.limit:
            return False
        self._counts[game_id] += 1
        return True

    def count(self, game_id: str) -> int:
        return self._counts.get(game_id, 0)

    def leave(self, game_id: str) -> None:
        self._counts[game_id] -= 1
        if self._counts[game_id] <= 0:
            del self._counts[game_id]
