"""Prometheus metrics, served on --metrics-port: calls by RPC, game type and status code,
latency histograms, illegal-move rule ids, store errors and latency, open watch streams, and
what moves found of their game's remembered state."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, start_http_server

from service.fanout import WatchQueue
from service.store import Commit, CommitResult, Snapshot, Store, StoreUnavailable

_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

CALLS = Counter(
    "croupier_rpc_calls", "Calls handled, by RPC, game type and status code.",
    ["rpc", "game_type", "code"],
)  # fmt: skip
LATENCY = Histogram(
    "croupier_rpc_latency_seconds", "Time to handle a call (streams: their whole life).",
    ["rpc"], buckets=_LATENCY_BUCKETS,
)  # fmt: skip
ILLEGAL_MOVES = Counter(
    "croupier_illegal_moves", "Moves refused by the rules, by game type and rule id.",
    ["game_type", "rule_id"],
)  # fmt: skip
STORE_LATENCY = Histogram(
    "croupier_store_latency_seconds", "Time of one store operation.",
    ["operation"], buckets=_LATENCY_BUCKETS,
)  # fmt: skip
STORE_ERRORS = Counter(
    "croupier_store_errors", "Store operations that failed (store unreachable or too slow).",
    ["operation"],
)  # fmt: skip
WATCH_STREAMS = Gauge("croupier_watch_streams", "WatchGame streams open on this process.")
WATCH_CUT_OFF = Counter(
    "croupier_watch_cut_off",
    "WatchGame streams ended with WATCH_TOO_SLOW: their client stopped reading while moves kept"
    " coming.",
)
REMEMBERED_STATES = Counter(
    "croupier_remembered_states",
    "ApplyMove calls by the state the process remembered of the game: current (the move's read"
    " skipped), stale (its write refused: the game had moved on), rechecked (a refusal checked"
    " by a read) or none (read first).",
    ["state"],
)  # fmt: skip


@functools.cache
def _calls(rpc: str, game_type: str, code: str) -> Any:
    return CALLS.labels(rpc, game_type, code)


@functools.cache
def _latency(rpc: str) -> Any:
    return LATENCY.labels(rpc)


@functools.cache
def _store_latency(operation: str) -> Any:
    return STORE_LATENCY.labels(operation)


def record_call(
    rpc: str, game_type: str | None, code: str, seconds: float, rule_id: str | None
) -> None:
    # Label children are looked up once (labels() costs more than the increment).
    _calls(rpc, game_type or "", code).inc()
    if rpc != "WatchGame":
        _latency(rpc).observe(seconds)
    if rule_id is not None:
        ILLEGAL_MOVES.labels(game_type or "", rule_id).inc()


@functools.cache
def remembered_state(state: str) -> Any:
    """The counter of ApplyMove calls that found the game's remembered state `state`."""
    return REMEMBERED_STATES.labels(state)


def serve(port: int, host: str = "0.0.0.0") -> None:
    """Serve /metrics on `port` from a background thread."""
    start_http_server(port, addr=host)


class MeasuredStore:
    """A Store that times every operation and counts its failures."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def _timed(self, operation: str, awaitable: Any) -> Any:
        started = time.perf_counter()
        try:
            return await awaitable
        except StoreUnavailable:
            STORE_ERRORS.labels(operation).inc()
            raise
        finally:
            _store_latency(operation).observe(time.perf_counter() - started)

    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        result: Snapshot | None = await self._timed("load", self._store.load(game_id, request_id))
        return result

    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        await self._timed("create", self._store.create(game_id, data, ttl_seconds))

    async def commit(self, commit: Commit) -> CommitResult:
        result: CommitResult = await self._timed("commit", self._store.commit(commit))
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

    def watch(self, game_id: str) -> AbstractAsyncContextManager[WatchQueue]:
        return self._watch(game_id)

    @asynccontextmanager
    async def _watch(self, game_id: str) -> AsyncIterator[WatchQueue]:
        async with contextlib.AsyncExitStack() as stack:
            try:
                queue = await stack.enter_async_context(self._store.watch(game_id))
            except StoreUnavailable:
                STORE_ERRORS.labels("watch").inc()
                raise
            yield queue

    async def ping(self) -> bool:
        ok = await self._store.ping()
        if not ok:
            STORE_ERRORS.labels("ping").inc()
        return ok

    async def close(self) -> None:
        await self._store.close()
