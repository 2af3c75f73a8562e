"""Bot seats (`--bot-games N`): the server's CPU per move that its bot seats make.

N games are kept in play at once, every seat a bot of `--bot-level` (which needs the
operator key: a started server gets the bench's own), so the server plays them by itself:
each move decided from the seat's view, validated, applied and written with the
compare-and-set like an ApplyMove, without a call. The client only creates the games and
reads each one every POLL_S (GetGame, as a spectator) to count its moves and to see it end;
those reads are part of the server's CPU measured, and are reported. A finished game is
replaced by a new one (new seed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import random
import time
from collections.abc import Callable
from typing import Any, TextIO

import grpc

from croupier.bench.cpu import cpu_seconds, pin
from croupier.bench.load import reason_of
from croupier.bench.server import BENCH_OPERATOR_KEY, seats_of, server_for
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

DEFAULT_GAME = "one_card"
POLL_S = 0.5


class _Counter:
    def __init__(self) -> None:
        self.moves = 0  # moves seen by the reads, all games
        self.reads = 0
        self.finished = 0
        self.errors: dict[str, int] = {}


async def _lane(
    stub: GameServiceStub,
    args: argparse.Namespace,
    game: str,
    seats: int,
    number: int,
    counter: _Counter,
    end: float,
) -> None:
    chooser = random.Random(f"bot-games/{args.seed}/{number}")
    operator = (("authorization", f"Bearer {args.operator_key or BENCH_OPERATOR_KEY}"),)
    while time.perf_counter() < end:
        create = pb.CreateGameRequest(seats=seats, seed=chooser.getrandbits(63))
        getattr(create, game).SetInParent()
        create.bot_levels.extend([args.bot_level] * seats)
        try:
            created = await stub.CreateGame(create, metadata=operator, timeout=args.timeout)
            seen = 0
            while time.perf_counter() < end:
                await asyncio.sleep(POLL_S * (0.5 + chooser.random()))  # spread the reads
                got = await stub.GetGame(pb.GetGameRequest(name=created.name), timeout=10)
                counter.reads += 1
                counter.moves += got.view.move_count - seen
                seen = got.view.move_count
                if got.view.HasField("result"):
                    counter.finished += 1
                    break
        except grpc.RpcError as error:
            reason = reason_of(error)
            counter.errors[reason] = counter.errors.get(reason, 0) + 1
            await asyncio.sleep(POLL_S)


async def _measure(
    args: argparse.Namespace, target: str, pids: dict[str, int], game: str, seats: int
) -> dict[str, Any]:
    channel = grpc.aio.insecure_channel(target)
    stub = GameServiceStub(channel)
    counter = _Counter()
    start = time.perf_counter()
    window = (start + args.warmup, start + args.warmup + args.duration)
    lanes = [
        asyncio.create_task(_lane(stub, args, game, seats, n, counter, window[1]))
        for n in range(args.bot_games)
    ]
    try:
        await asyncio.sleep(max(0.0, window[0] - time.perf_counter()))
        moves, reads = counter.moves, counter.reads
        cpu = {label: sum(cpu_seconds(label, pid)) for label, pid in pids.items()}
        own = time.process_time()
        await asyncio.sleep(max(0.0, window[1] - time.perf_counter()))
        elapsed = time.perf_counter() - window[0]
        used = {label: sum(cpu_seconds(label, pid)) - cpu[label] for label, pid in pids.items()}
        moves, reads = counter.moves - moves, counter.reads - reads
        client = time.process_time() - own
    finally:
        await asyncio.gather(*lanes, return_exceptions=True)
        await channel.close()
    report: dict[str, Any] = {
        "game": game,
        "seats": seats,
        "bot_level": args.bot_level,
        "games_in_play": args.bot_games,
        "moves_per_s": round(moves / elapsed, 1),
        "reads_per_s": round(reads / elapsed, 1),
        "games_finished": counter.finished,
        "errors": counter.errors,
        "cpu_share": {label: round(v / elapsed, 3) for label, v in used.items()}
        | {"client": round(client / elapsed, 3)},
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    if moves and "server" in used:
        report["server_us_per_move"] = round(used["server"] / moves * 1e6, 1)
    return report


def run_bot_seats_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    game = (args.game or [DEFAULT_GAME])[0]
    seats = seats_of([game], args.seats)[game]
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    with server_for(args) as server:
        print(
            f"croupier-bench --bot-games: server at {server.target}; {args.bot_games} {game}"
            f" games ({seats} seats, every seat a {args.bot_level} bot) in play at once;"
            f" {args.warmup:g} s warm-up + {args.duration:g} s",
            file=out,
            flush=True,
        )
        factory: Callable[[], asyncio.AbstractEventLoop] | None = None
        if not args.no_uvloop:
            with contextlib.suppress(ImportError):
                factory = importlib.import_module("uvloop").new_event_loop
        with asyncio.Runner(loop_factory=factory) as runner:
            report = runner.run(_measure(args, server.target, server.pids, game, seats))
    shares = ", ".join(f"{k} {v:.0%}" for k, v in report["cpu_share"].items())
    print(
        f"bot moves {report['moves_per_s']:,}/s ({report['games_finished']} games finished),"
        f" GetGame reads {report['reads_per_s']}/s, errors {report['errors'] or 0};"
        f" cpu (share of one core): {shares}",
        file=out,
    )
    if "server_us_per_move" in report:
        print(
            f"server CPU: {report['server_us_per_move']} us per bot move (the reads included)",
            file=out,
        )
    return {"bot_games": report}
