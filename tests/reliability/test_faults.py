"""Faults: Redis killed in the middle of a load and started again on the same port and folder
(append-only file, fsync on every write); a server process killed with SIGKILL mid-load; Redis
asleep (DEBUG SLEEP) while a move is in flight under a short client deadline.

Players use a request id on every move and retry an unanswered move with the same id, as a
client must: an answer lost in a fault leaves the client in doubt, and the retry tells. The
proof, for every game: replaying its log from its seed gives exactly its stored state, and its
move count equals the moves acknowledged to the client, plus at most the one move in doubt, and
only if that move is recorded under its request id (so its retry returns it)."""

from __future__ import annotations

import asyncio
import random
import select
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
import pytest
import redis

from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.service.application.games import pack_state, state_of
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import StoredGame
from tests.reliability.figures import record
from tests.reliability.support import (
    GAME_TYPES,
    NOT_SERVING,
    SERVING,
    AsyncApi,
    PersistentRedis,
    alive,
    assert_replays,
    encode,
    has_record,
    logged_moves,
    new_request_id,
    raw,
    redis_client,
    servers,
    stored,
    wait_health,
)

T = TypeVar("T")
DEADLINE = 2.0  # every call's deadline during the fault tests
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class Clock:
    """The phase of the run, stamped on every call."""

    phase = "load"


@dataclass
class Player:
    """Plays one game through randomly chosen server processes, one move at a time."""

    name: str
    credentials: list[str]
    apis: list[AsyncApi]
    clock: Clock
    rng: random.Random
    acknowledged: int = 0
    pending: tuple[str, int, pb.Move] | None = None  # request id, seat, move: not yet answered
    finished: bool = False
    parked: bool = False
    calls: list[tuple[str, str, str, float]] = field(default_factory=list)

    async def _timed(self, rpc: str, call: Awaitable[T]) -> T:
        phase, started = self.clock.phase, time.monotonic()
        code = "OK"
        try:
            return await call
        except CroupierError as error:
            code = error.code.name
            raise
        finally:
            self.calls.append((phase, rpc, code, time.monotonic() - started))

    async def step(self, api: AsyncApi | None = None) -> None:
        api = api or self.rng.choice(self.apis)
        if self.pending is None:
            view = await self._timed("GetGame", api.get(self.name))
            if view.HasField("result"):
                self.finished = True
                return
            seat = self.rng.choice(list(view.active_seats))
            moves = await self._timed(
                "ListLegalMoves", api.legal_moves(self.name, self.credentials[seat])
            )
            assert moves, "an active seat has a legal move"
            self.pending = (new_request_id(), seat, self.rng.choice(moves))
        request_id, seat, move = self.pending
        await self._timed(
            "ApplyMove",
            api.apply(self.name, self.credentials[seat], move, request_id=request_id),
        )
        self.acknowledged += 1
        self.pending = None

    async def run(self, go: asyncio.Event, stop: asyncio.Event) -> None:
        while not stop.is_set() and not self.finished:
            if not go.is_set():
                self.parked = True
                await go.wait()
                self.parked = False
                continue
            try:
                await self.step()
            except CroupierError as error:
                # The store or the process is away: wait a little, retry the same request (a
                # DEADLINE_EXCEEDED is retried too, and counted against the promise).
                if error.code not in RETRIED:
                    raise
                await asyncio.sleep(0.05)
        self.parked = True

    async def settle(self, api: AsyncApi) -> None:
        """Retry the move left unanswered (if any) until it is answered."""
        for _ in range(100):
            if self.pending is None:
                return
            try:
                await self.step(api)
            except CroupierError as error:
                if error.code not in RETRIED:
                    raise
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name}: the move in doubt was never answered")


def check_as_acknowledged(client: redis.Redis, player: Player) -> bool:
    """The game is exactly as its last acknowledged move left it, or holds in addition the one
    move in doubt, recorded under its request id. Returns whether the move in doubt is there."""
    count = assert_replays(client, player.name)
    if count == player.acknowledged:
        return False
    assert count == player.acknowledged + 1, (player.name, count, player.acknowledged)
    assert player.pending is not None
    request_id, seat, move = player.pending
    assert has_record(client, player.name, player.credentials[seat], request_id)
    last = logged_moves(client, player.name)[-1]
    assert (last.seat, last.move) == (seat, move)
    return True


async def make_players(
    targets: list[str], games_per_type: int, clock: Clock, seed: int
) -> tuple[list[Player], list[AsyncApi]]:
    rng = random.Random(seed)
    apis = [AsyncApi(target, timeout=DEADLINE) for target in targets for _ in range(2)]
    players = []
    for game_type in GAME_TYPES:
        engine = GAMES[game_type]
        for _ in range(games_per_type):
            seats = rng.randint(engine.min_seats, min(engine.max_seats, 5))
            created = await apis[0].create(game_type, seats, seed=rng.getrandbits(63))
            players.append(
                Player(
                    created.name,
                    list(created.seat_credentials),
                    apis,
                    clock,
                    random.Random(rng.getrandbits(32)),
                )
            )
    return players, apis


async def hold(players: list[Player], go: asyncio.Event) -> None:
    go.clear()
    # A player parks after its current step: at most three calls (GetGame, ListLegalMoves,
    # ApplyMove), each bounded by DEADLINE; the rest is margin for a busy machine.
    deadline = time.monotonic() + 3 * DEADLINE + 10
    while not all(p.parked or p.finished for p in players):
        assert time.monotonic() < deadline, "players did not stop"
        await asyncio.sleep(0.02)


def all_health(targets: list[str], status: int, timeout: float) -> float:
    return max(wait_health(target, status, timeout) for target in targets)


def latencies(players: list[Player], phase: str) -> list[tuple[str, float]]:
    return [(code, s) for p in players for (ph, _, code, s) in p.calls if ph == phase]


def test_redis_outage_fails_fast_and_recovers_with_every_acknowledged_move() -> None:
    outage_seconds = 3.0
    with PersistentRedis() as store, servers(store.url, 2) as processes:
        targets = [server.target for server in processes]
        client = redis_client(store.url)

        async def run() -> dict[str, object]:
            clock = Clock()
            players, apis = await make_players(targets, 2, clock, seed=81)
            go, stop = asyncio.Event(), asyncio.Event()
            go.set()
            tasks = [asyncio.create_task(p.run(go, stop)) for p in players]
            try:
                await asyncio.sleep(1.5)
                acknowledged_before = sum(p.acknowledged for p in players)
                clock.phase = "outage"
                await asyncio.to_thread(store.kill)
                killed = time.monotonic()
                to_not_serving = await asyncio.to_thread(all_health, targets, NOT_SERVING, 10)
                await asyncio.sleep(max(0.0, outage_seconds - (time.monotonic() - killed)))
                assert all(alive(server) for server in processes), "a server process died"
                await hold(players, go)
                clock.phase = "restart"
                await asyncio.to_thread(store.restart)
                to_serving = await asyncio.to_thread(all_health, targets, SERVING, 15)
                in_doubt = sum(check_as_acknowledged(client, p) for p in players)
                clock.phase = "recovered"
                go.set()
                await asyncio.sleep(1.5)
                stop.set()
                await asyncio.gather(*tasks)
                for player in players:
                    await player.settle(apis[0])
            finally:
                stop.set()
                go.set()
                await asyncio.gather(*tasks, return_exceptions=True)
                for api in apis:
                    await api.close()
            for player in players:
                assert assert_replays(client, player.name) == player.acknowledged
            outage = latencies(players, "outage")
            codes = Counter(code for code, _ in outage)
            assert set(codes) <= {"UNAVAILABLE", "OK"}, codes  # no DEADLINE_EXCEEDED: no hang
            assert codes["UNAVAILABLE"] > 0
            max_latency = max(s for _, s in outage)
            assert max_latency < DEADLINE
            recovered = [s for code, s in latencies(players, "recovered") if code == "OK"]
            assert recovered, "no call succeeded after Redis came back"
            return {
                "games": len(players),
                "players": len(players),
                "client_channels": len(apis),
                "moves_acknowledged": sum(p.acknowledged for p in players),
                "moves_before_outage": acknowledged_before,
                "calls_during_outage": len(outage),
                "unavailable_during_outage": codes["UNAVAILABLE"],
                "deadline_exceeded_during_outage": 0,
                "max_latency_during_outage_ms": round(max_latency * 1000, 1),
                "call_deadline_ms": DEADLINE * 1000,
                "seconds_to_not_serving": round(to_not_serving, 2),
                "seconds_to_serving_after_restart": round(to_serving, 2),
                "moves_in_doubt_found_applied": in_doubt,
                "calls_ok_after_recovery": len(recovered),
                "server_processes_died": 0,
                "lost_or_doubled": 0,
            }

        try:
            figures = asyncio.run(run())
        finally:
            client.close()
        assert all(alive(server) for server in processes)
    record("fault_redis_outage", **figures)


WATCH_FAIL_DEADLINE = 1.0  # a new WatchGame during an outage must fail before this deadline


def test_watch_fails_fast_in_an_outage_and_works_as_soon_as_health_says_serving() -> None:
    """WatchGame while Redis is down: UNAVAILABLE (STORE_UNAVAILABLE) under a 1 s deadline,
    whether its game's channel is held by a stream that outlives the outage, was subscribed
    before, or never was. After Redis is back: a WatchGame opened the moment health says
    SERVING has its first view on the first try, and every stream (the one that lived through
    the outage too) gets the next move through pub/sub: the poll that would also find it is
    set to 60 s. Single Redis only: the test stops and restarts one redis-server on its port
    and folder; the subscription code it exercises is the same for a cluster."""
    with PersistentRedis() as store, servers(store.url, 1, "--watch-poll", "60") as (server,):

        async def run() -> dict[str, object]:
            api = AsyncApi(server.target, timeout=10)
            try:
                return await _watch_through_outage(api, store, server.target)
            finally:
                await api.close()

        figures = asyncio.run(run())
        assert alive(server)
    record("fault_watch_outage", **figures)


async def _watch_through_outage(
    api: AsyncApi, store: PersistentRedis, target: str
) -> dict[str, object]:
    games = {kind: await api.create("trinity", 3, seed=n) for n, kind in enumerate(WATCHED)}
    survivor = api.stub.WatchGame(pb.WatchGameRequest(name=games["held"].name))
    assert (await survivor.read()).view.etag == "1"
    before = api.stub.WatchGame(pb.WatchGameRequest(name=games["before"].name))
    assert (await before.read()).view.etag == "1"
    before.cancel()
    await asyncio.to_thread(store.kill)
    await asyncio.to_thread(wait_health, target, NOT_SERVING, 10)
    failures: dict[str, float] = {}
    for kind, game in games.items():
        started = time.monotonic()
        call = api.stub.WatchGame(pb.WatchGameRequest(name=game.name), timeout=WATCH_FAIL_DEADLINE)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call.read()
        failures[kind] = time.monotonic() - started
        error = CroupierError.from_rpc_error(refused.value)
        assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE"), (
            kind,
            error,
        )
    await asyncio.to_thread(store.restart)
    to_serving = await asyncio.to_thread(wait_health, target, SERVING, 15)
    opened = time.monotonic()
    streams = {}
    for kind, game in games.items():
        streams[kind] = api.stub.WatchGame(pb.WatchGameRequest(name=game.name), timeout=60)
        first = await streams[kind].read()  # an error here fails the test: no second try
        assert isinstance(first, pb.WatchGameResponse) and first.view.etag == "1", kind
    first_views = time.monotonic() - opened
    streams["survivor"] = survivor
    for game in games.values():
        seat = (await api.get(game.name)).active_seats[0]
        move = (await api.legal_moves(game.name, game.seat_credentials[seat]))[0]
        await api.apply(game.name, game.seat_credentials[seat], move)
    for kind, stream in streams.items():
        async with asyncio.timeout(30):  # the poll would take 60 s
            message = await stream.read()
        assert isinstance(message, pb.WatchGameResponse) and message.view.etag == "2", kind
        stream.cancel()
    moved = time.monotonic() - opened
    return {
        "watch_deadline_during_outage_ms": WATCH_FAIL_DEADLINE * 1000,
        "max_watch_failure_during_outage_ms": round(max(failures.values()) * 1000, 1),
        "seconds_to_serving_after_restart": round(to_serving, 2),
        "watch_first_try_ok_after_serving": len(games),
        "seconds_to_first_views_after_serving": round(first_views, 2),
        "seconds_to_next_move_on_every_stream": round(moved, 2),
    }


# The games of the outage test, by what their channel went through before the outage.
WATCHED = ("held", "before", "never")


def test_server_killed_mid_load_corrupts_no_game() -> None:
    with EmbeddedRedis() as store, servers(store.url, 2) as processes:
        victim, survivor = processes
        client = redis_client(store.url)

        async def run() -> dict[str, object]:
            clock = Clock()
            players, apis = await make_players([victim.target, survivor.target], 2, clock, seed=82)
            go, stop = asyncio.Event(), asyncio.Event()
            go.set()
            tasks = [asyncio.create_task(p.run(go, stop)) for p in players]
            try:
                await asyncio.sleep(1.5)
                assert victim.process is not None
                clock.phase = "killed"
                victim.process.kill()  # SIGKILL, calls in flight
                assert victim.process.wait(timeout=10) == -9
                await asyncio.sleep(1.0)
                await hold(players, go)
                in_doubt = sum(check_as_acknowledged(client, p) for p in players)
                go.set()
                await asyncio.sleep(1.5)
                stop.set()
                await asyncio.gather(*tasks)
                survivor_api = next(a for a in apis if a.target == survivor.target)
                for player in players:
                    await player.settle(survivor_api)
            finally:
                stop.set()
                go.set()
                await asyncio.gather(*tasks, return_exceptions=True)
                for api in apis:
                    await api.close()
            for player in players:
                assert assert_replays(client, player.name) == player.acknowledged
            after = latencies(players, "killed")
            return {
                "games": len(players),
                "moves_acknowledged": sum(p.acknowledged for p in players),
                "calls_after_kill": len(after),
                "unavailable_after_kill": sum(code == "UNAVAILABLE" for code, _ in after),
                "ok_after_kill": sum(code == "OK" for code, _ in after),
                "moves_in_doubt_found_applied": in_doubt,
                "corrupted_games": 0,
            }

        try:
            figures = asyncio.run(run())
        finally:
            client.close()
        assert alive(survivor)
        wait_health(survivor.target, SERVING, 5)
    record("fault_server_sigkill", **figures)


# --- slow Redis ---------------------------------------------------------------------------

SLEEP = 2.5  # seconds Redis is blocked by DEBUG SLEEP
SHORT_DEADLINE = 0.5
# When DEBUG SLEEP reaches Redis: None before the move is sent, else seconds after it is sent
# (a move takes a few milliseconds, so these land before, between and after its reads and
# its write).
OFFSETS: tuple[float | None, ...] = (None, 0.0, 0.0003, 0.0006, 0.0009, 0.0015)


def debug_sleep_command(seconds: float) -> bytes:
    parts = [b"DEBUG", b"SLEEP", str(seconds).encode()]
    return b"*3\r\n" + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


@dataclass
class Slow:
    outcomes: Counter[str] = field(default_factory=Counter)


async def one_slow_move(
    client: redis.Redis,
    sleeper: socket.socket,
    apis: list[AsyncApi],
    game: pb.CreateGameResponse,
    offset: float | None,
    slow: Slow,
) -> None:
    api = apis[0]
    view = await api.get(game.name)
    seat = view.active_seats[0]
    credential = game.seat_credentials[seat]
    move = (await api.legal_moves(game.name, credential))[0]
    before = raw(client, game.name)
    version, previous = stored(client, game.name)
    after = StoredGame()
    after.CopyFrom(previous)
    state = state_of(after)
    GAMES[after.game_type].apply(state, seat, getattr(move, after.game_type))
    pack_state(after, state)
    request_id = new_request_id()

    if offset is None:
        sleeper.sendall(debug_sleep_command(SLEEP))
        await asyncio.sleep(0.05)
    call = asyncio.ensure_future(
        api.apply(game.name, credential, move, request_id=request_id, deadline=SHORT_DEADLINE)
    )
    if offset is not None:
        for _ in range(2):
            await asyncio.sleep(0)  # the call is on its way
        until = time.perf_counter() + offset
        while time.perf_counter() < until:  # finer than the event loop's timers
            pass
        sleeper.sendall(debug_sleep_command(SLEEP))
    outcome = "OK"
    try:
        await call
    except CroupierError as error:
        if error.code != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
        outcome = "DEADLINE_EXCEEDED"
    # The answer came while Redis was still asleep: the caller's deadline, not Redis, ended
    # the call. Asserted as an order (Redis's "+OK" to DEBUG SLEEP not yet sent), not a wall
    # time, so a busy machine does not fail it; SLEEP leaves 2 s beyond the deadline.
    assert not select.select([sleeper], [], [], 0)[0]
    assert await asyncio.to_thread(sleeper.recv, 64) == b"+OK\r\n"
    await asyncio.sleep(0.2)

    now = raw(client, game.name)
    assert_replays(client, game.name)
    if now == before:
        applied = False
    else:
        # Never half-written: exactly the state the move gives, and the move in the log.
        assert now[0] == str(version + 1).encode()
        after.move_count += 1
        assert encode(StoredGame.FromString(now[1] or b"")) == encode(after)
        last = logged_moves(client, game.name)[-1]
        assert (last.seat, last.move) == (seat, move)
        assert has_record(client, game.name, credential, request_id)
        applied = True
    assert applied or outcome != "OK"
    slow.outcomes[f"{outcome}_{'applied' if applied else 'not_applied'}"] += 1
    # The retry with the same request id tells which, and applies the move at most once.
    answer = await apis[1].apply(game.name, credential, move, request_id=request_id)
    assert answer.etag == str(version + 1)
    assert stored(client, game.name)[0] == version + 1


@pytest.fixture(scope="module")
def debug_store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(extra_args=("--enable-debug-command", "yes")) as running:
        yield running


def run_slow_redis(store: EmbeddedRedis, offsets: tuple[float | None, ...], label: str) -> None:
    with servers(store.url, 2) as processes:
        client = redis_client(store.url)
        sleeper = socket.create_connection(("127.0.0.1", store.port))
        slow = Slow()

        async def run() -> None:
            apis = [AsyncApi(server.target) for server in processes]
            try:
                games: dict[str, pb.CreateGameResponse] = {}
                for index, offset in enumerate(offsets):
                    game_type = GAME_TYPES[index % len(GAME_TYPES)]
                    game = games.get(game_type)
                    if game is None or (await apis[0].get(game.name)).HasField("result"):
                        engine = GAMES[game_type]
                        game = await apis[0].create(game_type, max(3, engine.min_seats), 90)
                        games[game_type] = game
                    await one_slow_move(client, sleeper, apis, game, offset, slow)
            finally:
                for api in apis:
                    await api.close()

        try:
            asyncio.run(run())
        finally:
            sleeper.close()
            client.close()
        assert all(alive(server) for server in processes)
    assert slow.outcomes["DEADLINE_EXCEEDED_not_applied"] > 0
    record(
        label,
        moves_under_slow_redis=len(offsets),
        redis_sleep_seconds=SLEEP,
        client_deadline_seconds=SHORT_DEADLINE,
        half_written=0,
        applied_twice=0,
        **dict(slow.outcomes),
    )


def test_slow_redis_gives_deadline_exceeded_and_nothing_half_written(
    debug_store: EmbeddedRedis,
) -> None:
    run_slow_redis(debug_store, OFFSETS, "fault_slow_redis")


@pytest.mark.slow
def test_slow_redis_at_many_moments(debug_store: EmbeddedRedis) -> None:
    offsets = tuple(i * 0.0002 for i in range(30))
    run_slow_redis(debug_store, (None, *offsets), "fault_slow_redis_slow")
