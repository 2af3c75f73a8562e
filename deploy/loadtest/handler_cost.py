"""A probe, not a server to deploy: what croupier-server's servicer alone spends on an
ApplyMove, called in one process without gRPC, to tell a call's handler from the gRPC call
path around it (docs/performance.md, "Probes").

The servicer is the server's own (`GameService` and the benchmark's `Echo`, with the call
wrapper, the credential checks, the rate limits, the metrics and the call's log line, written
to /dev/null), on the in-memory store or on a Redis (`--redis-url`). Games of `--game` at its
most seats are created through CreateGame; each game's moves are chosen beforehand by a seeded
random player on the engine, then sent through ApplyMove, one at a time, each with its seat's
credential and a request id, as `croupier-bench --replay-only` sends them. With
`--concurrency N`, N games are played at once, each its moves in order: on Redis their calls
interleave while each waits for its write, as a server's calls do with N in flight. The
figure is the process's CPU time over those calls divided by their number; the event loop
runs between two calls, so each call's log line and metrics are counted with it. Echo is
measured the same way, one call at a time.

    .venv/bin/python deploy/loadtest/handler_cost.py --cpu 0 [--game one_card] [--redis-url URL] \
        [--concurrency 32] [--clock 3600] [--feed-moves]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
import uuid
from typing import Any, NoReturn

import uvloop

from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.application import config
from croupier.service.main import collect_less
from croupier.service.observability import logs
from croupier.service.observability.metrics import MeasuredStore
from croupier.service.store.memory_store import MemoryStore
from croupier.service.store.redis_store import RedisStore
from croupier.service.transport.benchmark import BenchmarkService
from croupier.service.transport.servicer import GameService
from croupier.v1 import benchmark_service_pb2 as bench_pb
from croupier.v1 import game_service_pb2 as pb


class Context:
    """What the servicer uses of `grpc.aio.ServicerContext`: a caller on loopback with no
    deadline; a refused call is a failure of the probe."""

    def __init__(self, credential: str | None = None) -> None:
        self._metadata = () if credential is None else (("authorization", f"Bearer {credential}"),)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:40000"

    def time_remaining(self) -> float | None:
        return None

    def set_trailing_metadata(self, metadata: Any) -> None:
        pass

    async def send_initial_metadata(self, metadata: Any) -> None:
        pass

    async def abort(self, code: Any, details: str = "", trailing_metadata: Any = ()) -> NoReturn:
        raise SystemExit(f"refused: {code} {details}")

    async def abort_with_status(self, status: Any) -> NoReturn:
        raise SystemExit(f"refused: {status}")


def random_moves(game: str, seats: int, seed: int, limit: int) -> list[tuple[int, Any]]:
    """The (seat, move) pairs of a seeded random player's game, at most `limit` of them."""
    engine = GAMES[game]
    state, _ = engine.new_game(options_for(game), seats, seed)
    chooser = random.Random(seed)
    moves: list[tuple[int, Any]] = []
    while engine.result(state) is None and len(moves) < limit:
        seat = chooser.choice(engine.active_seats(state))
        move = chooser.choice(engine.legal_moves(state, seat))
        engine.apply(state, seat, move)
        moves.append((seat, move))
    return moves


async def measure(args: argparse.Namespace) -> None:
    settings = config.parse(
        ["--anonymous-rate-limit", "0", *(["--feed-moves"] if args.feed_moves else [])], {}
    )
    store = MeasuredStore(
        RedisStore(args.redis_url, timeout=5.0) if args.redis_url else MemoryStore()
    )
    service = GameService(store, settings)
    seats = GAMES[args.game].max_seats
    games = []
    for index in range(args.games):
        seed = args.seed + index
        create = pb.CreateGameRequest(seats=seats, seed=seed)
        if args.clock:  # else no clock message at all, as before the option
            create.clock.seconds_per_decision = args.clock
        getattr(create, args.game).CopyFrom(options_for(args.game))
        created = await service.CreateGame(create, Context())
        requests = []
        for seat, move in random_moves(args.game, seats, seed, args.moves):
            request = pb.ApplyMoveRequest(name=created.name, request_id=str(uuid.uuid4()))
            getattr(request.move, args.game).CopyFrom(move)
            requests.append((request, Context(created.seat_credentials[seat])))
        games.append(requests)

    async def play(requests: list[tuple[pb.ApplyMoveRequest, Context]]) -> None:
        for request, context in requests:
            await service.ApplyMove(request, context)
            await asyncio.sleep(0)  # the call's log line and metrics (written after it)

    await asyncio.sleep(0)
    collect_less()  # as croupier-server does before it serves
    started = time.process_time()
    # `--concurrency` games at a time, each its moves in order: on Redis their calls interleave
    # while each waits for its write, as a server's calls do with that many in flight.
    for first in range(0, len(games), args.concurrency):
        await asyncio.gather(*(play(moves) for moves in games[first : first + args.concurrency]))
    cpu = time.process_time() - started
    calls = sum(len(moves) for moves in games)
    figure = f"{cpu / calls * 1e6:.1f} us per call, {calls} calls"
    print(f"ApplyMove ({args.game}, {seats} seats): {figure}")
    echo = BenchmarkService(service)
    echo_request = bench_pb.EchoRequest(payload=b"x" * 80, response_bytes=230)
    started = time.process_time()
    for _ in range(args.echoes):
        await echo.Echo(echo_request, Context())
        await asyncio.sleep(0)
    used = time.process_time() - started
    print(f"Echo: {used / args.echoes * 1e6:.1f} us per call, {args.echoes} calls")
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cpu", type=int, help="pin the process to this core")
    parser.add_argument("--game", choices=sorted(GAMES), default="one_card")
    parser.add_argument("--redis-url", help="a Redis to store the games in (default: memory)")
    parser.add_argument("--games", type=int, default=30, help="games played")
    parser.add_argument("--moves", type=int, default=300, help="moves per game at most")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once")
    parser.add_argument("--echoes", type=int, default=5000, help="Echo calls")
    parser.add_argument("--clock", type=int, default=0, help="a turn clock of this many seconds")
    parser.add_argument(
        "--feed-moves", action="store_true", help="every move in the event feed (the server's flag)"
    )
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first game")
    args = parser.parse_args()
    if args.concurrency < 1:
        parser.error("--concurrency is at least 1")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    # The calls' lines are written as the server writes them, to a file that keeps none
    # (logs.configure takes the stream it is given as sys.stderr; errors still show).
    real_stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # noqa: SIM115 (for the run)
    logs.configure("json", "info")
    sys.stderr = real_stderr
    uvloop.run(measure(args))


if __name__ == "__main__":
    main()
