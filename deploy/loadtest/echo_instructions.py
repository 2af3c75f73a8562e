"""A probe, not a server to deploy: the instructions one Echo call costs Croupier's server,
counted by valgrind's callgrind. Runs of the same code on a quiet machine agree within about
0.3%, where CPU time scatters by 10% and more (docs/performance.md, "Probes"); with other work
on the machine the counts rise a few per cent (the event loop's turns, polls and wake-ups
follow the timing), so compare runs taken with nothing else running.

A server process (the real one: `service.server.start` with the in-memory store, Echo on,
one JSON log line per call written to /dev/null, the garbage collector set as croupier-server
sets it) runs under callgrind; this process calls Echo at 32 in flight, `--calls` / 4 calls to
warm up, then zeroes the counters, makes `--calls` calls and has the counters dumped: every
thread of the server (the event loop, grpc.aio's poller, gRPC's own) counted over exactly
those calls. With --no-valgrind the server runs as is and the figure is its CPU time per
call, from /proc.

With --play the calls are game play instead, as croupier-bench's game-play phase makes them:
32 One Card games of 4 seats, one per caller, each move a ListLegalMoves of a seat that may
act and an ApplyMove (with a request id) of one of its listed moves at random, a new game
when one ends; the figure is per move (its two calls). Mixed methods matter: grpc.aio waits
for a new call of each registered method separately (docs/decisions.md, "Only the methods
of a move are registered").

With --watch N the calls are replayed moves under watch instead, as croupier-bench's watcher
benchmark makes them, one stream per seat or N: 16 One Card games of 4
seats, each seat's credential watching its game on N streams (4N streams a game), each game's
moves chosen beforehand by a seeded random player on the engine and sent with ApplyMove (with a
request id), one game's moves in order, 16 games at once. The counters cover the moves and
every update they make, each stream's update received before the dump; the figure is per move
and per update delivered (everything the server did, divided by the updates). Two runs with
different N give an extra update's cost: the difference over the difference in updates. With
--watch-seats K only the first K seats of each game watch: `--watch 1 --watch-seats 1` against
`--watch 1` (every seat) is the watcher benchmark's measure of an extra seat's update, its
own view built and sent (16 streams against 64).

    .venv/bin/python deploy/loadtest/echo_instructions.py --calls 640 \
        [--play | --watch N [--watch-seats K]]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import uvloop

from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.store.embedded_redis import free_port
from croupier.v1 import benchmark_service_pb2 as pb
from croupier.v1 import game_service_pb2 as game_pb
from croupier.v1 import game_service_pb2_grpc as game_grpc

REQUEST = pb.EchoRequest(response_bytes=220, payload=b"y" * 70).SerializeToString()
IN_FLIGHT = 32
WATCHED_GAMES = 16  # --watch: games played at once, each watched by every seat
WATCHED_SEATS = 4


async def _serve(port: int) -> None:
    from croupier.service.application import config
    from croupier.service.main import collect_less
    from croupier.service.observability import logs
    from croupier.service.observability.metrics import MeasuredStore
    from croupier.service.store.memory_store import MemoryStore
    from croupier.service.transport import server

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)  # the log lines, as croupier-bench's server writes them
    logs.configure("json", "info")
    flags = ["--host", "127.0.0.1", "--port", str(port), "--benchmark-service"]
    # No clock sweep (every 0.2 s by default): under callgrind a run lasts about a minute, and
    # the sweeps of that minute would be counted with the calls, more of them the slower the
    # machine is at the time.
    flags += ["--anonymous-rate-limit", "0", "--clock-tick", "3600"]
    settings = config.parse(flags, environ={})
    running = await server.start(settings, MeasuredStore(MemoryStore()))
    collect_less()  # as croupier-server does before it serves
    print("ready", flush=True)
    await running.server.wait_for_termination()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _calls(port: int, count: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        echo = channel.unary_unary("/croupier.v1.BenchmarkService/Echo")

        async def caller(calls: int) -> None:
            for _ in range(calls):
                await echo(REQUEST, timeout=600)

        share, left = divmod(count, IN_FLIGHT)
        await asyncio.gather(*(caller(share + (i < left)) for i in range(IN_FLIGHT)))


async def _moves(port: int, count: int) -> None:
    """`count` game-play moves, 32 games at a time (a ListLegalMoves and an ApplyMove each)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_grpc.GameServiceStub(channel)

        async def player(number: int, moves: int) -> None:
            chooser = random.Random(number)
            active: list[int] = []
            name, credentials = "", []
            for _ in range(moves):
                if not active:
                    request = game_pb.CreateGameRequest(seats=4, seed=chooser.getrandbits(63))
                    request.one_card.SetInParent()
                    created = await stub.CreateGame(request, timeout=600)
                    name, credentials = created.name, list(created.seat_credentials)
                    active = list(created.view.active_seats)
                metadata = (("authorization", f"Bearer {credentials[chooser.choice(active)]}"),)
                listed = await stub.ListLegalMoves(
                    game_pb.ListLegalMovesRequest(name=name), metadata=metadata, timeout=600
                )
                move = game_pb.ApplyMoveRequest(
                    name=name, move=chooser.choice(listed.moves), request_id=str(uuid.uuid4())
                )
                view = (await stub.ApplyMove(move, metadata=metadata, timeout=600)).view
                active = [] if view.HasField("result") else list(view.active_seats)

        share, left = divmod(count, IN_FLIGHT)
        await asyncio.gather(*(player(i, share + (i < left)) for i in range(IN_FLIGHT)))


def _engine_moves(seed: int, count: int) -> list[tuple[int, bytes]]:
    """The first `count` moves (seat, serialized Move) of a seeded random One Card game of
    WATCHED_SEATS seats, as the server plays it from `seed` (the engine is deterministic). Not
    croupier-bench's recorded games (service/croupier/bench/replay.py): their seeds come from the
    bench's own generator, and counts compare only on the same games."""
    engine = GAMES["one_card"]
    state, _ = engine.new_game(options_for("one_card"), WATCHED_SEATS, seed)
    chooser = random.Random(seed)
    moves: list[tuple[int, bytes]] = []
    while len(moves) < count and engine.result(state) is None:
        seat = chooser.choice(engine.active_seats(state))
        move = chooser.choice(engine.legal_moves(state, seat))
        engine.apply(state, seat, move)
        wrapped = game_pb.Move()
        wrapped.one_card.CopyFrom(move)
        moves.append((seat, wrapped.SerializeToString()))
    return moves


class Watched:
    """WATCHED_GAMES games on the server, the first `seats` seats of each watching it on
    `streams` streams; `play` sends the next moves of each game and returns once every stream
    has their updates."""

    def __init__(self, channel: grpc.aio.Channel, streams: int, seats: int) -> None:
        self._stub = game_grpc.GameServiceStub(channel)
        self._streams = streams
        self._seats = seats
        self._games: list[tuple[str, list[str], list[tuple[int, bytes]]]] = []
        self._received = 0
        self._wanted = 0
        self._arrived = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self, moves: int) -> None:
        opened: list[asyncio.Future[None]] = []
        for number in range(WATCHED_GAMES):
            seed = 1000 + number
            request = game_pb.CreateGameRequest(seats=WATCHED_SEATS, seed=seed)
            request.one_card.SetInParent()
            created = await self._stub.CreateGame(request, timeout=600)
            credentials = list(created.seat_credentials)
            self._games.append((created.name, credentials, _engine_moves(seed, moves)))
            for credential in credentials[: self._seats]:
                for _ in range(self._streams):
                    first = asyncio.get_running_loop().create_future()
                    opened.append(first)
                    watching = self._watch(created.name, credential, first)
                    self._tasks.append(asyncio.create_task(watching))
        await asyncio.gather(*opened)

    async def _watch(self, name: str, credential: str, first: asyncio.Future[None]) -> None:
        metadata = (("authorization", f"Bearer {credential}"),)
        stream = self._stub.WatchGame(game_pb.WatchGameRequest(name=name), metadata=metadata)
        try:
            async for _ in stream:
                if not first.done():
                    first.set_result(None)
                    continue
                self._received += 1
                if self._received == self._wanted:
                    self._arrived.set()
        except grpc.aio.AioRpcError as exc:
            if first.done():
                raise
            first.set_exception(exc)  # the run fails at once: a stream refused is no figure

    async def play(self, moves: int) -> int:
        """Each game's next `moves` moves (fewer if it has no more); the moves sent."""
        batches = [(name, credentials, made[:moves]) for name, credentials, made in self._games]
        self._games = [(n, c, made[moves:]) for n, c, made in self._games]
        sent = sum(len(batch) for _, _, batch in batches)
        self._wanted = self._received + sent * self._seats * self._streams
        self._arrived.clear()

        async def player(name: str, credentials: list[str], batch: list[tuple[int, bytes]]) -> None:
            for seat, move in batch:
                metadata = (("authorization", f"Bearer {credentials[seat]}"),)
                request = game_pb.ApplyMoveRequest(
                    name=name, move=game_pb.Move.FromString(move), request_id=str(uuid.uuid4())
                )
                await self._stub.ApplyMove(request, metadata=metadata, timeout=600)

        await asyncio.gather(*(player(*batch) for batch in batches))
        if self._wanted > self._received:
            await asyncio.wait_for(self._arrived.wait(), 600)
        return sent

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()


def _summary(folder: Path) -> int:
    """The instructions of the dump made after the measured calls (the part-1 file)."""
    (dump,) = folder.glob("callgrind.out.*.1")
    for line in dump.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no summary in {dump}")


def _cpu_into(pid: int, into: list[float], index: int) -> None:
    into[index] = _cpu_seconds(pid)


def _zero(pid: int) -> None:
    subprocess.run(["callgrind_control", "-z", str(pid)], check=True, capture_output=True)


def _dump(pid: int) -> None:
    subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)


async def _watched(
    port: int,
    streams: int,
    seats: int,
    moves: int,
    start: Callable[[], object],
    end: Callable[[], object],
) -> int:
    """The watch run: warm-up moves, then `start`, `moves` moves (or as many as the games
    have) with their updates all received, then `end`; the moves measured."""
    per_game = -(-moves // WATCHED_GAMES)
    warm_up = max(1, per_game // 4)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        watched = Watched(channel, streams, seats)
        await watched.open(warm_up + per_game)
        await watched.play(warm_up)
        await asyncio.sleep(0.5)  # the warm-up's log lines and metrics are done
        start()
        sent = await watched.play(per_game)
        await asyncio.sleep(0.5)
        end()
        watched.close()
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=640, help="measured Echo calls (moves)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--play", action="store_true", help="game-play moves instead of Echo")
    kind.add_argument(
        "--watch", type=int, metavar="N", help="replayed moves, every seat watching on N streams"
    )
    parser.add_argument(
        "--watch-seats",
        type=int,
        choices=range(1, WATCHED_SEATS + 1),
        default=WATCHED_SEATS,
        metavar="K",
        help=f"with --watch: only the first K seats of each game watch (1-{WATCHED_SEATS})",
    )
    parser.add_argument("--no-valgrind", action="store_true", help="CPU time, not instructions")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        uvloop.run(_serve(args.serve))
        return
    valgrind = None if args.no_valgrind else shutil.which("valgrind")
    if not args.no_valgrind and valgrind is None:
        raise SystemExit("valgrind is not on the PATH (or give --no-valgrind)")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, __file__, "--serve", str(port)]
        if valgrind is not None:
            out = f"--callgrind-out-file={folder}/callgrind.out.%p"
            command = [valgrind, "--tool=callgrind", "--quiet", out, *command]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            if server.stdout.readline().strip() != "ready":
                raise SystemExit("the server did not start")
            if args.watch is not None:
                what = f"Replayed moves, {args.watch_seats} seat(s) of each game on {args.watch}" \
                    f" stream(s) ({WATCHED_GAMES} games of {WATCHED_SEATS} seats)"  # fmt: skip
                pid, cpu = server.pid, [0.0, 0.0]
                if valgrind is None:
                    start, end = [functools.partial(_cpu_into, pid, cpu, i) for i in (0, 1)]
                else:
                    start, end = functools.partial(_zero, pid), functools.partial(_dump, pid)
                watching = _watched(port, args.watch, args.watch_seats, args.calls, start, end)
                count = uvloop.run(watching)
                updates = count * args.watch_seats * args.watch
                if valgrind is None:
                    used = (cpu[1] - cpu[0]) * 1e6
                    each = f", {used / updates:.0f} us per update" if updates else ""
                    print(f"{what}: {count} moves, {updates} updates; {used / count:.0f} us of"
                          f" server CPU per move{each}")  # fmt: skip
                    return
                total = _summary(Path(folder))
                each = f", {total / updates:,.0f} per update" if updates else ""
                print(f"{what}: {count} moves, {updates} updates; {total / count:,.0f}"
                      f" instructions per move{each} (server, every thread)")  # fmt: skip
                return
            calls = _moves if args.play else _calls
            what = "Game play (ListLegalMoves + ApplyMove)" if args.play else "Echo"
            unit = "move" if args.play else "call"
            uvloop.run(calls(port, max(IN_FLIGHT, args.calls // 4)))
            time.sleep(0.5)  # the warm-up's log lines and metrics are done
            if valgrind is not None:
                _zero(server.pid)
            before = _cpu_seconds(server.pid)
            uvloop.run(calls(port, args.calls))
            time.sleep(0.5)
            if valgrind is None:
                used = (_cpu_seconds(server.pid) - before) / args.calls * 1e6
                print(f"{what}, {IN_FLIGHT} in flight: {args.calls} {unit}s, {used:.0f} us of"
                      f" server CPU per {unit}")  # fmt: skip
                return
            _dump(server.pid)
            per_call = _summary(Path(folder)) / args.calls
            print(f"{what}, {IN_FLIGHT} in flight: {args.calls} {unit}s, {per_call:,.0f}"
                  f" instructions per {unit} (server, every thread)")  # fmt: skip
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
