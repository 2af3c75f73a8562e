"""The watcher benchmark (`--watchers N`): how WatchGame holds up with many open streams.

Games recorded with the bots are created again on the server; N WatchGame streams are opened
on them (spread evenly, each with a seat's credential in turn, or none: a spectator), and once
every stream has its first view the recorded moves are sent with ApplyMove at a fixed overall
rate (`--watch-rate`), one game after another (a game that ended gives its turns to the
others). It reports the moves and stream updates per second, the delivery latency (from
sending a move to each stream holding its update), streams that missed an update, and the
server's CPU per move and per update delivered. The moves measured are those sent within the
window, and their updates are counted whenever they arrive (the bench waits for the last of
them), so that a slow delivery on a busy machine shows as latency, never as updates missing
from the count.

With `--watch-split PAIRS` the games are halved: the first half keeps only its first stream
each, the second all of theirs, and the moves go to one half at a time, in pairs of phases
that share the window, each pair with both halves. The difference of the server's CPU per move
between a pair's halves, divided by the extra streams a move of the second half updates, is
what one more stream's update costs, both sides measured in one server process a second
apart: the server's CPU per move differs by more between two runs than the difference being
measured.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, TextIO

import grpc

from croupier.bench.cpu import cpu_seconds, pin, rss_bytes, server_cpu_clock
from croupier.bench.load import reason_of
from croupier.bench.replay import record_games, request_id
from croupier.bench.server import seats_of, server_for
from croupier.bench.spec import Recorded
from croupier.bench.stats import Figures, Sample, num
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

DEFAULT_GAME = "vampire_queen"  # the longest games: a stream outlives the measured window
# How long, at most, the bench waits after the window for the updates of its last moves.
TAIL_SECONDS = 30.0


class _Table:
    """One game on the server: its credentials, its recorded moves, and when each was sent."""

    def __init__(self, recorded: Recorded, created: pb.CreateGameResponse) -> None:
        self.recorded = recorded
        self.name = created.name
        self.credentials = list(created.seat_credentials)
        self.sent: dict[int, float] = {}  # move count after the move -> perf_counter at sending
        self.next = 0
        self.applied = 0  # the move count after the last move the server applied


class _Turns:
    """The games in turn, each while it has recorded moves left to send: a game that ended
    gives its turns to the others, so that the moves keep the asked rate while any game has
    moves left."""

    def __init__(self, tables: list[_Table]) -> None:
        self._live = list(tables)
        self._turn = 0

    def next(self) -> _Table | None:
        """The game whose move goes next (None: every game has sent all its moves)."""
        while self._live:
            self._turn %= len(self._live)
            table = self._live[self._turn]
            if table.next < len(table.recorded.moves):
                self._turn += 1
                return table
            del self._live[self._turn]
        return None


def phase_order(pairs: int, chooser: random.Random) -> list[int]:
    """The halves of `--watch-split` in turn: each pair of phases has both, in an order drawn
    for the pair (each run its own draw). A fixed order would put work that comes back at a
    steady period (such as the garbage collector's older generations, every so many
    allocations) in the same half at every turn, and bias a whole run one way."""
    order: list[int] = []
    for _ in range(pairs):
        order += (0, 1) if chooser.random() < 0.5 else (1, 0)
    return order


def opened_streams(watchers: int, games: int, split: bool) -> list[int]:
    """The numbers of the streams opened: stream n watches game n % games with the audience
    n // games in turn; split, the first half of the games keep only their first stream."""
    return [n for n in range(watchers) if not (split and n >= games and n % games < games // 2)]


def _metadata(credential: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),) if credential else ()


async def _measure(args: argparse.Namespace, target: str, recorded: tuple[Recorded, ...]) -> Any:
    channel = grpc.aio.insecure_channel(target)
    stub = GameServiceStub(channel)
    tables: list[_Table] = []
    for number in range(args.watch_games):
        game = recorded[number % len(recorded)]
        create = pb.CreateGameRequest.FromString(game.create)
        tables.append(_Table(game, await stub.CreateGame(create, timeout=args.timeout)))

    latencies: list[float] = []
    updates = missed = 0
    stream_errors: dict[str, int] = {}
    error_reasons: dict[str, int] = {}  # of the ApplyMoves
    window = [0.0, 0.0]
    split = bool(args.watch_split)
    opened = opened_streams(args.watchers, len(tables), split)
    settled = 0  # streams that have their first view, or failed
    last_seen = [-1] * args.watchers  # each stream's last move count (-1: ended, or none yet)
    caught_up = asyncio.Event()  # once the moves are sent: every open stream holds the last
    sending = [True]

    def behind() -> bool:
        return any(
            0 <= last_seen[n] < tables[n % len(tables)].applied for n in range(args.watchers)
        )

    def note_progress() -> None:
        if not sending[0] and not behind():
            caught_up.set()

    all_settled = asyncio.Event()

    def settle() -> None:
        nonlocal settled
        settled += 1
        if settled == len(opened):
            all_settled.set()

    async def watcher(number: int) -> None:
        nonlocal updates, missed
        table = tables[number % len(tables)]
        seats = len(table.credentials)
        which = (number // len(tables)) % (seats + 1)
        credential = table.credentials[which] if which < seats else None
        stream = stub.WatchGame(
            pb.WatchGameRequest(name=table.name), metadata=_metadata(credential)
        )
        seen = -1
        try:
            async for response in stream:
                count = response.view.move_count
                now = time.perf_counter()
                sent = table.sent.get(count)
                if seen < 0:
                    settle()
                elif sent is not None and window[0] <= sent <= window[1]:
                    updates += 1
                    missed += count - seen - 1
                    latencies.append(now - sent)
                seen = last_seen[number] = count
                note_progress()
        except grpc.RpcError as error:
            reason = reason_of(error)
            stream_errors[reason] = stream_errors.get(reason, 0) + 1
            if seen < 0:
                settle()
        last_seen[number] = -1  # ended: nothing more to wait for
        note_progress()

    server_pid = args.watch_pids.get("server")
    rss = [rss_bytes(server_pid) if server_pid else None]
    streams = [asyncio.create_task(watcher(n)) for n in opened]
    try:
        await asyncio.wait_for(all_settled.wait(), timeout=120)
        await asyncio.sleep(0.5)  # the server's side of the last streams settles too
        rss.append(rss_bytes(server_pid) if server_pid else None)
        interval = 1.0 / args.watch_rate
        start = time.perf_counter()
        window[0] = start + args.warmup
        window[1] = window[0] + args.duration
        moves = 0
        cpu: dict[str, float] = {}
        step = 0
        halves = len(tables) // 2
        turns = [_Turns(tables[:halves]), _Turns(tables[halves:])] if split else [_Turns(tables)]
        order = phase_order(args.watch_split, random.Random()) if split else [0]
        phase_seconds = args.duration / len(order)
        phases = _Phases(server_pid)
        while True:
            moment = start + step * interval
            if moment > window[1]:
                break
            await asyncio.sleep(max(0.0, moment - time.perf_counter()))
            if not cpu and time.perf_counter() >= window[0]:
                cpu = {"started": time.perf_counter(), **_cpu(args)}
            if moment < window[0]:
                half = step % len(turns)  # the warm-up: the halves take moves in turn
            else:
                number = min(int((moment - window[0]) / phase_seconds), len(order) - 1)
                phases.enter(number)
                half = order[number]
            step += 1
            table = turns[half].next()
            if table is None:
                continue
            seat, move = table.recorded.moves[table.next]
            table.next += 1
            sent_at = table.sent[table.next] = time.perf_counter()
            apply = pb.ApplyMoveRequest(
                name=table.name, move=pb.Move.FromString(move), request_id=request_id(table.next)
            )
            try:
                await stub.ApplyMove(
                    apply, metadata=_metadata(table.credentials[seat]), timeout=args.timeout
                )
                table.applied = table.next
                if window[0] <= sent_at <= window[1]:
                    moves += 1
                    phases.moves[-1] += 1
            except grpc.RpcError as error:
                reason = reason_of(error)
                error_reasons[reason] = error_reasons.get(reason, 0) + 1
        await asyncio.sleep(max(0.0, moment - time.perf_counter()))
        phases.enter(len(order))  # the last phase ends where its next move would have gone
        await asyncio.sleep(0.2)  # the last updates arrive
        ended = _cpu(args)
        elapsed = time.perf_counter() - cpu["started"]
        # Late updates still count (a missing one shows in `missed`, or as updates short of
        # streams x moves): wait for every open stream to hold its game's last applied move.
        sending[0] = False
        note_progress()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(caught_up.wait(), timeout=TAIL_SECONDS)
    finally:
        for task in streams:
            task.cancel()
        for task in streams:
            with contextlib.suppress(asyncio.CancelledError, grpc.RpcError):
                await task
        await channel.close()
    figures = (moves, updates, missed, error_reasons, stream_errors, latencies)
    return (*figures, cpu, ended, elapsed, rss, order, phases.cpu_per_move())


class _Phases:
    """The server's CPU clock where each phase of the window begins, and the moves applied in
    each (none measured without the server's pid)."""

    def __init__(self, server_pid: int | None) -> None:
        self._pid = server_pid
        self._clock: list[float] = []
        self.moves: list[int] = [0]  # [0]: the warm-up's, not a phase's

    def enter(self, number: int) -> None:
        """Phase `number` begins (and any before it that no move reached, empty)."""
        while self._pid is not None and len(self._clock) <= number:
            self._clock.append(server_cpu_clock(self._pid))
            self.moves.append(0)

    def cpu_per_move(self) -> list[float]:
        """The server's CPU seconds per move applied, of each phase."""
        spent = [b - a for a, b in zip(self._clock, self._clock[1:], strict=False)]
        return [cpu / n if n else math.nan for cpu, n in zip(spent, self.moves[1:], strict=False)]


def split_figures(
    order: list[int], cpu_per_move: list[float], opened: list[int], games: int
) -> dict[str, Any]:
    """`--watch-split`: what one more stream's update costs, from each pair of phases (the
    server's CPU per move in the half watched by every stream less that in the half watched
    by one, divided by the extra streams a move there updates)."""
    halves = games // 2
    streams = [0, 0]
    for n in opened:
        streams[n % games >= halves] += 1
    extra = streams[1] / (games - halves) - streams[0] / halves
    pairs = [  # (the half of one stream a game, the half of all), phase by phase
        (cpu_per_move[i + order[i]], cpu_per_move[i + 1 - order[i]])
        for i in range(0, len(cpu_per_move) - 1, 2)
    ]
    pairs = [pair for pair in pairs if not any(map(math.isnan, pair))]  # a phase with no move
    each = [(all_ - one) / extra * 1e6 for one, all_ in pairs]
    return {
        "pairs": len(pairs),
        "halves": order,  # of the phases in turn: 0 one stream a game, 1 all of them
        "extra_streams_per_move": round(extra, 3),
        "us_per_move": [[round(one * 1e6, 1), round(all_ * 1e6, 1)] for one, all_ in pairs],
        "us_per_extra_update": [round(x, 1) for x in each],
        "median_us": round(statistics.median(each), 1) if each else None,
        "mean_us": round(statistics.fmean(each), 1) if each else None,
        # The standard error of the mean: how far the pairs' mean may stray from the run's.
        "sem_us": round(statistics.stdev(each) / math.sqrt(len(each)), 1)
        if len(each) > 1
        else None,
    }


def _cpu(args: argparse.Namespace) -> dict[str, float]:
    out = {"client": time.process_time()}
    for label, pid in args.watch_pids.items():
        with contextlib.suppress(OSError):
            out[label] = sum(cpu_seconds(label, pid))
    return out


def run_watch_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    game = (args.game or [DEFAULT_GAME])[0]
    seats = seats_of([game], args.seats)
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    recorded = record_games([game], seats, args.seed)[game]
    opened = opened_streams(args.watchers, args.watch_games, bool(args.watch_split))
    with server_for(args) as server:
        args.watch_pids = server.pids
        print(
            f"croupier-bench --watchers: server at {server.target}; {len(opened)} WatchGame"
            f" streams on {args.watch_games} {game} games ({seats[game]} seats"
            f"{'; half the games one stream each' if args.watch_split else ''});"
            f" {args.watch_rate:g} moves/s; {args.warmup:g} s warm-up + {args.duration:g} s",
            file=out,
            flush=True,
        )
        run = _run(args, server.target, recorded)
        moves, updates, missed, errors, stream_errors, latencies, *rest = run
        before, after, elapsed, rss, order, cpu_per_move = rest
    delivery = Figures.of(Sample(latencies={"delivery": latencies}), "delivery", args.duration)
    report: dict[str, Any] = {
        "game": game,
        "seats": seats[game],
        "watchers": len(opened),
        "games": args.watch_games,
        "moves_per_s": round(moves / args.duration, 1),
        "updates_per_s": round(updates / args.duration, 1),
        "missed_updates": missed,
        "errors": sum(errors.values()),
        "error_reasons": errors,
        "stream_errors": stream_errors,
        "delivery_ms": {
            name: num(getattr(delivery, f"{name}_ms")) for name in ("p50", "p90", "p99", "max")
        },
        "cpu_share": {
            label: round((after[label] - before[label]) / elapsed, 3)
            for label in after
            if label in before
        },
    }
    if None not in rss and len(rss) == 2:
        # The server's resident memory before the streams and with all of them open.
        report["server_rss_mb"] = [round(r / 2**20, 1) for r in rss]
        report["server_bytes_per_stream"] = round((rss[1] - rss[0]) / len(opened))
    server_cpu = after.get("server", 0.0) - before.get("server", 0.0)
    if moves and updates and "server" in before:  # known: started here, or --server-pid
        scale = args.duration / elapsed
        report["server_us_per_move"] = round(server_cpu * scale / moves * 1e6, 1)
        report["server_us_per_update"] = round(server_cpu * scale / updates * 1e6, 1)
    if args.watch_split and cpu_per_move:
        report["split"] = split_figures(order, cpu_per_move, opened, args.watch_games)
    _print(report, out)
    return {"watch": report}


def _run(args: argparse.Namespace, target: str, recorded: tuple[Recorded, ...]) -> Any:
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if not args.no_uvloop:
        with contextlib.suppress(ImportError):
            factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(_measure(args, target, recorded))


def _print(report: dict[str, Any], out: TextIO) -> None:
    delivery = report["delivery_ms"]
    print(
        f"moves {report['moves_per_s']:,}/s, stream updates {report['updates_per_s']:,}/s,"
        f" missed {report['missed_updates']}, ApplyMove errors {report['error_reasons'] or 0},"
        f" streams failed {report['stream_errors'] or 0}",
        file=out,
    )
    print(
        "delivery (move sent -> update held) ms: "
        + ", ".join(f"{k} {v}" for k, v in delivery.items()),
        file=out,
    )
    shares = ", ".join(f"{k} {v:.0%}" for k, v in report["cpu_share"].items())
    print(f"cpu (share of one core): {shares}", file=out)
    if "server_us_per_update" in report:
        print(
            f"server CPU: {report['server_us_per_move']} us per move,"
            f" {report['server_us_per_update']} us per update delivered",
            file=out,
        )
    if "split" in report:
        split = report["split"]
        print(
            f"an extra stream's update, the halves in turn ({split['pairs']} pairs of"
            f" phases, {split['extra_streams_per_move']:g} more streams a move):"
            f" mean {split['mean_us']} us (standard error {split['sem_us']}), median"
            f" {split['median_us']} us; pairs: "
            + ", ".join(f"{x:g}" for x in split["us_per_extra_update"]),
            file=out,
        )
    if "server_bytes_per_stream" in report:
        before, after = report["server_rss_mb"]
        print(
            f"server memory: {before} MB before the streams, {after} MB with them open:"
            f" {report['server_bytes_per_stream']:,} bytes per stream",
            file=out,
        )
    if report["cpu_share"].get("client", 0) >= 0.9:
        print("warning: the load generator used 90% of a core or more", file=out)
