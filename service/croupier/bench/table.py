"""The table benchmark (`--table`): One Card games of four seats played by their seats, each seat
its own client, over the two paths a client has.

`--games` games are in flight for the whole window (a game that ends is replaced by a new one
at once). Every seat acts on its own messages: when a view of its own shows that it may act,
it makes one of its legal moves at random. The phases run one after the other in the same
server:

- `table`: each seat plays over one PlayGame session; a view in which it may act carries its
  legal moves, and the seat sends one of them on the session. Latency: from writing the move
  to holding its outcome with the update it made (the mover's next update);
- `table_unary`: each seat watches with WatchGame; on an update of its stream where its seat
  is among the active seats, it calls ListLegalMoves and then ApplyMove with one of the listed
  moves. Latency: from sending the ApplyMove to holding its response (the mover's view);
  the whole turn, from the ListLegalMoves call on, is `turn_p50_ms` and `turn_p99_ms`.

A move carries the etag of the view it was chosen from (the ListLegalMoves response's, on the
unary path) and a request id, so the server writes its idempotency record, as a careful client
would. Several seats may act at once in One Card (a seat down to one card may be caught by any
other), and a seat whose move comes second is refused with ETAG_MISMATCH: that is counted as a
stale move, not an error, and the seat acts again on the view it receives next.

Figures of each phase, over the measured window: the server's CPU and its Redis's per applied
move, moves per second, the latency's p50 and p99, the messages all sessions (watch streams)
received per applied move, errors, stale moves and updates missed (a gap in a stream's move
counts), and, of the first phase, the server's resident memory per session (its RSS once every
session of the first games holds its first view, less its RSS before they were opened, over
the sessions; the second phase's streams take memory the first freed, which RSS does not see).

The load is made by `--client-processes` processes (grpc.aio, on uvloop), each with its share of
the games, on `--client-cpus`; the coordinator (this process) meters the server's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import math
import multiprocessing
import os
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Literal, TextIO

import grpc
from google.rpc import error_details_pb2, status_pb2

from croupier.bench.cpu import cpus_text, pin, rss_bytes, server_cpu_clock
from croupier.bench.load import reason_of
from croupier.bench.replay import request_id
from croupier.bench.server import Server, server_for
from croupier.bench.stats import num
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

GAME = "one_card"
SEATS = 4
Kind = Literal["table", "table_unary"]
KINDS: tuple[Kind, ...] = ("table", "table_unary")
PATHS: dict[Kind, str] = {
    "table": "PlayGame",
    "table_unary": "WatchGame + ListLegalMoves + ApplyMove",
}
STALE = "ETAG_MISMATCH"  # another seat moved first: a lost race, not an error
SETTLE_S = 0.5  # after the sessions open, before the server's memory is read
LEAD_S = 0.3  # from the start being sent to the client processes to the first move
STEP_TIMEOUT_S = 300.0  # creating or opening 1,000s of games and sessions
SATURATED = 0.9  # a client process's share of one core from which it may be the limit


@dataclass(frozen=True)
class TableSpec:
    """What one client process is given (picklable: the processes are spawned)."""

    target: str
    index: int
    games: int
    channels: int
    seed: int
    timeout: float
    uvloop: bool
    cpus: frozenset[int] | None
    warmup: float
    duration: float


@dataclass
class TableSample:
    """What the client processes recorded in one phase (merged across processes)."""

    moves: int = 0  # applied moves whose outcome (response) arrived within the window
    messages: int = 0  # messages the sessions (watch streams) received within the window
    calls: int = 0  # unary calls completed within the window (CreateGame included)
    latencies: list[float] = field(default_factory=list)
    turns: list[float] = field(default_factory=list)  # unary: ListLegalMoves sent -> applied
    stale: int = 0  # moves refused within the window as stale (another seat moved first)
    missed: int = 0
    finished: int = 0  # games that ended within the window
    sessions: int = 0  # sessions (watch streams) that held their first view before the start
    errors: Counter[str] = field(default_factory=Counter)  # over the whole phase
    client_cpu: list[float] = field(default_factory=list)  # share of a core, one per process

    def merge(self, other: TableSample) -> None:
        self.moves += other.moves
        self.messages += other.messages
        self.calls += other.calls
        self.latencies += other.latencies
        self.turns += other.turns
        self.stale += other.stale
        self.missed += other.missed
        self.finished += other.finished
        self.sessions += other.sessions
        self.errors.update(other.errors)
        self.client_cpu += other.client_cpu


class _Abandoned(Exception):
    """A seat's stream or call failed (recorded): its game is left, a new one replaces it."""


def _outcome_reason(status: status_pb2.Status) -> str:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return str(info.reason)
    return next((c.name for c in grpc.StatusCode if c.value[0] == status.code), str(status.code))


class _Game:
    """One game in flight: its credentials and the tasks of its four seats."""

    def __init__(self, created: pb.CreateGameResponse, stub: Any) -> None:
        self.name = created.name
        self.stub = stub
        self.metadata = [(("authorization", f"Bearer {c}"),) for c in created.seat_credentials]
        self.settled = 0
        self.opened = 0  # seats that hold their first view
        self.ready = asyncio.Event()  # every seat holds its first view (or failed)
        self.tasks: list[asyncio.Task[None]] = []

    def settle(self, opened: bool) -> None:
        self.settled += 1
        self.opened += opened
        if self.settled == SEATS:
            self.ready.set()


class _Phase:
    """One phase in one client process: its games, their seats, and what they recorded."""

    def __init__(self, kind: Kind, spec: TableSpec, stubs: Sequence[Any]) -> None:
        self.kind, self.spec, self.stubs = kind, spec, stubs
        self.sample = TableSample()
        self.chooser = random.Random(f"{spec.seed}/{spec.index}/{kind}")
        self.running = True
        self.begun = asyncio.Event()
        self.window = (math.inf, math.inf)  # perf_counter
        self.games: list[_Game] = []
        self.created = 0
        self._seat = self._session if kind == "table" else self._watcher

    def fail(self, what: str, reason: str) -> None:
        if self.running:
            self.sample.errors[f"{what}: {reason}"] += 1

    async def create(self) -> None:
        """The first games, CreateGame calls 64 at a time."""
        for first in range(0, self.spec.games, 64):
            batch = range(first, min(first + 64, self.spec.games))
            games = await asyncio.gather(*(self._new_game() for _ in batch))
            self.games += [game for game in games if game is not None]

    async def _new_game(self) -> _Game | None:
        stub = self.stubs[self.created % len(self.stubs)]
        self.created += 1
        request = pb.CreateGameRequest(seats=SEATS, seed=self.chooser.getrandbits(63))
        request.one_card.SetInParent()
        try:
            created = await stub.CreateGame(request, timeout=self.spec.timeout)
        except grpc.RpcError as error:
            self.fail("CreateGame", reason_of(error))
            return None
        if self.window[0] <= time.perf_counter() <= self.window[1]:
            self.sample.calls += 1
        return _Game(created, stub)

    def _start(self, game: _Game) -> None:
        game.tasks = [asyncio.create_task(self._seat(game, seat)) for seat in range(SEATS)]

    async def open(self) -> None:
        """Every seat of the first games opens its stream and holds its first view."""
        for game in self.games:
            self._start(game)
        await asyncio.gather(*(game.ready.wait() for game in self.games))
        self.sample.sessions = sum(game.opened for game in self.games)

    async def play(self, start: float) -> TableSample:
        """Moves from `start` (wall clock) to the window's end; the games in flight throughout."""
        spec = self.spec
        begin = start - time.time() + time.perf_counter()
        self.window = (begin + spec.warmup, begin + spec.warmup + spec.duration)
        await asyncio.sleep(max(0.0, begin - time.perf_counter()))
        self.begun.set()
        lanes = [asyncio.create_task(self._lane(game)) for game in self.games]
        lanes += [asyncio.create_task(self._lane(None)) for _ in range(spec.games - len(lanes))]
        await asyncio.sleep(max(0.0, self.window[0] - time.perf_counter()))
        own, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(max(0.0, self.window[1] - time.perf_counter()))
        self.sample.client_cpu = [(time.process_time() - own) / (time.perf_counter() - wall)]
        self.running = False
        for lane in lanes:
            lane.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)
        return self.sample

    async def _lane(self, game: _Game | None) -> None:
        """One game in flight: the game, then each game replacing the one that ended."""
        try:
            while self.running:
                if game is None:
                    game = await self._new_game()
                    if game is None:
                        await asyncio.sleep(0.1)  # the error is counted; try again
                        continue
                    self._start(game)
                done, _ = await asyncio.wait(game.tasks, return_when=asyncio.FIRST_EXCEPTION)
                ended = all(not t.cancelled() and not t.exception() for t in done)
                if ended and self.window[0] <= time.perf_counter() <= self.window[1]:
                    self.sample.finished += 1
                for task in game.tasks:
                    task.cancel()
                await asyncio.gather(*game.tasks, return_exceptions=True)
                game = None
        finally:
            if game is not None:
                for task in game.tasks:
                    task.cancel()
                await asyncio.gather(*game.tasks, return_exceptions=True)

    async def _arrived(self, game: _Game, last: int, count: int) -> None:
        """A seat's view of `count` moves after its view of `last` (-1: none yet). The first
        waits until every seat of the game holds its own and the measured run has begun; a gap
        between two is a missed update."""
        if last < 0:
            game.settle(True)
            if not game.ready.is_set():
                await game.ready.wait()
            if not self.begun.is_set():
                await self.begun.wait()
        elif count != last + 1:
            self.sample.missed += max(0, count - last - 1)

    async def _session(self, game: _Game, seat: int) -> None:
        """A seat over its PlayGame session."""
        sample, chooser = self.sample, self.chooser
        latencies = sample.latencies
        call = game.stub.PlayGame(metadata=game.metadata[seat])
        settled = False
        try:
            await call.write(pb.PlayGameRequest(start=pb.PlayGameStart(name=game.name)))
            last = acted = -1  # the move count of the last update, of the view acted on
            latest: pb.GameView | None = None
            pending = False  # a move sent, its outcome not yet received
            sent = 0.0
            awaited = ""  # an applied move's etag whose update comes after its outcome
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    break
                now = time.perf_counter()
                counted = self.window[0] <= now <= self.window[1]
                if counted:
                    sample.messages += 1
                if message.HasField("update"):
                    latest = message.update.view
                    count = latest.move_count
                    settled = True
                    await self._arrived(game, last, count)
                    last = count
                    if awaited and latest.etag == awaited:
                        awaited = ""
                        if counted:
                            latencies.append(now - sent)
                if message.HasField("outcome"):
                    outcome = message.outcome
                    pending = False
                    if not outcome.status.code:
                        if counted:
                            sample.moves += 1
                            if message.HasField("update"):
                                latencies.append(now - sent)
                        if not message.HasField("update"):
                            awaited = outcome.etag
                    elif (reason := _outcome_reason(outcome.status)) == STALE:
                        sample.stale += counted
                    else:
                        self.fail("PlayGame outcome", reason)
                        raise _Abandoned
                if (
                    not pending
                    and latest is not None
                    and latest.legal_moves
                    and latest.move_count > acted
                    and self.running
                ):
                    acted = latest.move_count
                    move = pb.PlayGameMove(
                        move=chooser.choice(latest.legal_moves),
                        etag=latest.etag,
                        request_id=request_id(acted + 1),
                    )
                    pending, sent = True, time.perf_counter()
                    await call.write(pb.PlayGameRequest(move=move))
            code = await call.code()
            if code != grpc.StatusCode.OK:
                self.fail("PlayGame", code.name)
                raise _Abandoned
        except grpc.RpcError as error:
            self.fail("PlayGame", reason_of(error))
            raise _Abandoned from None
        finally:
            if not settled:
                game.settle(False)
            call.cancel()

    async def _watcher(self, game: _Game, seat: int) -> None:
        """A seat that watches with WatchGame and moves with ListLegalMoves then ApplyMove."""
        sample, chooser, timeout = self.sample, self.chooser, self.spec.timeout
        stub, metadata = game.stub, game.metadata[seat]
        stream = stub.WatchGame(pb.WatchGameRequest(name=game.name), metadata=metadata)
        settled = False
        try:
            last = acted = -1
            while True:
                response = await stream.read()
                if response is grpc.aio.EOF:
                    break
                now = time.perf_counter()
                if self.window[0] <= now <= self.window[1]:
                    sample.messages += 1
                view = response.view
                count = view.move_count
                settled = True
                await self._arrived(game, last, count)
                last = count
                if count <= acted or seat not in view.active_seats or not self.running:
                    continue
                acted = count
                turn = time.perf_counter()
                try:
                    listed = await stub.ListLegalMoves(
                        pb.ListLegalMovesRequest(name=game.name), metadata=metadata, timeout=timeout
                    )
                except grpc.RpcError as error:
                    self.fail("ListLegalMoves", reason_of(error))
                    raise _Abandoned from None
                now = time.perf_counter()
                counted = self.window[0] <= now <= self.window[1]
                if counted:
                    sample.calls += 1
                if not listed.moves:
                    continue  # the game moved on meanwhile: its update is on the way
                request = pb.ApplyMoveRequest(
                    name=game.name,
                    move=chooser.choice(listed.moves),
                    etag=listed.etag,
                    request_id=request_id(count + 1),
                )
                sent = time.perf_counter()
                try:
                    applied = await stub.ApplyMove(request, metadata=metadata, timeout=timeout)
                except grpc.RpcError as error:
                    reason = reason_of(error)
                    if reason != STALE:
                        self.fail("ApplyMove", reason)
                        raise _Abandoned from None
                    if self.window[0] <= time.perf_counter() <= self.window[1]:
                        sample.calls += 1
                        sample.stale += 1
                    continue
                now = time.perf_counter()
                if self.window[0] <= now <= self.window[1]:
                    sample.calls += 1
                    sample.moves += 1
                    sample.latencies.append(now - sent)
                    sample.turns.append(now - turn)
                # The update of this move is acted on (this seat may act again after it),
                # the views before it are not.
                acted = max(acted, applied.view.move_count - 1)
            code = await stream.code()
            if code != grpc.StatusCode.OK:
                self.fail("WatchGame", code.name)
                raise _Abandoned
        except grpc.RpcError as error:
            self.fail("WatchGame", reason_of(error))
            raise _Abandoned from None
        finally:
            if not settled:
                game.settle(False)
            stream.cancel()


async def _serve(spec: TableSpec, conn: Connection) -> None:
    """A client process: the phases the coordinator asks for, step by step."""
    options = [("grpc.use_local_subchannel_pool", 1)]  # one connection per channel
    channels = [
        grpc.aio.insecure_channel(spec.target, options=options) for _ in range(spec.channels)
    ]
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), 20)
        stubs = [GameServiceStub(channel) for channel in channels]
        while True:
            command = await asyncio.to_thread(conn.recv)
            if command[0] == "quit":
                return
            phase = _Phase(command[1], spec, stubs)
            await phase.create()
            conn.send(("created",))
            await asyncio.to_thread(conn.recv)
            await phase.open()
            conn.send(("opened",))
            _, start = await asyncio.to_thread(conn.recv)
            conn.send(("done", await phase.play(start)))
            await asyncio.sleep(0)
    finally:
        for channel in channels:
            await channel.close()


def client_main(spec: TableSpec, conn: Connection) -> None:
    """The entry point of a client process."""
    if spec.cpus:
        pin(os.getpid(), spec.cpus)
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if spec.uvloop:
        with contextlib.suppress(ImportError):
            factory = importlib.import_module("uvloop").new_event_loop
    try:
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(_serve(spec, conn))
    except BaseException:
        with contextlib.suppress(OSError):
            conn.send(("error", traceback.format_exc()))
        raise


class _Clients:
    """The client processes, spoken to step by step."""

    def __init__(self, specs: list[TableSpec]) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        for spec in specs:
            ours, theirs = context.Pipe()
            process = context.Process(target=client_main, args=(spec, theirs), daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(ours)
            self.processes.append(process)

    def send(self, *message: object) -> None:
        for pipe in self.pipes:
            pipe.send(message)

    def gather(self, expected: str) -> list[Any]:
        answers = []
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            deadline = time.monotonic() + STEP_TIMEOUT_S
            while not pipe.poll(0.2):
                if not process.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"a client process did not answer {expected!r}")
            answer = pipe.recv()
            if answer[0] != expected:
                raise RuntimeError(f"a client process failed:\n{answer[-1]}")
            answers.append(answer[1:])
        return answers

    def close(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.send(("quit",))
        for process in self.processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def _cpu_clocks(pids: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of the server's processes and of its Redis (every node's)."""
    clocks: dict[str, float] = {}
    if "server" in pids:
        clocks["server"] = server_cpu_clock(pids["server"])
    redis = [pid for label, pid in pids.items() if label.startswith("redis")]
    if redis:
        clocks["redis"] = sum(server_cpu_clock(pid) for pid in redis)
    return clocks


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def _phase(
    args: argparse.Namespace, server: Server, clients: _Clients, kind: Kind
) -> dict[str, Any]:
    server_pid = server.pids.get("server")
    clients.send("phase", kind)
    clients.gather("created")
    rss = [rss_bytes(server_pid) if server_pid else None]
    clients.send("open")
    clients.gather("opened")
    time.sleep(SETTLE_S)
    rss.append(rss_bytes(server_pid) if server_pid else None)
    start = time.time() + LEAD_S
    clients.send("go", start)
    _sleep_until(start + args.warmup)
    before, wall = _cpu_clocks(server.pids), time.perf_counter()
    _sleep_until(start + args.warmup + args.duration)
    after, elapsed = _cpu_clocks(server.pids), time.perf_counter() - wall
    sample = TableSample()
    for (part,) in clients.gather("done"):
        sample.merge(part)
    return _figures(kind, args, sample, before, after, elapsed, rss)


def _figures(
    kind: Kind,
    args: argparse.Namespace,
    sample: TableSample,
    before: dict[str, float],
    after: dict[str, float],
    elapsed: float,
    rss: list[int | None],
) -> dict[str, Any]:
    def rank(values: list[float], q: float) -> float | None:
        if not values:
            return None
        return round(sorted(values)[max(0, math.ceil(q * len(values)) - 1)] * 1000, 3)

    moves = sample.moves
    spent = {label: after[label] - before[label] for label in after if label in before}
    scale = args.duration / elapsed if elapsed else math.nan  # the meter's window, the clients'
    per_move = {
        label: num(cpu * scale / moves * 1e6, 1) if moves else None for label, cpu in spent.items()
    }
    figures: dict[str, Any] = {
        "path": PATHS[kind],
        "server_us_per_move": num(sum(spent.values()) * scale / moves * 1e6, 1)
        if moves and "server" in spent
        else None,
        "moves_per_s": round(moves / args.duration, 1),
        "p50_ms": rank(sample.latencies, 0.50),
        "p99_ms": rank(sample.latencies, 0.99),
        "updates_per_move": round(sample.messages / moves, 3) if moves else None,
        "errors": sum(sample.errors.values()),
        "error_reasons": dict(sorted(sample.errors.items())),
        "missed_updates": sample.missed,
        "stale_moves": sample.stale,
        "games": args.games,
        "sessions": sample.sessions,
        "games_finished": sample.finished,
        "cpu_us_per_move": per_move,
        "cpu_share": {label: round(cpu / elapsed, 3) for label, cpu in spent.items() if elapsed},
        "client_cpu": [round(share, 3) for share in sample.client_cpu],
    }
    if kind == "table_unary":
        figures["calls_per_move"] = round(sample.calls / moves, 3) if moves else None
        # The whole turn, from the ListLegalMoves call to the ApplyMove response.
        figures["turn_p50_ms"] = rank(sample.turns, 0.50)
        figures["turn_p99_ms"] = rank(sample.turns, 0.99)
    before_rss, after_rss = rss
    # The first phase's alone: the next one's streams take memory the first freed, unseen.
    if kind == KINDS[0] and before_rss is not None and after_rss is not None and sample.sessions:
        figures["server_rss_mb"] = [round(before_rss / 2**20, 1), round(after_rss / 2**20, 1)]
        figures["server_bytes_per_session"] = round((after_rss - before_rss) / sample.sessions)
    return figures


def run_table_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    processes = max(1, min(args.client_processes, args.games))
    report: dict[str, Any] = {}
    with server_for(args) as server:
        specs = [
            TableSpec(
                target=server.target,
                index=index,
                games=args.games // processes + (index < args.games % processes),
                channels=args.channels,
                seed=args.seed,
                timeout=args.timeout,
                uvloop=not args.no_uvloop,
                cpus=args.client_cpus,
                warmup=args.warmup,
                duration=args.duration,
            )
            for index in range(processes)
        ]
        where = (
            f"started here (pid {server.pids['server']})"
            if server.started
            else f"at {server.target}"
        )
        print(
            f"croupier-bench --table: server {where}; {args.games} {GAME} games of {SEATS}"
            f" seats in flight ({SEATS * args.games} sessions), from {processes} client"
            f" process(es); server cpus {cpus_text(args.server_cpus)}, client cpus"
            f" {cpus_text(args.client_cpus)}; phases one after the other, each"
            f" {args.warmup:g} s warm-up + {args.duration:g} s measured",
            file=out,
            flush=True,
        )
        clients = _Clients(specs)
        try:
            for kind in KINDS:
                report[kind] = _phase(args, server, clients, kind)
        finally:
            clients.close()
    report["config"] = {
        "target": server.target,
        "server_started": server.started,
        "game": GAME,
        "seats": SEATS,
        "games": args.games,
        "client_processes": processes,
        "channels": args.channels,
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "server_cpus": sorted(args.server_cpus) if args.server_cpus else None,
        "redis_cpus": sorted(args.redis_cpus) if args.redis_cpus else None,
        "client_cpus": sorted(args.client_cpus) if args.client_cpus else None,
        "server_args": list(args.server_arg or []),
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print_table(report, out)
    return report


def _cell(value: Any, spec: str = ",.1f") -> str:
    return "-" if value is None else format(value, spec)


def print_table(report: dict[str, Any], out: TextIO) -> None:
    print(
        f"\n{'path':<42}{'server us/move':>15}{'moves/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'updates/move':>14}{'errors':>8}",
        file=out,
    )
    for kind in KINDS:
        entry = report[kind]
        print(
            f"{kind + ' (' + entry['path'] + ')':<42}{_cell(entry['server_us_per_move']):>15}"
            f"{_cell(entry['moves_per_s'], ',.0f'):>10}{_cell(entry['p50_ms'], '.2f'):>9}"
            f"{_cell(entry['p99_ms'], '.2f'):>9}{_cell(entry['updates_per_move'], '.2f'):>14}"
            f"{entry['errors']:>8}",
            file=out,
        )
    session, unary = report["table"], report["table_unary"]
    if session["server_us_per_move"] and unary["server_us_per_move"]:
        print(
            f"server CPU per move (with its Redis), PlayGame over the unary path:"
            f" {session['server_us_per_move'] / unary['server_us_per_move']:.2f}x",
            file=out,
        )
    for kind in KINDS:
        entry = report[kind]
        cpu = ", ".join(f"{k} {v} us" for k, v in entry["cpu_us_per_move"].items())
        shares = ", ".join(f"{k} {v:.0%}" for k, v in entry["cpu_share"].items())
        clients = "+".join(f"{c:.0%}" for c in entry["client_cpu"])
        print(
            f"{kind}: {entry['sessions']:,} sessions, {entry['games_finished']:,} games"
            f" finished, stale moves {entry['stale_moves']}, missed updates"
            f" {entry['missed_updates']}"
            + (
                f", calls per move {entry['calls_per_move']}, ListLegalMoves sent -> ApplyMove"
                f" answered p50 {entry['turn_p50_ms']} ms, p99 {entry['turn_p99_ms']} ms"
                if "calls_per_move" in entry
                else ""
            )
            + (f"; CPU per move: {cpu}" if cpu else "")
            + f"; share of one core: {shares + ', ' if shares else ''}client {clients}",
            file=out,
        )
        if "server_bytes_per_session" in entry:
            low, high = entry["server_rss_mb"]
            print(
                f"  server memory: {low} MB before the sessions, {high} MB with them open:"
                f" {entry['server_bytes_per_session']:,} bytes per session",
                file=out,
            )
        if entry["error_reasons"]:
            reasons = ", ".join(f"{k} x{v}" for k, v in entry["error_reasons"].items())
            print(f"  errors: {reasons}", file=out)
        if max(entry["client_cpu"], default=0.0) >= SATURATED:
            print(
                f"WARNING: {kind}: a client process used 90% of a core or more: the figures"
                " may measure the load generator (--client-processes N on N cores)",
                file=out,
            )
