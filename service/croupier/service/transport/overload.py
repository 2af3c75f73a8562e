"""The bound on the work one process accepts: calls in flight, and open watch streams (the
seats' and the spectators' apart).

A call beyond a bound is refused at once, before it reads the store or decodes a credential,
with UNAVAILABLE, reason OVERLOADED and a RetryInfo (docs/api.md). Refusing is cheap, so a
process keeps answering whatever arrives; without a bound a burst queues in the event loop and
every call gets slower together. Refusals are counted (metrics) and logged at most once per
second with the count since the last line, since a line per refused call would add to the very
load that caused it.
"""

from __future__ import annotations

import asyncio
import random
import time

import structlog

from croupier.service.application import errors
from croupier.service.observability import metrics

log = structlog.get_logger("croupier.overload")

# What RetryInfo asks for: a short call frees its slot within milliseconds, a watch stream only
# when it ends. The delay sent is drawn between half and one and a half times this, so that the
# calls of one refused burst do not all come back at the same moment.
CALL_RETRY_SECONDS = 0.1
WATCH_RETRY_SECONDS = 1.0
LOG_INTERVAL_SECONDS = 1.0


class Bound:
    """How many of one kind of work (calls, or watch streams) are under way, up to `limit`
    (0: no limit)."""

    def __init__(self, kind: str, limit: int, retry_seconds: float) -> None:
        self.kind = kind
        self.limit = limit
        self.retry_seconds = retry_seconds
        self.current = 0
        self._unlogged = 0
        self._last_logged = float("-inf")
        self._flush: asyncio.TimerHandle | None = None

    def enter(self, rpc: str) -> None:
        """Take a slot, or raise OVERLOADED (counted, and logged sampled)."""
        if self.limit <= 0 or self.current < self.limit:
            self.current += 1
            return
        self.count_refusal(rpc)
        raise self.refusal()

    def refusal(self) -> errors.ServiceError:
        """The OVERLOADED error of a call beyond the bound, with its retry delay."""
        delay = self.retry_seconds * random.uniform(0.5, 1.5)
        return errors.overloaded(
            f"this server has {self.limit} {self.kind} under way; retry in {delay:.2f} s",
            delay,
        )

    def count_refusal(self, rpc: str) -> None:
        """Count a refusal, and log it sampled (on the event loop's thread)."""
        metrics.overloaded(self.kind, rpc).inc()
        self._note_refusal()

    def leave(self) -> None:
        self.current -= 1

    def _note_refusal(self) -> None:
        self._unlogged += 1
        if self._flush is not None:
            return  # a line is due: it will count this refusal too
        wait = self._last_logged + LOG_INTERVAL_SECONDS - time.monotonic()
        if wait <= 0:
            self._log()
        else:
            self._flush = asyncio.get_running_loop().call_later(wait, self._log)

    def _log(self) -> None:
        self._flush = None
        self._last_logged = time.monotonic()
        refused, self._unlogged = self._unlogged, 0
        log.warning(
            "overloaded", kind=self.kind, refused=refused, limit=self.limit, current=self.current
        )


class Overload:
    """The two bounds of one process: short calls, and watch streams (long-lived, so counted
    apart: a process may hold many more idle streams than it can run calls at once)."""

    def __init__(
        self, max_calls: int, max_watch_streams: int, max_spectator_streams: int = 0
    ) -> None:
        self.calls = Bound("calls", max_calls, CALL_RETRY_SECONDS)
        self.watch_streams = Bound("watch streams", max_watch_streams, WATCH_RETRY_SECONDS)
        # Spectators' streams apart from the seats': a crowd of spectators never takes a seat's.
        self.spectator_streams = Bound(
            "spectator streams", max_spectator_streams, WATCH_RETRY_SECONDS
        )
        metrics.IN_FLIGHT.set_function(lambda: self.calls.current)

    def streams(self, with_credential: bool) -> Bound:
        """The bound a new stream counts against: the seats' (a call with a credential, which
        is checked later) or the spectators'."""
        return self.watch_streams if with_credential else self.spectator_streams
