"""Game length (`--long-game MOVES`): whether a move costs more as a match goes on.

One One Card match of at least MOVES moves is recorded with random bots (a match of
`wins_to_match` 5, the longest the options allow: several games, each dealt again), and
`--concurrency` copies of it are created on the server and replayed move by move, in step:
every copy plays the moves of one slice (MOVES / SLICES moves) before any starts the next.
For each slice: the server's CPU per move, ApplyMove latency, and the response's size. After
the last move: the move log's entries and Redis memory per move, and the stored state's size.
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
from croupier.bench.replay import request_id
from croupier.bench.server import seats_of, server_for
from croupier.bench.spec import Recorded
from croupier.bench.stats import Figures, Sample, num
from croupier.bots import RandomBot
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

GAME = "one_card"
WINS_TO_MATCH = 5  # the largest the rules allow (docs/games/one_card.md)
SLICES = 8


def record_long_match(seats: int, moves: int, seed: int) -> Recorded:
    """The first `moves` moves of a One Card match (random bots) at least that long."""
    from croupier.engines.registry import GAMES

    engine = GAMES[GAME]
    chooser = random.Random(f"long/{seed}")
    for _ in range(100):
        create = pb.CreateGameRequest(seats=seats, seed=chooser.getrandbits(63))
        create.one_card.wins_to_match = WINS_TO_MATCH
        bot = RandomBot(chooser.getrandbits(63))
        state, _ = engine.new_game(create.one_card, create.seats, create.seed)
        played: list[tuple[int, bytes]] = []
        while engine.result(state) is None and len(played) < moves:
            seat = bot.choose(engine.active_seats(state))
            move = bot.choose(engine.legal_moves(state, seat))
            wrapped = pb.Move(one_card=move)
            played.append((seat, wrapped.SerializeToString()))
            engine.apply(state, seat, move)
        if len(played) == moves:
            return Recorded(GAME, create.SerializeToString(), tuple(played))
    raise RuntimeError(f"no {GAME} match of {moves} moves in 100 seeds")


async def _measure(
    args: argparse.Namespace, target: str, pids: dict[str, int], match: Recorded
) -> dict[str, Any]:
    channel = grpc.aio.insecure_channel(target)
    stub = GameServiceStub(channel)
    create = pb.CreateGameRequest.FromString(match.create)
    moves = [(seat, pb.Move.FromString(move)) for seat, move in match.moves]
    lanes = []
    for _ in range(args.concurrency):
        created = await stub.CreateGame(create, timeout=args.timeout)
        metadata = [(("authorization", f"Bearer {c}"),) for c in created.seat_credentials]
        lanes.append((created.name, metadata))
    size = max(1, len(moves) // SLICES)
    slices: list[dict[str, Any]] = []
    errors = 0  # copies that failed a move (they stop there)
    try:
        for first in range(0, len(moves), size):
            sample = Sample()
            server_before = sum(cpu_seconds("server", pids["server"])) if "server" in pids else 0.0
            started, own = time.perf_counter(), time.process_time()
            part = moves[first : first + size]
            done = await asyncio.gather(
                *(_play(stub, args, lane, part, first, sample) for lane in lanes)
            )
            errors += len(done) - sum(done)
            elapsed = time.perf_counter() - started
            figures = Figures.of(sample, "apply_move", elapsed)
            row: dict[str, Any] = {
                "moves": [first + 1, min(first + size, len(moves))],
                "calls_per_s": num(figures.calls_per_s, 1),
                "p50_ms": num(figures.p50_ms),
                "p99_ms": num(figures.p99_ms),
                "response_bytes": num(figures.response_bytes, 1),
                "client_cpu_share": round((time.process_time() - own) / elapsed, 3),
            }
            if "server" in pids and figures.calls:
                server = sum(cpu_seconds("server", pids["server"])) - server_before
                row["server_us_per_move"] = round(server / figures.calls * 1e6, 1)
                row["server_cpu_share"] = round(server / elapsed, 3)
            slices.append(row)
    finally:
        await channel.close()
    return {"slices": slices, "errors": errors, "names": [name for name, _ in lanes]}


async def _play(
    stub: GameServiceStub,
    args: argparse.Namespace,
    lane: tuple[str, list[Any]],
    part: list[tuple[int, pb.Move]],
    first: int,
    sample: Sample,
) -> bool:
    """One copy's moves of one slice; False after a failed move."""
    name, metadata = lane
    latencies = sample.latency_list("apply_move")
    for position, (seat, move) in enumerate(part, first):
        request = pb.ApplyMoveRequest(name=name, move=move, request_id=request_id(position))
        sent = time.perf_counter()
        try:
            response = await stub.ApplyMove(request, metadata=metadata[seat], timeout=args.timeout)
        except grpc.RpcError:
            return False
        latencies.append(time.perf_counter() - sent)
        sample.response_bytes["apply_move"] += response.ByteSize()
    return True


def _log_figures(redis_url: str, name: str) -> dict[str, Any]:
    import redis

    from croupier.service.store import keys

    game_id = name.removeprefix("games/")
    with redis.Redis.from_url(redis_url) as client:
        entries: list[bytes] = client.lrange(keys.log(game_id), 0, -1)
        log_memory = int(client.memory_usage(keys.log(game_id), samples=0) or 0)
        game_memory = int(client.memory_usage(keys.game(game_id), samples=0) or 0)
        state = int(client.hstrlen(keys.game(game_id), "s"))
    count = len(entries)
    return {
        "entries": count,
        "entry_bytes_mean": round(sum(map(len, entries)) / count, 2) if count else None,
        "log_key_memory": log_memory,
        "log_memory_per_move": round(log_memory / count, 2) if count else None,
        "game_key_memory": game_memory,
        "stored_state_bytes": state,
    }


def run_long_game_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    seats = seats_of([GAME], args.seats)[GAME]
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    match = record_long_match(seats, args.long_game, args.seed)
    with server_for(args) as server:
        print(
            f"croupier-bench --long-game: server at {server.target}; {args.concurrency} copies"
            f" of one {GAME} match ({seats} seats, wins_to_match {WINS_TO_MATCH}), its first"
            f" {args.long_game:,} moves replayed in {SLICES} slices, in step",
            file=out,
            flush=True,
        )
        measured = _run(args, server.target, server.pids, match)
        log = None
        if server.redis_url and not server.cluster and measured["names"]:
            log = _log_figures(server.redis_url, measured["names"][0])
    report: dict[str, Any] = {
        "game": GAME,
        "seats": seats,
        "wins_to_match": WINS_TO_MATCH,
        "moves": args.long_game,
        "copies": args.concurrency,
        "target": server.target,
        "errors": measured["errors"],
        "slices": measured["slices"],
        "log": log,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    _print(report, out)
    return {"long_game": report}


def _run(
    args: argparse.Namespace, target: str, pids: dict[str, int], match: Recorded
) -> dict[str, Any]:
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if not args.no_uvloop:
        with contextlib.suppress(ImportError):
            factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(_measure(args, target, pids, match))


def _print(report: dict[str, Any], out: TextIO) -> None:
    print(
        f"{'moves':>13} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'server us/move':>15}"
        f" {'response B':>11}",
        file=out,
    )
    for row in report["slices"]:
        first, last = row["moves"]
        print(
            f"{first:>6,}-{last:<6,} {row['calls_per_s'] or 0:>9,.0f} {row['p50_ms'] or 0:>8.3f}"
            f" {row['p99_ms'] or 0:>8.3f} {row.get('server_us_per_move', '-'):>15}"
            f" {row['response_bytes'] or 0:>11,.0f}",
            file=out,
        )
    if report["errors"]:
        print(f"ApplyMove errors: {report['errors']}", file=out)
    log = report["log"]
    if log:
        print(
            f"move log: {log['entries']:,} entries of {log['entry_bytes_mean']} B,"
            f" {log['log_memory_per_move']} B of Redis memory per move"
            f" ({log['log_key_memory']:,} B); game hash {log['game_key_memory']:,} B"
            f" (state {log['stored_state_bytes']:,} B)",
            file=out,
        )
