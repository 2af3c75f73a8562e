"""Durable acknowledgements, against real processes.

With the shipped setting (deploy/compose.yaml's Redis: `--appendonly yes --appendfsync always`,
the server's `--durability none`), Redis is SIGKILLed right after an acknowledgement while other
moves are in flight, again and again, and started again from its files on the same port: every
move ever acknowledged is in the store, at the version its etag names, as the seat sent it.

`--durability aof` against a Redis that cannot honour it: the server does not start, and says
why. `--durability replicas:1` with the replica stopped (SIGSTOP): every write a client is
answered for (CreateGame, JoinGame, ApplyMove, a PlayGame session's move) is answered
UNAVAILABLE / STORE_UNAVAILABLE and counted, never as done; once the replica runs again, each
retry with its request id is answered with what was written, applied once."""

from __future__ import annotations

import asyncio
import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import cast

import grpc
import pytest
import redis
import yaml

from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer, free_port
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.one_card_pb2 import OneCardOptions
from tests.deploy import DEPLOY
from tests.reliability.figures import record
from tests.reliability.support import (
    SERVING,
    AsyncApi,
    assert_replays,
    logged_moves,
    metadata,
    new_request_id,
    redis_client,
    servers,
    wait_health,
)
from tests.scrape import metric

RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
ONE_CARD = cast(OneCardOptions, options_for("one_card"))


def shipped_redis_args() -> tuple[str, ...]:
    """The flags of the shipped Redis (deploy/compose.yaml), after the binary's name: what this
    test runs, so that it follows the file."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    command: list[str] = compose["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    args = tuple(str(arg) for arg in command[1:])
    flags = dict(zip(args[::2], args[1::2], strict=True))
    assert (flags["--appendonly"], flags["--appendfsync"]) == ("yes", "always"), flags
    return args


class Restartable(EmbeddedRedis):
    """A redis-server with the shipped flags, SIGKILLed and started again from its files."""

    def __enter__(self) -> Restartable:
        self.start()
        return self

    def kill(self) -> None:
        """No shutdown, no final write: only what reached the disk survives."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def restart_from_files(self) -> None:
        """The same port, the same folder: it loads its append-only file (and answers LOADING
        to reads until it has)."""
        self.start(timeout=20)
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 20
        while client.info("persistence")["loading"]:
            assert time.monotonic() < deadline, "Redis did not load its files"
            time.sleep(0.02)
        client.close()


@dataclass
class Acknowledged:
    name: str
    version: int  # the etag of the answer
    seat: int
    move: pb.Move
    request_id: str


@dataclass
class Table:
    """One game played by its seats, one move at a time, each with a request id; a move whose
    answer did not come is sent again with the same id."""

    name: str
    credentials: list[str]
    rng: random.Random
    pending: tuple[str, int, pb.Move] | None = None
    finished: bool = False


@dataclass
class Run:
    api: AsyncApi
    rng: random.Random
    tables: list[Table] = field(default_factory=list)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    refused: int = 0  # answers UNAVAILABLE (the store was away), each sent again

    async def new_table(self) -> Table:
        game_type = self.rng.choice(sorted(GAMES))
        engine = GAMES[game_type]
        created = await self.api.create(game_type, engine.max_seats, self.rng.getrandbits(63))
        credentials = list(created.seat_credentials)
        table = Table(created.name, credentials, random.Random(self.rng.random()))
        self.tables.append(table)
        return table

    async def step(self, table: Table) -> None:
        if table.pending is None:
            view = await self.api.get(table.name)
            if view.HasField("result"):
                table.finished = True
                return
            seat = table.rng.choice(list(view.active_seats))
            moves = await self.api.legal_moves(table.name, table.credentials[seat])
            table.pending = (new_request_id(), seat, table.rng.choice(moves))
        request_id, seat, move = table.pending
        response = await self.api.apply(
            table.name, table.credentials[seat], move, request_id=request_id
        )
        table.pending = None
        self.acknowledged.append(
            Acknowledged(table.name, int(response.etag), seat, move, request_id)
        )
        self.answered.set()

    async def play(self, table: Table, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if table.finished:
                table = await self._another_table()
                continue
            try:
                await self.step(table)
            except CroupierError as error:
                if error.code not in RETRIED:
                    raise
                self.refused += 1
                await asyncio.sleep(0.05)

    async def _another_table(self) -> Table:
        while True:
            try:
                return await self.new_table()
            except CroupierError as error:
                if error.code not in RETRIED:
                    raise
                await asyncio.sleep(0.05)


def check_acknowledged(client: redis.Redis, acknowledged: list[Acknowledged]) -> None:
    """Every acknowledged move is in the store: the game's log holds it at the version its
    etag names (version n is the (n-1)th move), as its seat sent it, and the log replays to
    the stored state."""
    logs = {name: logged_moves(client, name) for name in {a.name for a in acknowledged}}
    missing = [
        (a.name, a.version)
        for a in acknowledged
        if len(logs[a.name]) < a.version - 1
        or (logs[a.name][a.version - 2].seat, logs[a.name][a.version - 2].move) != (a.seat, a.move)
    ]
    assert not missing, f"{len(missing)} acknowledged moves missing: {missing[:5]}"
    for name in logs:
        newest = max(a.version for a in acknowledged if a.name == name)
        assert assert_replays(client, name) >= newest - 1


def kill_cycles(cycles: int) -> dict[str, object]:
    with Restartable(extra_args=shipped_redis_args()) as store, servers(store.url, 1) as (server,):
        return asyncio.run(_kill_cycles(store, server.target, cycles))


async def _kill_cycles(store: Restartable, target: str, cycles: int) -> dict[str, object]:
    run = Run(AsyncApi(target, timeout=5.0), random.Random(cycles))
    for _ in range(6):
        await run.new_table()
    stop = asyncio.Event()
    players = [asyncio.create_task(run.play(table, stop)) for table in list(run.tables)]
    killed_after: list[int] = []
    down: list[float] = []
    try:
        for _ in range(cycles):
            await asyncio.sleep(run.rng.uniform(0.2, 0.6))
            # Right after an acknowledgement, with the other tables' moves in flight.
            run.answered.clear()
            await asyncio.wait_for(run.answered.wait(), timeout=30)
            store.kill()
            killed_after.append(len(run.acknowledged))
            started = time.monotonic()
            await asyncio.sleep(0.2)
            store.restart_from_files()
            await asyncio.to_thread(wait_health, target, SERVING, 20.0)
            down.append(time.monotonic() - started)
            client = redis_client(store.url)
            try:
                # Taken while the players go on: what was acknowledged before the kill, at least.
                check_acknowledged(client, run.acknowledged[: killed_after[-1]])
            finally:
                client.close()
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
        await run.api.close()
    client = redis_client(store.url)
    try:
        check_acknowledged(client, run.acknowledged)
    finally:
        client.close()
    return {
        "cycles": cycles,
        "games": len(run.tables),
        "moves_acknowledged": len(run.acknowledged),
        "acknowledged_before_each_kill": killed_after,
        "acknowledged_moves_lost": 0,
        "calls_answered_unavailable_and_sent_again": run.refused,
        "seconds_from_kill_to_serving_max": round(max(down), 2),
    }


def test_acknowledged_moves_survive_twenty_kills_of_redis() -> None:
    """20 cycles: about 20 s on the 2-core development machine, so the default suite runs them
    all. (With `--appendonly no`, Compose's Redis before, the first cycle finds hundreds of
    acknowledged moves missing.)"""
    record("durability_kill_cycles", **kill_cycles(20))


# --- a store that cannot honour the setting ------------------------------------------------


def test_durability_aof_refuses_a_redis_without_appendonly() -> None:
    """The server does not start, and its one line says what is missing and what to do."""
    with EmbeddedRedis() as store:  # appendonly no
        finished = subprocess.run(
            [sys.executable, "-m", "croupier.service.main", "--redis-url", store.url,
             "--durability", "aof", "--host", "127.0.0.1", "--port", str(free_port())],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert finished.returncode == 1, finished
    message = finished.stderr.strip().splitlines()[-1]
    assert message.startswith("croupier-server: --durability aof needs Redis 7.2 or newer")
    assert re.search(r"is (Redis|Valkey) \d", message), message
    assert "with appendonly no" in message
    assert "Start Redis 7.2 or newer with --appendonly yes --appendfsync always" in message


def test_durability_replicas_refuses_a_redis_without_enough_replicas() -> None:
    with EmbeddedRedis() as store:
        finished = subprocess.run(
            [sys.executable, "-m", "croupier.service.main", "--redis-url", store.url,
             "--durability", "replicas:1", "--store-timeout", "0.5", "--host", "127.0.0.1",
             "--port", str(free_port())],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert finished.returncode == 1, finished
    message = finished.stderr.strip().splitlines()[-1]
    assert "--durability replicas:1 needs 1 replica(s) of each master" in message
    assert "is a master with 0 replica(s) connected" in message


# --- writes not confirmed: answered UNAVAILABLE, their retries once confirmed ---------------


def replica_of(primary: EmbeddedRedis) -> EmbeddedRedis:
    replica = EmbeddedRedis(extra_args=("--replicaof", "127.0.0.1", str(primary.port))).start()
    client = redis.Redis(port=replica.port)
    deadline = time.monotonic() + 20
    while client.info("replication").get("master_link_status") != "up":
        assert time.monotonic() < deadline, "the replica did not catch up"
        time.sleep(0.05)
    client.close()
    return replica


async def first_move(api: AsyncApi, game: pb.CreateGameResponse) -> tuple[str, pb.Move]:
    """A seat that may act in a new game (its credential) and one of its legal moves."""
    view = await api.get(game.name)
    credential = game.seat_credentials[view.active_seats[0]]
    return credential, (await api.legal_moves(game.name, credential))[0]


def unavailable(error: CroupierError) -> bool:
    return (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")


async def session_move(
    call: grpc.aio.StreamStreamCall, move: pb.Move, request_id: str
) -> pb.MoveOutcome:
    """Send `move` on the session; its outcome (updates read on the way are skipped)."""
    await call.write(pb.PlayGameRequest(move=pb.PlayGameMove(move=move, request_id=request_id)))
    while True:
        message = await call.read()
        assert isinstance(message, pb.PlayGameResponse), message
        if message.HasField("outcome") and message.outcome.request_id == request_id:
            return message.outcome


def test_writes_not_confirmed_by_a_replica_are_unavailable_and_their_retries_apply_once() -> None:
    metrics_port = free_port()
    with EmbeddedRedis() as primary:
        replica = replica_of(primary)
        try:
            args = (
                "--durability", "replicas:1", "--store-timeout", "1",
                "--metrics-port", str(metrics_port), "--anonymous-rate-limit", "0",
            )  # fmt: skip
            with LocalServer(primary.url, extra_args=args) as server:
                figures = asyncio.run(_unconfirmed(server.target, primary, replica, metrics_port))
        finally:
            replica.close()
    record("durability_unconfirmed_writes", **figures)


async def _unconfirmed(
    target: str, primary: EmbeddedRedis, replica: EmbeddedRedis, metrics_port: int
) -> dict[str, object]:
    channel = grpc.aio.insecure_channel(target)
    stub = GameServiceStub(channel)
    api = AsyncApi(target, timeout=10.0)
    store = redis_client(primary.url)
    try:
        # Confirmed while the replica runs: a game to play, a table with an open seat.
        game = await api.create("one_card", 3, seed=7)
        played = await api.create("one_card", 3, seed=8)  # by a session
        open_table = pb.CreateGameRequest(seats=2, player_ids=["host", ""], open_seats=True)
        open_table.one_card.CopyFrom(ONE_CARD)
        lobby = await stub.CreateGame(open_table, timeout=10)
        credential, move = await first_move(api, game)
        session_credential, session_move_sent = await first_move(api, played)
        session = stub.PlayGame(metadata=metadata(session_credential), timeout=60)
        await session.write(pb.PlayGameRequest(start=pb.PlayGameStart(name=played.name)))
        first = await session.read()
        assert isinstance(first, pb.PlayGameResponse) and first.HasField("update"), first

        assert replica.process is not None
        replica.process.send_signal(signal.SIGSTOP)  # it has nothing more, and says nothing
        try:
            ids = {what: new_request_id() for what in ("create", "join", "move", "session")}
            create = pb.CreateGameRequest(seats=2, request_id=ids["create"])
            create.one_card.CopyFrom(ONE_CARD)
            join = pb.JoinGameRequest(
                name=lobby.name, join_code=lobby.join_code, request_id=ids["join"],
            )  # fmt: skip
            answered_in: list[float] = []
            for call in (
                api._call(stub.CreateGame, create, None, None),
                api._call(stub.JoinGame, join, None, None),
                api.apply(game.name, credential, move, request_id=ids["move"]),
            ):
                started = time.monotonic()
                with pytest.raises(CroupierError) as refused:
                    await call
                answered_in.append(time.monotonic() - started)
                assert unavailable(refused.value), refused.value
            started = time.monotonic()
            outcome = await session_move(session, session_move_sent, ids["session"])
            answered_in.append(time.monotonic() - started)
            assert outcome.status.code == grpc.StatusCode.UNAVAILABLE.value[0], outcome
            # Written all the same (Redis applied them): each move at version 2, once.
            assert len(logged_moves(store, game.name)) == len(logged_moves(store, played.name)) == 1
        finally:
            replica.process.send_signal(signal.SIGCONT)
        not_durable = {
            operation: metric(
                metrics_port, "croupier_writes_not_durable_total", operation=operation
            )
            for operation in ("index_add", "update", "commit")
        }
        # CreateGame's first write is its listing entries (before the game); JoinGame's, the
        # seat's; the commits are ApplyMove's and the session's.
        assert not_durable["index_add"] >= 1 and not_durable["update"] >= 1, not_durable
        assert not_durable["commit"] >= 2, not_durable

        # Each retry with its request id: answered with what was written, applied once.
        retried = await api._call(stub.JoinGame, join, None, None)
        assert retried.seat == 1
        again = await api._call(stub.JoinGame, join, None, None)
        assert (again.seat, again.seat_credential) == (retried.seat, retried.seat_credential)
        applied = await api.apply(game.name, credential, move, request_id=ids["move"])
        assert applied.etag == "2"
        outcome = await session_move(session, session_move_sent, ids["session"])
        assert (outcome.status.code, outcome.etag) == (0, "2"), outcome
        for name in (game.name, played.name):
            assert assert_replays(store, name) == 1
        created = await api._call(stub.CreateGame, create, None, None)
        assert (await api._call(stub.CreateGame, create, None, None)).name == created.name
        session.cancel()
        return {
            "writes_answered_unavailable": 4,
            "seconds_to_answer_each": [round(seconds, 2) for seconds in answered_in],
            "croupier_writes_not_durable_total": not_durable,
            "retries_applied_once": True,
        }
    finally:
        store.close()
        await api.close()
        await channel.close()
