"""`croupier-bench`: how fast a Croupier server referees games, and how fast the engines are.

    croupier-bench                                   # start a server, all games, 32 in flight
    croupier-bench --concurrency 1                   # latency mode
    croupier-bench --server-cpus 0 --client-cpus 1   # server (and its Redis) and load on own cores
    croupier-bench --target HOST:PORT --server-pid PID --redis-url URL   # a server you started
    croupier-bench --engines                         # the engines alone: no gRPC, no Redis

The service benchmark plays complete games with random bots (ListLegalMoves, then a random
listed move through ApplyMove; GetGame once a game is over; CreateGame for the next one), keeping
`--concurrency` calls in flight, and measures in the same run a baseline: the trivial unary
`grpc.health.v1.Health/Check` on the same server, through the same client, with the same
metadata. Every figure is printed also as a ratio to the baseline, so results compare across
machines. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib
import json
import math
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import grpc
from google.protobuf.internal import api_implementation
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.local import LocalServer
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

GAME_SERVICE = pb.DESCRIPTOR.services_by_name["GameService"].full_name
GAME_IDS = [f.name for f in pb.CreateGameRequest.DESCRIPTOR.oneofs_by_name["options"].fields]
RPCS = ("apply_move", "list_legal_moves", "get_game", "create_game")
BASELINE = "baseline"
BASELINE_RPC = "grpc.health.v1.Health/Check"
# A credential-shaped token (the service's are "cs_" and 32 characters), so that the baseline
# carries the same metadata as the game calls.
FAKE_CREDENTIAL = "cs_" + "x" * 32
SATURATED = 0.9  # share of one core above which a process counts as the bottleneck
NEAR_SATURATED = 0.75
MAX_PLAYOUT_MOVES = 50_000
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# --------------------------------------------------------------------------------------------
# CPUs: pinning and measuring


def parse_cpus(text: str) -> frozenset[int]:
    """A CPU list as taskset -c takes it: "0", "0,2", "0-3"."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    if not cpus:
        raise ValueError("empty CPU list")
    return frozenset(cpus)


def threads_of(pid: int) -> list[int]:
    try:
        return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except FileNotFoundError:
        return []


def children_of(pid: int) -> list[int]:
    children: list[int] = []
    for tid in threads_of(pid):
        with contextlib.suppress(FileNotFoundError):
            children += [
                int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
            ]
    return children


def pin(pid: int, cpus: frozenset[int], *, tree: bool = False) -> None:
    """Pin every thread of `pid` (and with `tree`, of its descendants) to `cpus`; threads
    started later inherit the affinity of the thread that starts them."""
    for tid in threads_of(pid):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cpus)
    if tree:
        for child in children_of(pid):
            pin(child, cpus, tree=True)


def process_cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process (all its threads), from /proc/<pid>/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return math.nan, math.nan
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def find_redis_child(pid: int) -> tuple[int, str] | None:
    """The private redis-server a croupier-server started: its pid and URL."""
    for child in children_of(pid):
        try:
            comm = Path(f"/proc/{child}/comm").read_text().strip()
            argv = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except FileNotFoundError:
            continue
        if not comm.startswith("redis-server"):
            continue
        words = [w.decode() for w in argv]
        port = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--port"), None)
        if port is None:  # redis rewrites its title to "redis-server host:port"
            port = next((w.rpartition(":")[2] for w in words[1:] if ":" in w), None)
        if port and port.isdigit():
            return child, f"redis://127.0.0.1:{port}/0"
    return None


# --------------------------------------------------------------------------------------------
# What a client process records


@dataclass
class Sample:
    """What one client process recorded in one phase (picklable, merged across processes)."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    request_bytes: Counter[str] = field(default_factory=Counter)
    response_bytes: Counter[str] = field(default_factory=Counter)
    finished: Counter[str] = field(default_factory=Counter)
    window_s: float = 0.0
    client_cpu: list[float] = field(default_factory=list)  # share of a core, one per process
    monitored: dict[str, float] = field(default_factory=dict)  # label -> share of a core

    def latency_list(self, key: str) -> list[float]:
        found = self.latencies.get(key)
        if found is None:
            found = self.latencies[key] = []
        return found

    def merge(self, other: Sample) -> None:
        for key, values in other.latencies.items():
            self.latency_list(key).extend(values)
        self.errors.update(other.errors)
        self.reasons.update(other.reasons)
        self.request_bytes.update(other.request_bytes)
        self.response_bytes.update(other.response_bytes)
        self.finished.update(other.finished)
        self.window_s = max(self.window_s, other.window_s)
        self.client_cpu += other.client_cpu
        for label, share in other.monitored.items():
            self.monitored[label] = self.monitored.get(label, 0.0) + share


@dataclass(frozen=True)
class Figures:
    calls: int
    calls_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float
    errors: int
    request_bytes: float
    response_bytes: float

    @classmethod
    def of(cls, sample: Sample, key: str, window_s: float) -> Figures:
        values = sorted(sample.latencies.get(key, []))
        n = len(values)

        def rank(q: float) -> float:
            return values[max(0, math.ceil(q * n) - 1)] * 1000 if n else math.nan

        return cls(
            calls=n,
            calls_per_s=n / window_s if window_s > 0 else math.nan,
            p50_ms=rank(0.50),
            p90_ms=rank(0.90),
            p99_ms=rank(0.99),
            max_ms=values[-1] * 1000 if n else math.nan,
            mean_ms=sum(values) / n * 1000 if n else math.nan,
            errors=sample.errors.get(key, 0),
            request_bytes=sample.request_bytes.get(key, 0) / n if n else math.nan,
            response_bytes=sample.response_bytes.get(key, 0) / n if n else math.nan,
        )

    def ratios(self, base: Figures) -> dict[str, float]:
        """Each figure over the baseline's (throughput: higher is better; latency: lower)."""
        return {
            name: _ratio(getattr(self, name), getattr(base, name))
            for name in ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms")
        }

    def as_json(self, base: Figures | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "calls_per_s": _num(self.calls_per_s),
            "p50_ms": _num(self.p50_ms),
            "p90_ms": _num(self.p90_ms),
            "p99_ms": _num(self.p99_ms),
            "max_ms": _num(self.max_ms),
            "mean_ms": _num(self.mean_ms),
            "errors": self.errors,
            "calls": self.calls,
            "request_bytes": _num(self.request_bytes),
            "response_bytes": _num(self.response_bytes),
        }
        if base is not None:
            out["vs_baseline"] = {k: _num(v) for k, v in self.ratios(base).items()}
        return out


def _ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


def _num(value: float, digits: int = 4) -> float | None:
    return None if math.isnan(value) else round(value, digits)


# --------------------------------------------------------------------------------------------
# The load generator (one asyncio loop per client process)


@dataclass(frozen=True)
class Phase:
    """One measured phase: calls start at `start` (wall clock, shared by all client processes);
    figures count the calls that end within [start + warmup, start + warmup + duration]."""

    name: str
    games: tuple[str, ...]  # empty: the baseline
    start: float
    warmup: float
    duration: float


@dataclass(frozen=True)
class ClientSpec:
    target: str
    index: int
    concurrency: int
    channels: int
    seats: dict[str, int]
    seed: int
    timeout: float
    uvloop: bool
    cpus: frozenset[int] | None
    phases: tuple[Phase, ...]
    monitor: dict[str, int]  # label -> pid whose CPU this process samples (process 0 only)
    profile: str | None = None  # py-spy output, recorded during the first games phase
    profile_pid: int | None = None


@dataclass
class _Table:
    """A game in the pool: created on first use, dropped when over or after an error."""

    game: str
    name: str = ""
    metadata: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    active: list[int] = field(default_factory=list)

    def reset(self) -> None:
        self.name, self.metadata, self.active = "", [], []


def _reason(error: grpc.RpcError) -> str:
    try:
        from croupier.errors import CroupierError

        return CroupierError.from_rpc_error(error).reason
    except Exception:
        code: Any = getattr(error, "code", lambda: None)()
        return getattr(code, "name", "ERROR")


class _Load:
    """The calls of one phase in one client process."""

    def __init__(
        self, spec: ClientSpec, phase: Phase, channels: Sequence[Any], start: float
    ) -> None:
        self.spec, self.phase, self.sample = spec, phase, Sample()
        self.window_start = start + phase.warmup
        self.window_end = self.window_start + phase.duration
        self.games = [GameServiceStub(c) for c in channels]
        self.health = [health_pb2_grpc.HealthStub(c) for c in channels]
        self.idle: dict[str, list[_Table]] = {game: [] for game in phase.games}
        self.moves = 0

    async def call(
        self, key: str, method: Any, request: Message, metadata: Any, game: str | None = None
    ) -> Any:
        started = time.perf_counter()
        try:
            response = await method(request, metadata=metadata, timeout=self.spec.timeout)
        except grpc.RpcError as error:
            self.fail(key, game, _reason(error))
            return None
        ended = time.perf_counter()
        if self.window_start <= ended <= self.window_end:
            sample, sizes = self.sample, (request.ByteSize(), response.ByteSize())
            for name in (key,) if game is None else (key, f"{key}@{game}"):
                sample.latency_list(name).append(ended - started)
                sample.request_bytes[name] += sizes[0]
                sample.response_bytes[name] += sizes[1]
        return response

    def fail(self, key: str, game: str | None, reason: str) -> None:
        """Errors count during the whole phase, warm-up included."""
        self.sample.errors[key] += 1
        if game is not None:
            self.sample.errors[f"{key}@{game}"] += 1
        self.sample.reasons[f"{key}: {reason}"] += 1

    async def baseline(self, worker: int) -> None:
        check = self.health[worker % len(self.health)].Check
        request = health_pb2.HealthCheckRequest(service=GAME_SERVICE)
        metadata = (("authorization", f"Bearer {FAKE_CREDENTIAL}"),)
        while time.perf_counter() < self.window_end:
            await self.call(BASELINE, check, request, metadata)

    async def player(self, worker: int) -> None:
        stub = self.games[worker % len(self.games)]
        chooser = random.Random(f"{self.spec.seed}/{self.spec.index}/{worker}")
        turn = worker
        while time.perf_counter() < self.window_end:
            game = self.phase.games[turn % len(self.phase.games)]
            turn += 1
            idle = self.idle[game]
            table = idle.pop() if idle else _Table(game)
            try:
                await self.step(stub, table, chooser)
            finally:
                idle.append(table)

    async def step(self, stub: Any, table: _Table, chooser: random.Random) -> None:
        """One move of a game (creating the game first when the table is empty)."""
        game = table.game
        if not table.name:
            create = pb.CreateGameRequest(
                seats=self.spec.seats.get(game, 4), seed=chooser.getrandbits(63)
            )
            getattr(create, game).SetInParent()
            created = await self.call("create_game", stub.CreateGame, create, (), game)
            if created is None:
                return
            table.name = created.name
            table.metadata = [
                (("authorization", f"Bearer {credential}"),)
                for credential in created.seat_credentials
            ]
            table.active = list(created.view.active_seats)
        if not table.active:
            self.fail("apply_move", game, "no active seat in a game that is not over")
            table.reset()
            return
        metadata = table.metadata[chooser.choice(table.active)]
        listed = await self.call(
            "list_legal_moves",
            stub.ListLegalMoves,
            pb.ListLegalMovesRequest(name=table.name),
            metadata,
            game,
        )
        if listed is None or not listed.moves:
            if listed is not None:
                self.fail("list_legal_moves", game, "no legal move for an active seat")
            table.reset()
            return
        self.moves += 1
        request = pb.ApplyMoveRequest(
            name=table.name,
            move=chooser.choice(listed.moves),
            request_id=f"b{self.spec.index}.{self.moves}",
        )
        applied = await self.call("apply_move", stub.ApplyMove, request, metadata, game)
        if applied is None:
            table.reset()
            return
        view = applied.view
        if view.HasField("result"):
            await self.call("get_game", stub.GetGame, pb.GetGameRequest(name=table.name), (), game)
            self.sample.finished[game] += 1
            table.reset()
        else:
            table.active = list(view.active_seats)

    async def meter(self) -> None:
        """CPU use of this process (and of the monitored ones) during the window."""
        await _sleep_until(self.window_start)
        wall, own = time.perf_counter(), time.process_time()
        others = {label: process_cpu_seconds(pid) for label, pid in self.spec.monitor.items()}
        profiler = self._start_profiler()
        await _sleep_until(self.window_end)
        elapsed = time.perf_counter() - wall
        self.sample.window_s = self.phase.duration
        self.sample.client_cpu = [(time.process_time() - own) / elapsed]
        for label, pid in self.spec.monitor.items():
            user, system = process_cpu_seconds(pid)
            self.sample.monitored[label] = (user + system - sum(others[label])) / elapsed
            self.sample.monitored[f"{label}_sys"] = (system - others[label][1]) / elapsed
        if profiler is not None:
            await asyncio.to_thread(profiler.wait, self.phase.duration + 30)

    def _start_profiler(self) -> subprocess.Popen[bytes] | None:
        spec = self.spec
        if spec.profile is None or spec.profile_pid is None or not self.phase.games:
            return None
        if self.phase is not next(p for p in spec.phases if p.games):
            return None
        suffix = Path(spec.profile).suffix
        fmt = {".svg": "flamegraph", ".json": "speedscope"}.get(suffix, "raw")
        return subprocess.Popen(
            [
                *[py_spy() or "py-spy", "record", "--pid", str(spec.profile_pid), "--nonblocking"],
                *["--duration", str(max(1, int(self.phase.duration)))],
                *["--rate", "200", "--format", fmt, "--output", spec.profile],
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def py_spy() -> str | None:
    """py-spy on the PATH or next to this Python (a virtualenv's bin/)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.exists() else None)


async def _sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))


async def _run_phases(spec: ClientSpec) -> list[Sample]:
    options = [("grpc.use_local_subchannel_pool", 1)]  # one connection per channel
    channels = [
        grpc.aio.insecure_channel(spec.target, options=options) for _ in range(spec.channels)
    ]
    try:
        for channel in channels:
            await asyncio.wait_for(channel.channel_ready(), 20)
        wall_to_perf = time.perf_counter() - time.time()
        samples = []
        for phase in spec.phases:
            start = phase.start + wall_to_perf
            await _sleep_until(start)
            load = _Load(spec, phase, channels, start)
            work = load.player if phase.games else load.baseline
            meter = asyncio.create_task(load.meter())
            await asyncio.gather(*(work(worker) for worker in range(spec.concurrency)))
            await meter
            samples.append(load.sample)
        return samples
    finally:
        for channel in channels:
            await channel.close()


def run_client(spec: ClientSpec) -> list[Sample]:
    """One client process's whole run (also the entry point of --client-processes workers)."""
    if spec.cpus:
        pin(os.getpid(), spec.cpus)
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if spec.uvloop:
        with contextlib.suppress(ImportError):
            factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(_run_phases(spec))


# --------------------------------------------------------------------------------------------
# Redis round trips of one call


def count_round_trips(
    target: str, redis_url: str, game: str, seats: int, seed: int, moves: int = 40
) -> dict[str, Any]:
    """Redis commands and round trips (read events of the Redis server) per call, measured
    around single calls made one at a time, and the MONITOR transcript of one ApplyMove."""
    import redis

    client: Any = redis.Redis.from_url(redis_url)
    chooser = random.Random(seed)
    transcript: list[str] = []

    def snapshot() -> dict[str, Any]:
        info: dict[str, Any] = client.info("commandstats", "stats")
        return info

    def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        commands = {}
        for key, value in after.items():
            if key.startswith("cmdstat_") and isinstance(value, dict):
                old = before.get(key, {}).get("calls", 0)
                if value["calls"] > old:
                    commands[key.removeprefix("cmdstat_")] = value["calls"] - old
        info_calls = commands.pop("info", 0)
        pings = commands.pop("ping", 0)  # the server's store health check, once a second
        reads = after["total_reads_processed"] - before["total_reads_processed"]
        # The later snapshot's INFO is one read event of its own.
        return {
            "round_trips": reads - pings - info_calls,
            "commands": dict(sorted(commands.items())),
        }

    measured: dict[str, list[dict[str, Any]]] = {rpc: [] for rpc in RPCS}

    def timed(rpc: str, method: Any, request: Message, metadata: Any = ()) -> Any:
        before = snapshot()
        result = method(request, metadata=metadata)
        measured[rpc].append(delta(before, snapshot()))
        return result

    with grpc.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        name, metadata, active = "", [], []
        for number in range(moves):
            if not name:
                create = pb.CreateGameRequest(seats=seats, seed=chooser.getrandbits(63))
                getattr(create, game).SetInParent()
                created = timed("create_game", stub.CreateGame, create)
                name = created.name
                metadata = [(("authorization", f"Bearer {c}"),) for c in created.seat_credentials]
                active = list(created.view.active_seats)
            md = metadata[chooser.choice(active)]
            listed = timed(
                "list_legal_moves", stub.ListLegalMoves, pb.ListLegalMovesRequest(name=name), md
            )
            move = pb.ApplyMoveRequest(
                name=name, move=chooser.choice(listed.moves), request_id=f"rt.{seed}.{number}"
            )
            if number == moves - 1:
                timed("get_game", stub.GetGame, pb.GetGameRequest(name=name))
                transcript = _monitor(
                    redis_url, client, functools.partial(stub.ApplyMove, move, metadata=md)
                )
                break
            applied = timed("apply_move", stub.ApplyMove, move, md)
            if applied.view.HasField("result"):
                timed("get_game", stub.GetGame, pb.GetGameRequest(name=name))
                name = ""
            else:
                active = list(applied.view.active_seats)
    client.close()
    out: dict[str, Any] = {}
    for rpc, runs in measured.items():
        if not runs:
            continue
        trips = sorted(r["round_trips"] for r in runs)
        commands: Counter[str] = Counter()
        for run in runs:
            commands.update(run["commands"])
        out[rpc] = {
            "calls": len(runs),
            "round_trips_min": trips[0],
            "round_trips_median": trips[len(trips) // 2],
            "round_trips_max": trips[-1],
            "commands_per_call": {k: round(v / len(runs), 2) for k, v in sorted(commands.items())},
        }
    out["apply_move_monitor"] = transcript
    return out


def _monitor(redis_url: str, client: Any, call: Callable[[], Any]) -> list[str]:
    """The commands Redis executes for `call` as MONITOR shows them ("lua": inside a script);
    `client` (already connected) sends the marker that ends the transcript."""
    import redis

    marker = f"croupier-bench-{os.getpid()}-{time.time_ns()}"
    lines: list[str] = []
    watcher: Any = redis.Redis.from_url(redis_url)
    with contextlib.closing(watcher), watcher.monitor() as monitor:
        call()
        client.echo(marker)
        while True:
            entry = monitor.next_command()
            command = str(entry.get("command", ""))
            if marker in command:
                break
            if command.upper().startswith(("PING", "INFO")):
                continue
            source = "lua" if entry.get("client_type") == "lua" else "client"
            words = command.split()
            lines.append(f"{source}: {' '.join(words[:2])}")
    return lines


# --------------------------------------------------------------------------------------------
# The service benchmark


@dataclass
class Server:
    target: str
    started: bool
    pids: dict[str, int]
    redis_url: str | None


@contextlib.contextmanager
def _affinity(cpus: frozenset[int] | None) -> Iterator[None]:
    if cpus is None:
        yield
        return
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, old)


@contextlib.contextmanager
def _server(args: argparse.Namespace) -> Iterator[Server]:
    if args.target:
        pids = {"server": args.server_pid} if args.server_pid else {}
        yield Server(args.target, False, pids, args.redis_url)
        return
    server = LocalServer(args.redis_url)
    own = frozenset(os.sched_getaffinity(0))
    with _affinity(args.server_cpus):  # the server process inherits the affinity
        server.start(timeout=60.0)
    # Threads of ours started meanwhile (gRPC's, by the health check) got it too.
    pin(os.getpid(), args.client_cpus or own)
    try:
        assert server.process is not None
        pid = server.process.pid
        pids = {"server": pid}
        redis_url = args.redis_url
        found = find_redis_child(pid)
        if found is not None:
            pids["redis"], redis_url = found[0], found[1]
        if args.server_cpus:
            pin(pid, args.server_cpus, tree=True)
        if args.redis_cpus and "redis" in pids:
            pin(pids["redis"], args.redis_cpus, tree=True)
        yield Server(server.target, True, pids, redis_url)
    finally:
        server.stop()


def default_seats() -> dict[str, int]:
    """Each game's largest seat count (the heaviest states and views), from the registry."""
    try:
        from engines.registry import GAMES

        return {game: engine.max_seats for game, engine in GAMES.items()}
    except Exception:
        return {}


def _schedule(args: argparse.Namespace, games: list[str], start: float) -> tuple[Phase, ...]:
    groups = [(g,) for g in games] if args.separately else [tuple(games)]
    names = [BASELINE] + [("games:" + g[0]) if args.separately else "games" for g in groups]
    phases = []
    length = args.warmup + args.duration + 0.3  # the gap lets the last calls drain
    for number, (name, group) in enumerate(zip(names, [(), *groups], strict=True)):
        phases.append(Phase(name, group, start + number * length, args.warmup, args.duration))
    return tuple(phases)


def run_service_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    games: list[str] = args.game or GAME_IDS
    seats = default_seats()
    if args.seats:
        seats = dict.fromkeys(games, args.seats)
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    with _server(args) as server:
        processes = max(1, args.client_processes)
        lead = 0.2 if processes == 1 else 2.0 + 0.3 * processes
        phases = _schedule(args, games, time.time() + lead)
        specs = [
            ClientSpec(
                target=server.target,
                index=i,
                concurrency=args.concurrency // processes
                + (1 if i < args.concurrency % processes else 0),
                channels=args.channels,
                seats=seats,
                seed=args.seed,
                timeout=args.timeout,
                uvloop=not args.no_uvloop,
                cpus=args.client_cpus,
                phases=phases,
                monitor=server.pids if i == 0 else {},
                profile=args.profile if i == 0 else None,
                profile_pid=server.pids.get("server"),
            )
            for i in range(processes)
        ]
        specs = [s for s in specs if s.concurrency > 0]
        print(_header(args, server, games, seats, len(specs)), file=out, flush=True)
        if len(specs) == 1:
            per_process = [run_client(specs[0])]
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(len(specs), mp_context=context) as pool:
                per_process = list(pool.map(run_client, specs))
        merged: list[Sample] = []
        for number in range(len(phases)):
            total = Sample()
            for samples in per_process:
                total.merge(samples[number])
            merged.append(total)
        redis_counts: dict[str, Any] | None = None
        if server.redis_url and not args.no_redis_count:
            try:
                redis_counts = count_round_trips(
                    server.target, server.redis_url, games[0], seats.get(games[0], 4), args.seed
                )
            except Exception as exc:  # report, do not lose the run
                redis_counts = {"error": f"{type(exc).__name__}: {exc}"}
    report = _service_report(args, server, phases, merged, games, seats, redis_counts)
    _print_service(report, out)
    return report


def _header(
    args: argparse.Namespace, server: Server, games: list[str], seats: dict[str, int], n: int
) -> str:
    where = (
        f"started here (pid {server.pids['server']})" if server.started else f"at {server.target}"
    )
    pinning = (
        f"server cpus {_cpus(args.server_cpus)}, client cpus {_cpus(args.client_cpus)}"
        if args.server_cpus or args.client_cpus
        else "not pinned"
    )
    return (
        f"croupier-bench: server {where}; {args.concurrency} in flight from {n} client"
        f" process(es), {args.channels} channel(s) each; {pinning}\n"
        f"  games: {', '.join(f'{g} ({seats.get(g, 4)} seats)' for g in games)};"
        f" phases of {args.warmup:g} s warm-up + {args.duration:g} s measured"
    )


def _cpus(cpus: frozenset[int] | None) -> str:
    return ",".join(map(str, sorted(cpus))) if cpus else "any"


def _service_report(
    args: argparse.Namespace,
    server: Server,
    phases: Sequence[Phase],
    samples: Sequence[Sample],
    games: list[str],
    seats: dict[str, int],
    redis_counts: dict[str, Any] | None,
) -> dict[str, Any]:
    base_sample, game_samples = samples[0], list(samples[1:])
    base = Figures.of(base_sample, BASELINE, base_sample.window_s)
    combined = Sample()
    for sample in game_samples:
        combined.merge(sample)
    window = sum(s.window_s for s in game_samples)
    report: dict[str, Any] = {"baseline": {"rpc": BASELINE_RPC, **base.as_json(None)}}
    for rpc in RPCS:
        report[rpc] = Figures.of(combined, rpc, window).as_json(base)
    apply = Figures.of(combined, "apply_move", window)
    report["ratio"] = _num(_ratio(apply.calls_per_s, base.calls_per_s))
    for number, game in enumerate(games):
        sample = game_samples[number] if args.separately else combined
        game_window = sample.window_s
        figures = Figures.of(sample, f"apply_move@{game}", game_window)
        report[game] = {
            **figures.as_json(base),
            "ratio": _num(_ratio(figures.calls_per_s, base.calls_per_s)),
            "games_finished": sample.finished.get(game, 0),
            "rpcs": {
                rpc: Figures.of(sample, f"{rpc}@{game}", game_window).as_json(base)
                for rpc in RPCS[1:]
            },
        }
    calls = sum(len(v) for k, v in combined.latencies.items() if "@" not in k)
    cpu: dict[str, Any] = {}
    warnings: list[str] = []
    for phase, sample in zip(phases, samples, strict=True):
        phase_calls = sum(len(v) for k, v in sample.latencies.items() if "@" not in k)
        entry: dict[str, Any] = {
            "client": [round(c, 3) for c in sample.client_cpu],
            **{label: _num(share, 3) for label, share in sample.monitored.items()},
        }
        server_share = sample.monitored.get("server", math.nan)
        if phase_calls and not math.isnan(server_share):
            entry["server_us_per_call"] = _num(
                server_share * sample.window_s / phase_calls * 1e6, 1
            )
        applied = len(sample.latencies.get("apply_move", []))
        if applied and not math.isnan(server_share):
            entry["server_us_per_move"] = _num(server_share * sample.window_s / applied * 1e6, 1)
        cpu[phase.name] = entry
        warnings += _bottleneck_warnings(phase.name, sample)
    if not args.server_cpus and not args.client_cpus and server.started:
        warnings.append(
            "client and server were not pinned: they compete for the same cores; for figures"
            " that measure the server, run --server-cpus 0 --client-cpus 1"
        )
    if "server" not in server.pids:
        warnings.append(
            "the server's CPU was not measured (give --server-pid): whether the server or the"
            " load generator was the limit is known only from the client's CPU"
        )
    if api_implementation.Type() != "upb":
        warnings.append(f"the client's protobuf backend is {api_implementation.Type()}, not upb")
    report["all_game_rpcs"] = {
        "calls_per_s": _num(calls / window) if window else None,
        "ratio": _num(_ratio(calls / window if window else math.nan, base.calls_per_s)),
    }
    report["cpu"] = cpu
    report["redis"] = redis_counts
    report["errors"] = dict(sorted((base_sample.reasons + combined.reasons).items()))
    report["warnings"] = warnings
    report["config"] = {
        "target": server.target,
        "server_started": server.started,
        "concurrency": args.concurrency,
        "client_processes": args.client_processes,
        "channels": args.channels,
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "games": games,
        "separately": args.separately,
        "seats": {g: seats.get(g, 4) for g in games},
        "server_cpus": sorted(args.server_cpus) if args.server_cpus else None,
        "client_cpus": sorted(args.client_cpus) if args.client_cpus else None,
        "protobuf": api_implementation.Type(),
        "cpu_count": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    return report


def _bottleneck_warnings(phase: str, sample: Sample) -> list[str]:
    warnings = []
    busiest = max(sample.client_cpu, default=0.0)
    server = sample.monitored.get("server", math.nan)
    if busiest >= SATURATED:
        who = f"; the server used {server:.0%} of a core" if not math.isnan(server) else ""
        warnings.append(
            f"{phase}: the load generator is the bottleneck: a client process used"
            f" {busiest:.0%} of a core{who}. Give the client its own core(s)"
            " (--client-cpus, --client-processes N with N cores) or the figures measure the"
            " client, not the server"
        )
    elif busiest >= NEAR_SATURATED:
        warnings.append(
            f"{phase}: a client process used {busiest:.0%} of a core: close to being the"
            " bottleneck; give the client more CPU to be sure the figures measure the server"
        )
    return warnings


def _cell(value: float, base: float | None, unit: str = "") -> str:
    if math.isnan(value):
        return "-"
    text = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
    if base is None:
        return text + unit
    return f"{text}{unit} ({_ratio(value, base):.2f}x)"


def _print_service(report: dict[str, Any], out: TextIO) -> None:
    def fig(entry: dict[str, Any], name: str) -> float:
        value = entry.get(name)
        return math.nan if value is None else float(value)

    base = report["baseline"]
    columns = ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms")
    print(
        f"\n{'rpc':<22}{'calls/s':>18}{'p50 ms':>17}{'p90 ms':>17}{'p99 ms':>17}"
        f"{'max ms':>17}{'errors':>8}",
        file=out,
    )
    rows = [(f"baseline ({BASELINE_RPC.split('/')[0].split('.')[-1]}/Check)", base, True)]
    rows += [(rpc, report[rpc], False) for rpc in RPCS]
    rows += [
        (f"  {game}", report[game], False) for game in report["config"]["games"] if game in report
    ]
    for label, entry, is_base in rows:
        cells = [_cell(fig(entry, c), None if is_base else fig(base, c)) for c in columns]
        print(
            f"{label:<22}{cells[0]:>18}{cells[1]:>17}{cells[2]:>17}{cells[3]:>17}{cells[4]:>17}"
            f"{entry['errors']:>8}",
            file=out,
        )
    print(
        "(per game: its ApplyMove calls; ratios in parentheses are to the baseline's figure)",
        file=out,
    )
    print(
        f"\nratio (ApplyMove calls/s over baseline calls/s): {report['ratio']};"
        f" all game RPCs: {report['all_game_rpcs']['ratio']}",
        file=out,
    )
    apply = report["apply_move"]
    print(
        f"payload (request/response bytes): ApplyMove {apply['request_bytes']}/"
        f"{apply['response_bytes']}, baseline {base['request_bytes']}/{base['response_bytes']}"
        " (plus the same authorization metadata)",
        file=out,
    )
    for phase, entry in report["cpu"].items():
        parts = [f"client {'+'.join(f'{c:.0%}' for c in entry['client'])}"]
        parts += [
            f"{k} {entry[k]:.0%} (system {entry.get(k + '_sys') or 0:.0%})"
            for k in ("server", "redis")
            if entry.get(k) is not None
        ]
        extra = ""
        if entry.get("server_us_per_call") is not None:
            extra = f"; server CPU {entry['server_us_per_call']} us per call"
        if entry.get("server_us_per_move") is not None:
            extra += f", {entry['server_us_per_move']} us per move"
        print(f"cpu {phase} (share of one core): {', '.join(parts)}{extra}", file=out)
    redis_counts = report.get("redis")
    if redis_counts and "error" not in redis_counts:
        for rpc in RPCS:
            if rpc in redis_counts:
                r = redis_counts[rpc]
                commands = ", ".join(f"{k} {v:g}" for k, v in r["commands_per_call"].items())
                print(
                    f"redis {rpc}: {r['round_trips_median']} round trip(s)"
                    f" (min {r['round_trips_min']}, max {r['round_trips_max']},"
                    f" {r['calls']} calls); commands per call: {commands}",
                    file=out,
                )
        if redis_counts.get("apply_move_monitor"):
            print(
                "redis MONITOR of one ApplyMove: " + "; ".join(redis_counts["apply_move_monitor"]),
                file=out,
            )
    elif redis_counts:
        print(f"redis: not counted ({redis_counts['error']})", file=out)
    if report["errors"]:
        print("errors: " + ", ".join(f"{k} x{v}" for k, v in report["errors"].items()), file=out)
    for warning in report["warnings"]:
        print(f"WARNING: {warning}", file=out)
    print(
        "\nTo measure the server and not the load generator, give each its own core(s):\n"
        "  croupier-bench --server-cpus 0 --client-cpus 1          (server and its Redis on"
        " core 0)\n"
        "  taskset -c 0 croupier-server --port 50051 &  taskset -c 1 croupier-bench"
        " --target localhost:50051 --server-pid $!",
        file=out,
    )


# --------------------------------------------------------------------------------------------
# The engine benchmark


def bench_engine(
    engine: Any, seats: int, seconds: float, seed: int, size_seconds: float | None = None
) -> dict[str, Any]:
    """Random legal playouts with the engine alone: per move, the acting seats, the legal moves
    of one of them, one move chosen and applied (validated by the engine)."""
    from croupier.v1.storage_pb2 import StoredGame

    options = engine.options_type()
    chooser = random.Random(seed)
    result, active_seats, legal_moves, apply = (
        engine.result,
        engine.active_seats,
        engine.legal_moves,
        engine.apply,
    )
    moves = playouts = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        state, _ = engine.new_game(options, seats, chooser.getrandbits(63))
        count = 0
        while result(state) is None:
            seat = chooser.choice(active_seats(state))
            apply(state, seat, chooser.choice(legal_moves(state, seat)))
            count += 1
            if count > MAX_PLAYOUT_MOVES:
                raise RuntimeError(f"a playout did not end after {MAX_PLAYOUT_MOVES} moves")
        moves += count
        playouts += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - started

    # Sizes, untimed: every state of a few playouts, as the service stores it (StoredGame with
    # one 32-byte credential hash and an empty display name per seat).
    state_sizes: list[int] = []
    stored_sizes: list[int] = []
    chooser = random.Random(seed)
    size_deadline = time.perf_counter() + (seconds / 3 if size_seconds is None else size_seconds)
    for _ in range(playouts):
        state, _ = engine.new_game(options, seats, chooser.getrandbits(63))
        stored = StoredGame(
            game_type=engine.game_id,
            display_names=[""] * seats,
            credential_hashes=[b"h" * 32] * seats,
        )
        member = getattr(stored, engine.game_id)
        while True:
            member.CopyFrom(state)
            state_sizes.append(state.ByteSize())
            stored_sizes.append(stored.ByteSize())
            if result(state) is not None:
                break
            seat = chooser.choice(active_seats(state))
            apply(state, seat, chooser.choice(legal_moves(state, seat)))
            stored.move_count += 1
        if time.perf_counter() >= size_deadline:
            break
    return {
        "seats": seats,
        "moves_per_s": round(moves / elapsed, 1),
        "moves": moves,
        "playouts": playouts,
        "moves_per_playout": round(moves / playouts, 1),
        "seconds": round(elapsed, 3),
        "state_bytes_max": max(state_sizes),
        "state_bytes_mean": round(sum(state_sizes) / len(state_sizes), 1),
        "stored_bytes_max": max(stored_sizes),
        "stored_bytes_mean": round(sum(stored_sizes) / len(stored_sizes), 1),
        "sized_states": len(state_sizes),
    }


def compare_with_uno(
    engine: Any, seconds: float, seed: int, rounds: int = 5
) -> dict[str, Any] | None:
    """RLCard's UNO (random legal play through env.step) against `engine` with as many seats,
    in alternating slices so that a machine busy with other work slows both alike; None when
    rlcard is not installed."""
    try:
        rlcard = importlib.import_module("rlcard")
    except ImportError:
        return None
    env: Any = rlcard.make("uno", config={"seed": seed})
    players: int = env.num_players
    chooser = random.Random(seed)
    steps = games = moves = 0
    uno_seconds = own_seconds = 0.0
    for number in range(rounds):
        started = time.perf_counter()
        deadline = started + seconds / rounds
        while time.perf_counter() < deadline:
            state, _ = env.reset()
            games += 1
            while not env.is_over():
                state, _ = env.step(chooser.choice(list(state["legal_actions"])))
                steps += 1
        uno_seconds += time.perf_counter() - started
        own = bench_engine(engine, players, seconds / rounds, seed + number, size_seconds=0.0)
        moves += own["moves"]
        own_seconds += own["seconds"]
    uno_rate, own_rate = steps / uno_seconds, moves / own_seconds
    return {
        "version": getattr(rlcard, "__version__", "?"),
        "players": players,
        "steps_per_s": round(uno_rate, 1),
        "steps": steps,
        "games": games,
        f"{engine.game_id}_moves_per_s": round(own_rate, 1),
        f"{engine.game_id}_over_uno": round(own_rate / uno_rate, 3),
    }


def run_engine_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    from engines.registry import GAMES

    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    games: list[str] = args.game or list(GAMES)
    report: dict[str, Any] = {"engines": {}}
    print(
        f"croupier-bench --engines: {args.duration:g} s per game, protobuf"
        f" {api_implementation.Type()}, pid {os.getpid()} on cpus"
        f" {_cpus(frozenset(os.sched_getaffinity(0)))}\n"
        f"{'game':<17}{'seats':>6}{'moves/s':>10}{'moves/game':>11}{'playouts':>9}"
        f"{'state B max/mean':>19}{'stored B max/mean':>20}",
        file=out,
        flush=True,
    )
    for game in games:
        engine = GAMES.get(game)
        try:
            if engine is None:
                raise KeyError(f"no engine registered for {game!r}")
            seats = args.seats or engine.max_seats
            entry = bench_engine(engine, seats, args.duration, args.seed)
        except Exception as exc:
            report["engines"][game] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"{game:<17} error: {type(exc).__name__}: {exc}", file=out, flush=True)
            continue
        report["engines"][game] = entry
        print(
            f"{game:<17}{entry['seats']:>6}{entry['moves_per_s']:>10,.0f}"
            f"{entry['moves_per_playout']:>11,.0f}{entry['playouts']:>9}"
            f"{entry['state_bytes_max']:>10,} / {entry['state_bytes_mean']:<7,.0f}"
            f"{entry['stored_bytes_max']:>10,} / {entry['stored_bytes_mean']:<7,.0f}",
            file=out,
            flush=True,
        )
    report["rlcard_uno"] = None
    if not args.no_rlcard and "one_card" in games and "one_card" in GAMES:
        try:
            uno = compare_with_uno(GAMES["one_card"], args.duration, args.seed)
        except Exception as exc:
            uno = {"error": f"{type(exc).__name__}: {exc}"}
        report["rlcard_uno"] = uno
        if uno is None:
            print("RLCard UNO: rlcard is not installed (pip install rlcard)", file=out)
        elif "error" in uno:
            print(f"RLCard UNO comparison failed: {uno['error']}", file=out)
        else:
            print(
                f"RLCard {uno['version']} UNO ({uno['players']} players):"
                f" {uno['steps_per_s']:,.0f} steps/s; one_card with {uno['players']} seats:"
                f" {uno['one_card_moves_per_s']:,.0f} moves/s = {uno['one_card_over_uno']:.2f}x"
                " UNO (alternating slices)",
                file=out,
            )
    report["config"] = {
        "duration_s_per_game": args.duration,
        "seed": args.seed,
        "protobuf": api_implementation.Type(),
        "python": sys.version.split()[0],
        "cpus": sorted(os.sched_getaffinity(0)),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    return report


# --------------------------------------------------------------------------------------------


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier-bench",
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join((__doc__ or "").split("\n\n")[1:]),
    )
    parser.add_argument("--engines", action="store_true", help="benchmark the engines alone")
    parser.add_argument(
        "--game", action="append", choices=GAME_IDS, help="a game to play (repeatable; default all)"
    )
    parser.add_argument(
        "--duration", type=_positive(float), default=10.0, help="measured seconds per phase"
    )
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="unmeasured seconds before each phase"
    )
    parser.add_argument(
        "--concurrency", type=_positive(int), default=32, help="calls in flight (1: latency mode)"
    )
    parser.add_argument(
        "--separately",
        action="store_true",
        help="one phase per game (per-game throughput) instead of all games mixed",
    )
    parser.add_argument("--seats", type=_positive(int), help="seats per game (default: each max)")
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--server-pid", type=int, help="pid of the --target server, for its CPU")
    parser.add_argument(
        "--redis-url",
        help="the server's Redis (a started server uses it; with --target: counts round trips)",
    )
    parser.add_argument("--server-cpus", type=parse_cpus, help="pin the started server: 0 or 0-1")
    parser.add_argument("--redis-cpus", type=parse_cpus, help="pin its Redis (default: server's)")
    parser.add_argument("--client-cpus", type=parse_cpus, help="pin the load generator")
    parser.add_argument(
        "--client-processes", type=_positive(int), default=1, help="load generator processes"
    )
    parser.add_argument("--channels", type=_positive(int), default=1, help="channels per process")
    parser.add_argument("--timeout", type=float, default=10.0, help="deadline of each call")
    parser.add_argument("--seed", type=int, default=1, help="seed of games and bots")
    parser.add_argument("--no-uvloop", action="store_true", help="client on the asyncio loop")
    parser.add_argument("--no-redis-count", action="store_true", help="skip counting round trips")
    parser.add_argument("--no-rlcard", action="store_true", help="skip RLCard's UNO (--engines)")
    parser.add_argument("--profile", help="py-spy record the server: FILE.svg, .json or raw text")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.target and (args.server_cpus or args.redis_cpus):
        parser.error("--server-cpus/--redis-cpus pin a server started here: not with --target")
    if args.profile and py_spy() is None:
        parser.error("--profile needs py-spy on the PATH (pip install py-spy)")
    if args.engines:
        report = run_engine_bench(args, sys.stdout)
    else:
        report = run_service_bench(args, sys.stdout)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
