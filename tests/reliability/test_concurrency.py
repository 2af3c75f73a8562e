"""Concurrency: many clients play many games of all five types at once through several server
processes sharing one Redis, with deliberately racing duplicate moves (the same request id sent
to every process at once, and the same move without a request id) and simultaneous plays.

Proof at the end: replaying every game's move log from its seed gives exactly its stored state,
every game's move count equals the successful ApplyMove calls counted by the clients (a request
id answered several times counts once), and no two counted successes got the same etag.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import grpc
import pytest
import redis

from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from tests.reliability.figures import record
from tests.reliability.support import (
    GAME_TYPES,
    AsyncApi,
    alive,
    assert_replays,
    new_request_id,
    redis_client,
    servers,
)

# A refused racing move: the rules forbid it now (another move landed first), or it lost the
# compare-and-set race too often.
REFUSED = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED}


@dataclass
class Tally:
    """What the clients saw, per game."""

    applied: Counter[str] = field(default_factory=Counter)
    etags: dict[str, list[int]] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)

    def success(self, name: str, response: pb.ApplyMoveResponse) -> None:
        self.applied[name] += 1
        self.etags.setdefault(name, []).append(int(response.etag))
        assert response.view.move_count == int(response.etag) - 1


@dataclass
class Table:
    name: str
    game_type: str
    credentials: list[str]
    apis: list[AsyncApi]  # one client channel per server process


async def seat_turn(table: Table, seat: int, rng: random.Random, tally: Tally) -> None:
    """One seat's move, sent in one of the racing modes."""
    name, credential = table.name, table.credentials[seat]
    api = rng.choice(table.apis)
    moves = await api.legal_moves(name, credential)
    tally.calls["ListLegalMoves"] += 1
    if not moves:  # the state moved on since the view was read
        return
    move = rng.choice(moves)
    mode = rng.random()
    if mode < 0.25:
        # The same request id through every process at once: all answer alike, applied once.
        request_id = new_request_id()
        results = await asyncio.gather(
            *(a.apply(name, credential, move, request_id=request_id) for a in table.apis),
            return_exceptions=True,
        )
        tally.calls["ApplyMove"] += len(results)
        tally.calls["raced_same_request_id"] += 1
        answers = [r for r in results if isinstance(r, pb.ApplyMoveResponse)]
        if answers:
            assert len(answers) == len(results), results
            assert all(a == answers[0] for a in answers)
            tally.success(name, answers[0])
        else:
            check_refusals(results)
    elif mode < 0.45:
        # The same move without a request id through every process at once: each success is
        # a move of its own (only possible when the move is still legal after the other).
        results = await asyncio.gather(
            *(a.apply(name, credential, move) for a in table.apis), return_exceptions=True
        )
        tally.calls["ApplyMove"] += len(results)
        tally.calls["raced_without_request_id"] += 1
        for result in results:
            if isinstance(result, pb.ApplyMoveResponse):
                tally.success(name, result)
        check_refusals([r for r in results if not isinstance(r, pb.ApplyMoveResponse)])
    elif mode < 0.55:
        # A retry of an answered move through the other process: the first answer again.
        request_id = new_request_id()
        first, again = rng.sample(table.apis, 2)
        try:
            answer = await first.apply(name, credential, move, request_id=request_id)
        except CroupierError as error:
            tally.calls["ApplyMove"] += 1
            check_refusals([error])
            return
        repeated = await again.apply(name, credential, move, request_id=request_id)
        tally.calls["ApplyMove"] += 2
        tally.calls["retried_request_id"] += 1
        assert repeated == answer
        tally.success(name, answer)
    else:
        request_id = new_request_id() if rng.random() < 0.5 else ""
        tally.calls["ApplyMove"] += 1
        try:
            tally.success(name, await api.apply(name, credential, move, request_id=request_id))
        except CroupierError as error:
            check_refusals([error])


def check_refusals(results: Sequence[object]) -> None:
    for result in results:
        if isinstance(result, CroupierError):
            assert result.code in REFUSED, result
        elif isinstance(result, BaseException):
            raise result


async def play(table: Table, seed: int, max_moves: int, tally: Tally) -> None:
    """Every seat that may act plays at once (What's Your Name? plays are simultaneous; in the
    other games only out-of-turn moves race the seat in turn)."""
    rng = random.Random(seed)
    view = await rng.choice(table.apis).get(table.name)
    while not view.HasField("result") and tally.applied[table.name] < max_moves:
        active = list(view.active_seats)
        if len(active) > 1:
            tally.calls["simultaneous_turns"] += 1
        await asyncio.gather(*(seat_turn(table, seat, rng, tally) for seat in active))
        view = await rng.choice(table.apis).get(table.name)
    tally.calls["finished" if view.HasField("result") else "stopped_at_cap"] += 1


async def load(
    targets: list[str], games_per_type: int, max_moves: int, seed: int
) -> tuple[Tally, list[Table], int]:
    rng = random.Random(seed)
    tally = Tally()
    tables: list[Table] = []
    channels = 0
    creator = AsyncApi(targets[0])
    try:
        for game_type in GAME_TYPES:
            engine = GAMES[game_type]
            for _ in range(games_per_type):
                seats = rng.randint(engine.min_seats, min(engine.max_seats, 6))
                created = await creator.create(game_type, seats, seed=rng.getrandbits(63))
                apis = [AsyncApi(target) for target in targets]
                channels += len(apis)
                tables.append(Table(created.name, game_type, list(created.seat_credentials), apis))
        await asyncio.gather(
            *(play(table, rng.getrandbits(32), max_moves, tally) for table in tables)
        )
    finally:
        await creator.close()
        for table in tables:
            for api in table.apis:
                await api.close()
    return tally, tables, channels


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as running:
        yield running


@pytest.fixture(scope="module")
def three_servers(store: EmbeddedRedis) -> Iterator[list[LocalServer]]:
    with servers(store.url, 3) as started:
        yield started


def run_and_prove(
    label: str,
    store: EmbeddedRedis,
    processes: list[LocalServer],
    games_per_type: int,
    max_moves: int,
) -> None:
    started = time.monotonic()
    tally, tables, channels = asyncio.run(
        load([s.target for s in processes], games_per_type, max_moves, seed=games_per_type)
    )
    elapsed = time.monotonic() - started
    client: redis.Redis = redis_client(store.url)
    try:
        for table in tables:
            counted = tally.applied[table.name]
            assert assert_replays(client, table.name) == counted, table
            # Each counted success is a distinct write: etags 2, 3, ... without a gap or twin.
            assert sorted(tally.etags.get(table.name, [])) == list(range(2, counted + 2))
    finally:
        client.close()
    assert all(alive(server) for server in processes)
    moves = sum(tally.applied.values())
    record(
        label,
        server_processes=len(processes),
        games=len(tables),
        game_types=len({t.game_type for t in tables}),
        moves_applied=moves,
        client_channels=channels,
        seconds=round(elapsed, 1),
        moves_per_second=round(moves / elapsed, 1),
        **dict(tally.calls),
        lost_or_doubled=0,
    )


def test_many_clients_many_games_through_three_processes(
    store: EmbeddedRedis, three_servers: list[LocalServer]
) -> None:
    run_and_prove("concurrency", store, three_servers, games_per_type=4, max_moves=70)


@pytest.mark.slow
def test_many_games_to_the_end_through_three_processes(
    store: EmbeddedRedis, three_servers: list[LocalServer]
) -> None:
    run_and_prove("concurrency_slow", store, three_servers, games_per_type=12, max_moves=1500)
