"""The writes a move does not wait for (service/croupier/service/application/writes.py): a
turn-clock deadline, indexed with the move's write or ahead of it, and an event-feed entry, appended
with it or after it (on a single Redis both are written by the move's own script). A failed one
never fails the move, and never vanishes: it is counted and logged. Real redis-server and real
server processes; the failure is Redis's own (a key of the wrong type)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.client import Croupier
from croupier.local import LocalServer, free_port
from croupier.play import options_for
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis
from tests.scrape import counted
from tests.service.helpers import finish


@pytest.fixture
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@contextlib.contextmanager
def served(store: EmbeddedRedis, log: Path, *flags: str) -> Iterator[tuple[Croupier, int]]:
    """A server on `store` with its metrics port, its log lines (warning and up) in `log`:
    a client of it and the metrics port."""
    metrics_port = free_port()
    with (
        log.open("wb") as stderr,
        LocalServer(
            store.url,
            extra_args=(*flags, "--metrics-port", str(metrics_port)),
            stderr=stderr.fileno(),
        ) as server,
        Croupier(server.target) as croupier,
    ):
        yield croupier, metrics_port


def spoil(store: EmbeddedRedis, names: list[str]) -> None:
    """Make each key a string: Redis refuses every XADD or ZADD to it (WRONGTYPE)."""
    with redis.Redis(port=store.port) as plain:
        for name in names:
            plain.set(name, b"neither a stream nor a sorted set")


def logged(log: Path, event: str) -> list[str]:
    return [line for line in log.read_text().splitlines() if f'"event": "{event}"' in line]


def assert_refusals(port: int, lost: str, operation: str, expected: int) -> None:
    """`expected` refusals, each counted once in `lost` and once as a store error."""
    # A refusal is counted when Redis's reply comes, after the call that sent it answered.
    errors = counted(port, STORE_ERRORS, expected, operation=operation)
    assert (counted(port, lost, expected), errors) == (expected, expected)


STORE_ERRORS = "croupier_store_errors_total"


def test_a_feed_entry_redis_refuses_is_counted_and_logged_and_the_moves_stand(
    store: EmbeddedRedis, tmp_path: Path
) -> None:
    spoil(store, [keys.feed(shard) for shard in range(keys.FEED_SHARDS)])  # every XADD fails
    log = tmp_path / "server.log"
    with served(store, log, "--feed-moves") as (croupier, metrics_port):
        game = croupier.create(options_for("trinity"), 3, seed=3)
        view, moves = finish([croupier], game.name, list(game.seat_credentials), seed=3)
        assert view.move_count == moves > 0
        # Created (an append of its own), every move and the end (appended by the moves'
        # scripts): each counted once its reply came.
        assert_refusals(metrics_port, "croupier_feed_lost_total", "feed_append", moves + 2)
    lines = logged(log, "feed_append_failed")
    assert len(lines) == moves + 2
    assert '"error": "ResponseError"' in lines[0] and game.name.removeprefix("games/") in lines[0]


def test_a_deadline_redis_refuses_is_counted_and_logged_and_the_moves_stand(
    store: EmbeddedRedis, tmp_path: Path
) -> None:
    spoil(store, [keys.due_index(bucket) for bucket in range(keys.DUE_BUCKETS)])  # every ZADD
    log = tmp_path / "server.log"
    with served(store, log) as (croupier, metrics_port):
        game = croupier.create(options_for("one_card"), 2, seed=5, clock_seconds=3600)
        credentials = list(game.seat_credentials)
        # The game keeps its deadlines: only the index lacks them.
        assert croupier.get(game.name, credentials[0]).deadlines
        moved = 0
        for _ in range(10):
            view = croupier.get(game.name, credentials[0])
            if view.HasField("result"):
                break
            seat = view.active_seats[0]
            move = croupier.legal_moves(game.name, credentials[seat])[0]
            croupier.apply(game.name, credentials[seat], move)
            moved += 1
        assert croupier.get(game.name, credentials[0]).move_count == moved
        # CreateGame's deadline (ahead of its write) and every move's (in its commit script):
        # an entry refused makes the game's next move index its deadline again, although the
        # entry the state names is no later (docs/architecture.md, "Turn clocks", rule 4).
        # The clock sweep's reads never index one.
        assert_refusals(
            metrics_port, "croupier_deadlines_not_indexed_total", "index_add", moved + 1
        )
    lines = logged(log, "deadline_not_indexed")
    assert len(lines) == moved + 1
