"""Prometheus metrics, served on --metrics-port: calls by RPC, game type, status code and
ErrorInfo reason, latency histograms, illegal-move rule ids, store errors and latency, open
watch streams, and what moves found of their game's remembered state."""

from __future__ import annotations

import asyncio
import bisect
import functools
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

from prometheus_client import (
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.utils import floatToGoString

from croupier.service.store.fanout import WatchQueue
from croupier.service.store.protocol import (
    Commit,
    CommitResult,
    FeedEntry,
    IndexEntry,
    NotDurable,
    Snapshot,
    Store,
    StoreUnavailable,
    Update,
)

# No `<name>_created` series beside each counter and histogram: one more series per label set
# that dashboards never read (Prometheus 2.x scrapes the text format, where they are plain
# gauges of process start times).
disable_created_metrics()  # type: ignore[no-untyped-call]  # prometheus_client is untyped here

_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class LeanCounter(Collector):
    """A labelled counter, exposed as prometheus_client's Counter exposes it (the same series,
    HELP and TYPE: tests/service/test_metrics.py), whose increment is a dict's: the counters of
    every call and store operation. Counter.inc costs three Python calls and a lock each;
    updated from the event loop's thread only, read by the scrape's."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self._name, self._documentation, self._labelnames = name, documentation, labelnames
        self._values: dict[tuple[str, ...], float] = {}
        registry.register(self)

    def inc(self, labels: tuple[str, ...]) -> None:
        values = self._values
        values[labels] = values.get(labels, 0.0) + 1.0

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self._name, self._documentation, labels=self._labelnames)
        for labels, value in list(self._values.items()):  # one step of the GIL: a copy
            family.add_metric(labels, value)
        yield family


class LeanHistogram(Collector):
    """A histogram with one label, exposed as prometheus_client's Histogram exposes it (the
    same buckets, count and sum), whose observation is a bisection and two additions: the
    latencies of every call and store operation (Histogram.observe costs a lock per bucket
    and sum, through as many Python calls). Updated from the event loop's thread only."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelname: str,
        buckets: Sequence[float],
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        self._name, self._documentation, self._labelname = name, documentation, labelname
        self._bounds = tuple(float(b) for b in buckets)
        self._les = [*map(floatToGoString, self._bounds), "+Inf"]
        # Per label value: the count of each bucket (not cumulated; the last is +Inf's), then
        # the sum.
        self._cells: dict[str, list[float]] = {}
        registry.register(self)

    def observe(self, label: str, amount: float) -> None:
        cell = self._cells.get(label)
        if cell is None:
            cell = self._cells[label] = [0.0] * (len(self._bounds) + 2)
        # The first bucket whose bound is >= amount, as Histogram.observe's `amount <= bound`.
        cell[bisect.bisect_left(self._bounds, amount)] += 1.0
        cell[-1] += amount

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self._name, self._documentation, labels=[self._labelname])
        for label, counts in list(self._cells.items()):
            cell = list(counts)
            cumulated, total = [], 0.0
            for le, count in zip(self._les, cell, strict=False):  # the sum is left out
                total += count
                cumulated.append((le, total))
            family.add_metric([label], cumulated, cell[-1])
        yield family


CALLS = LeanCounter(
    "croupier_rpc_calls",
    "Calls handled, by RPC, game type, status code and reason (the ErrorInfo reason of a"
    " refusal, e.g. RATE_LIMITED or SEAT_LIMIT; empty when OK).",
    ["rpc", "game_type", "code", "reason"],
)  # fmt: skip
LATENCY = LeanHistogram(
    "croupier_rpc_latency_seconds", "Time to handle a call (streams: their whole life).",
    "rpc", _LATENCY_BUCKETS,
)  # fmt: skip
ILLEGAL_MOVES = Counter(
    "croupier_illegal_moves", "Moves refused by the rules, by game type and rule id.",
    ["game_type", "rule_id"],
)  # fmt: skip
STORE_LATENCY = LeanHistogram(
    "croupier_store_latency_seconds", "Time of one store operation.",
    "operation", _LATENCY_BUCKETS,
)  # fmt: skip
STORE_ERRORS = Counter(
    "croupier_store_errors", "Store operations that failed (store unreachable or too slow).",
    ["operation"],
)  # fmt: skip
NOT_DURABLE = Counter(
    "croupier_writes_not_durable",
    "Store operations whose write (or the recorded answer they read) Redis did not confirm"
    " durable within --store-timeout as --durability asks, by operation: answered UNAVAILABLE."
    " Also counted in croupier_store_errors.",
    ["operation"],
)  # fmt: skip
WATCH_STREAMS = Gauge("croupier_watch_streams", "WatchGame streams open on this process.")
SESSIONS = Gauge("croupier_sessions", "PlayGame sessions open on this process.")


def open_streams(rpc: str) -> Gauge:
    """The gauge of the streams of `rpc` open on this process."""
    return SESSIONS if rpc == "PlayGame" else WATCH_STREAMS


WATCH_CUT_OFF = Counter(
    "croupier_watch_cut_off",
    "WatchGame streams ended with WATCH_TOO_SLOW: their client stopped reading while moves kept"
    " coming.",
)
FEED_LOST = Counter(
    "croupier_feed_lost",
    "Event-feed entries not appended: the store failed after the game's own write was made.",
)
BOT_MOVES = Counter(
    "croupier_bot_moves",
    "Moves of bot seats written by this process, by bot level.",
    ["level"],
)  # fmt: skip
TIMEOUTS = Counter(
    "croupier_timeouts",
    "Turn-clock timeouts this process acted on (its write made).",
)
TIMEOUT_LATENESS = Histogram(
    "croupier_timeout_lateness_seconds",
    "How long after its deadline each timeout this process acted on was decided.",
    buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0),
)
DEADLINES_LOST = Counter(
    "croupier_deadlines_not_indexed",
    "Deadlines not added to the due index: the store failed after the game's own write.",
)
REMEMBERED_STATES = Counter(
    "croupier_remembered_states",
    "ApplyMove calls by the state the process remembered of the game: current (the move's read"
    " skipped), stale (its write refused: the game had moved on), rechecked (a refusal checked"
    " by a read) or none (read first).",
    ["state"],
)  # fmt: skip
WATCHED_MOVES = LeanCounter(
    "croupier_watched_moves",
    "Moves of the games watched on this process, by how the process had each for its watch"
    " streams: decoded (from the move's notification) or filed (by this process as it wrote"
    " the move, so that its notification needed no decoding).",
    ["source"],
)  # fmt: skip
OVERLOADED = Counter(
    "croupier_overloaded_calls",
    "Calls refused with OVERLOADED because the process had as many calls (or watch streams)"
    " under way as --max-calls-in-flight (--max-watch-streams) allow, by kind and RPC.",
    ["kind", "rpc"],
)  # fmt: skip
IN_FLIGHT = Gauge(
    "croupier_calls_in_flight",
    "Calls (not counting watch streams) being handled on this process.",
)


@functools.cache
def overloaded(kind: str, rpc: str) -> Any:
    """The counter of `rpc` calls refused for want of a slot of `kind`."""
    return OVERLOADED.labels(kind, rpc)


# The RPCs whose calls last as long as their client wants: no latency is observed for them.
_STREAMS = frozenset({"WatchGame", "PlayGame"})


def record_call(
    rpc: str,
    game_type: str | None,
    code: str,
    seconds: float,
    rule_id: str | None,
    reason: str | None = None,
) -> None:
    # The reasons are the fixed catalogue of errors.Reason, so the series stay few.
    CALLS.inc((rpc, game_type or "", code, reason or ""))
    if rpc not in _STREAMS:
        LATENCY.observe(rpc, seconds)
    if rule_id is not None:
        ILLEGAL_MOVES.labels(game_type or "", rule_id).inc()


@functools.cache
def remembered_state(state: str) -> Any:
    """The counter of ApplyMove calls that found the game's remembered state `state`."""
    return REMEMBERED_STATES.labels(state)


def serve(port: int, host: str = "[::]") -> None:
    """Serve /metrics on host:port (the server's --host: the metrics are no more reachable
    than the gRPC port) from a background thread. `host` is written as for gRPC: "[::]" (every
    address, IPv4 included) or "127.0.0.1"; the HTTP server takes the bare address."""
    address = host.strip("[]")
    try:
        start_http_server(port, addr=address)
    except OSError:
        if address != "::":
            raise
        # A host without IPv6: every IPv4 address, as gRPC does with "[::]" there.
        start_http_server(port, addr="0.0.0.0")


def _count_refused(result: CommitResult) -> None:
    if result.feed_lost:
        STORE_ERRORS.labels("feed_append").inc(result.feed_lost)
    if result.due_refused:
        STORE_ERRORS.labels("index_add").inc()


def _count_refused_later(later: asyncio.Future[CommitResult]) -> None:
    if not later.cancelled() and later.exception() is None:
        _count_refused(later.result())


class _CountedWatch:
    """The store's watch, a failure to open it counted. A class rather than a generator-based
    context manager in an exit stack: every open stream holds one, and those held more memory
    each (docs/scaling.md, "Watchers")."""

    __slots__ = ("_watch",)

    def __init__(self, watch: AbstractAsyncContextManager[WatchQueue]) -> None:
        self._watch = watch

    async def __aenter__(self) -> WatchQueue:
        try:
            return await self._watch.__aenter__()
        except StoreUnavailable:
            STORE_ERRORS.labels("watch").inc()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        return await self._watch.__aexit__(kind, error, traceback)


class MeasuredStore:
    """A Store that times every operation and counts its failures."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def _timed(self, operation: str, awaitable: Any) -> Any:
        started = time.perf_counter()
        try:
            return await awaitable
        except StoreUnavailable as exc:
            STORE_ERRORS.labels(operation).inc()
            if isinstance(exc, NotDurable):
                NOT_DURABLE.labels(operation).inc()
            raise
        finally:
            STORE_LATENCY.observe(operation, time.perf_counter() - started)

    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        result: Snapshot | None = await self._timed("load", self._store.load(game_id, request_id))
        return result

    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        await self._timed("create", self._store.create(game_id, data, ttl_seconds))

    async def commit(self, commit: Commit) -> CommitResult:
        result: CommitResult = await self._timed("commit", self._store.commit(commit))
        # The commit's entries Redis refused: counted as refused commands of their own would
        # be, now or once Redis has answered them.
        if result.feed_lost or result.due_refused:
            _count_refused(result)
        elif result.later is not None:
            result.later.add_done_callback(_count_refused_later)
        return result

    async def get_create_record(self, request_id: str) -> bytes | None:
        record: bytes | None = await self._timed(
            "get_create_record", self._store.get_create_record(request_id)
        )
        return record

    async def put_create_record(self, request_id: str, record: bytes, ttl_seconds: int) -> bytes:
        kept: bytes = await self._timed(
            "put_create_record", self._store.put_create_record(request_id, record, ttl_seconds)
        )
        return kept

    async def load_with_log(self, game_id: str) -> tuple[Snapshot, list[bytes]] | None:
        result: tuple[Snapshot, list[bytes]] | None = await self._timed(
            "load_with_log", self._store.load_with_log(game_id)
        )
        return result

    async def update(self, update: Update) -> CommitResult:
        result: CommitResult = await self._timed("update", self._store.update(update))
        return result

    async def delete(self, game_id: str) -> None:
        await self._timed("delete", self._store.delete(game_id))

    async def load_many(self, game_ids: Sequence[str]) -> list[Snapshot | None]:
        found: list[Snapshot | None] = await self._timed(
            "load_many", self._store.load_many(game_ids)
        )
        return found

    async def index_add(self, entries: Sequence[IndexEntry]) -> None:
        await self._timed("index_add", self._store.index_add(entries))

    async def index_remove(self, entries: Sequence[IndexEntry]) -> None:
        await self._timed("index_remove", self._store.index_remove(entries))

    async def index_page(
        self, index_keys: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> list[IndexEntry]:
        page: list[IndexEntry] = await self._timed(
            "index_page", self._store.index_page(index_keys, before, count)
        )
        return page

    async def feed_append(self, entry: FeedEntry) -> None:
        await self._timed("feed_append", self._store.feed_append(entry))

    async def shared_secret(self, key: str, candidate: bytes) -> bytes:
        secret: bytes = await self._timed(
            "shared_secret", self._store.shared_secret(key, candidate)
        )
        return secret

    def watch(self, game_id: str) -> AbstractAsyncContextManager[WatchQueue]:
        return _CountedWatch(self._store.watch(game_id))

    async def ping(self) -> bool:
        ok = await self._store.ping()
        if not ok:
            STORE_ERRORS.labels("ping").inc()
        return ok

    async def close(self) -> None:
        await self._store.close()
