"""The server under test: one started here (and its private Redis), or one given by --target."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

from croupier.bench.cpu import affinity, find_redis_child, pin
from croupier.local import LocalServer


@dataclass
class Server:
    target: str
    started: bool
    pids: dict[str, int]  # "server", "redis": whose CPU is measured
    redis_url: str | None


@contextlib.contextmanager
def server_for(args: argparse.Namespace) -> Iterator[Server]:
    if args.target:
        pids = {"server": args.server_pid} if args.server_pid else {}
        yield Server(args.target, False, pids, args.redis_url)
        return
    # Echo (the baseline) is served only when asked; and every CreateGame of the benchmark
    # comes from this one address, so the per-address limit of calls without a credential is
    # off (a --target server must be started the same way: docs/performance.md).
    server = LocalServer(
        args.redis_url,
        log_level=args.server_log_level,
        extra_args=("--benchmark-service", "--anonymous-rate-limit", "0"),
    )
    own = frozenset(os.sched_getaffinity(0))
    with affinity(args.server_cpus):  # the server process inherits the affinity
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


def seats_of(games: list[str], seats: int | None) -> dict[str, int]:
    """Seats of each game: `seats` within the game's range, or by default its largest count
    (the heaviest states and views), from the registry."""
    try:
        from engines.registry import GAMES
    except Exception:
        return dict.fromkeys(games, seats or 4)
    out = {}
    for game in games:
        engine = GAMES.get(game)
        if engine is None:
            out[game] = seats or 4
        else:
            out[game] = min(max(seats or engine.max_seats, engine.min_seats), engine.max_seats)
    return out
