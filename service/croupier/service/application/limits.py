"""Per-process limits: request rate per credential (a token bucket each), and the budgets of
watch streams and sessions (per game, per seat, per client address).

They bound what one replica accepts; with N replicas behind a balancer a client can reach at
most N times these figures (docs/reliability.md).
"""

from __future__ import annotations

import functools
import ipaddress
import time
from collections import OrderedDict, defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from croupier.service.application import errors
from croupier.service.observability.logs import peer_ip

K = TypeVar("K", bound=Hashable)


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


# Memoized: every call with a credential asks for its peer's (a connection's peer is the same
# string for all its calls), and parsing it at every call was a visible part of a call.
@functools.lru_cache(maxsize=4096)
def peer_address(peer: str) -> str:
    """The address a call comes from, without its port: the key of the rate limit of calls
    without a credential. An IPv6 host usually holds a whole /64, so its calls count
    together."""
    address = peer_ip(peer)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class Stream:
    """One open watch stream or session, as `StreamCount` counted it."""

    game_id: str
    # A seat's stream: its credential (the key of the seat's budget); None for a spectator.
    credential: str | None
    address: str


class StreamCount:
    """The watch streams and sessions open on this process: per game (whose moves fan out to
    them), and the budgets a new one must fit in. Seats and spectators are counted apart, so
    that spectators never crowd out a seat: spectators within `spectators_per_game` per game
    and `spectators_per_address` per client address, each seat (its credential) within
    `streams_per_seat` (its devices). 0: no limit."""

    def __init__(
        self, spectators_per_game: int, spectators_per_address: int, streams_per_seat: int
    ) -> None:
        self.spectators_per_game = spectators_per_game
        self.spectators_per_address = spectators_per_address
        self.streams_per_seat = streams_per_seat
        self._games: defaultdict[str, int] = defaultdict(int)
        self._spectators: defaultdict[str, int] = defaultdict(int)
        self._addresses: defaultdict[str, int] = defaultdict(int)
        self._seats: defaultdict[tuple[str, str], int] = defaultdict(int)

    def enter(self, game_id: str, credential: str | None, address: str) -> Stream:
        """Count a new stream, or raise RESOURCE_EXHAUSTED with the budget it does not fit."""
        if credential is None:
            if _full(self._spectators, game_id, self.spectators_per_game):
                raise errors.resource_exhausted(
                    errors.Reason.WATCHER_LIMIT,
                    f"this game has {self.spectators_per_game} spectator streams on this server"
                    " already",
                )
            if _full(self._addresses, address, self.spectators_per_address):
                raise errors.resource_exhausted(
                    errors.Reason.ADDRESS_STREAM_LIMIT,
                    f"this address has {self.spectators_per_address} spectator streams open on"
                    " this server already",
                )
            self._spectators[game_id] += 1
            self._addresses[address] += 1
        else:
            if _full(self._seats, (game_id, credential), self.streams_per_seat):
                raise errors.resource_exhausted(
                    errors.Reason.SEAT_STREAM_LIMIT,
                    f"this seat has {self.streams_per_seat} streams open on this server already:"
                    " close one (a stream the client lost ends when the server notices)",
                )
            self._seats[(game_id, credential)] += 1
        self._games[game_id] += 1
        return Stream(game_id, credential, address)

    def leave(self, stream: Stream) -> None:
        _drop(self._games, stream.game_id)
        if stream.credential is None:
            _drop(self._spectators, stream.game_id)
            _drop(self._addresses, stream.address)
        else:
            _drop(self._seats, (stream.game_id, stream.credential))

    def count(self, game_id: str) -> int:
        """The streams of `game_id` here, seats' and spectators'."""
        return self._games.get(game_id, 0)


def _full(counts: Mapping[K, int], key: K, limit: int) -> bool:
    return limit > 0 and counts.get(key, 0) >= limit


def _drop(counts: dict[K, int], key: K) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]
