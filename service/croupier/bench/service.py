"""The service benchmark: record games with the bots, then run the phases (replay, baseline,
game play) from one or more client processes, and report."""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

from croupier.bench.client_process import run_client
from croupier.bench.cpu import pin
from croupier.bench.printing import header, print_service
from croupier.bench.replay import lanes_per_game, record_games
from croupier.bench.report import service_report
from croupier.bench.server import Server, seats_of, server_for
from croupier.bench.spec import ClientSpec, Phase
from croupier.bench.stats import Sample
from croupier.messages import GAME_TYPES

GAP_S = 0.3  # between phases: the last calls of one drain before the next starts


def schedule(args: argparse.Namespace, games: list[str], start: float) -> tuple[Phase, ...]:
    """The replay phase(s), the baseline (sized like the replayed ApplyMoves), then the
    game-play phase(s): with --separately one per game, else one with all games mixed."""
    groups = [(g,) for g in games] if args.separately else [tuple(games)]

    def of(kind: str) -> list[tuple[str, Any, tuple[str, ...]]]:
        return [(f"{kind}:{g[0]}" if args.separately else kind, kind, g) for g in groups]

    planned = [
        *of("replay"),
        ("baseline", "baseline", ()),
        *([] if args.replay_only else of("game_play")),
    ]
    length = args.warmup + args.duration + GAP_S
    return tuple(
        Phase(name, kind, group, start + number * length, args.warmup, args.duration)
        for number, (name, kind, group) in enumerate(planned)
    )


def _spec(args: argparse.Namespace, server: Server, seats: dict[str, int], **kw: Any) -> ClientSpec:
    return ClientSpec(
        target=server.target,
        index=0,
        concurrency=args.concurrency,
        channels=args.channels,
        seats=seats,
        seed=args.seed,
        timeout=args.timeout,
        uvloop=not args.no_uvloop,
        blocking=args.client == "blocking",
        cpus=args.client_cpus,
        phases=(),
        clock_seconds=args.clock or 0,
        **kw,
    )


def run_service_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    games: list[str] = args.game or GAME_TYPES
    seats = seats_of(games, args.seats)
    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    started = time.perf_counter()
    recorded = record_games(games, seats, args.seed)
    record_s = time.perf_counter() - started
    with server_for(args) as server:
        stored = None
        if args.stored_games:
            from croupier.bench import stored as stored_games

            assert server.redis_url, "--stored-games needs the server's Redis"
            stored = stored_games.fill(
                server.redis_url, server.target, recorded, args.stored_games, args.seed,
                args.timeout, out,
            )  # fmt: skip
        base = _spec(args, server, seats, recorded=recorded)
        processes = max(1, args.client_processes)
        lead = 0.2 if processes == 1 else 2.0 + 0.3 * processes
        phases = schedule(args, games, time.time() + lead)
        specs = []
        for i in range(processes):
            concurrency = args.concurrency // processes + (i < args.concurrency % processes)
            specs.append(
                dataclasses.replace(
                    base,
                    index=i,
                    concurrency=concurrency,
                    phases=phases,
                    monitor=server.pids if i == 0 else {},
                    profile=args.profile if i == 0 else None,
                    profile_pid=server.pids.get("server"),
                    redis_url=server.redis_url if i == 0 and args.redis_stats else None,
                )
            )
        specs = [s for s in specs if s.concurrency > 0]
        print(header(args, server, games, seats, len(specs)), file=out, flush=True)
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
        redis_counts = _redis_counts(args, server, games, seats, phases, merged)
        if stored is not None and server.redis_url:
            stored["expiry"] = stored_games.expiry_probe(
                server.redis_url, server.target, args.seed, out
            )
    report = service_report(args, server, phases, merged, games, seats, redis_counts)
    types = 1 if args.separately else len(games)
    report["replay"]["games_in_play"] = sum(
        types * lanes_per_game(s.concurrency, types) for s in specs
    )
    report["replay"]["recording_s"] = round(record_s, 3)
    report["replay"]["recorded"] = {
        game: {
            "games": len(games_),
            "moves_mean": round(sum(len(r.moves) for r in games_) / len(games_), 1),
        }
        for game, games_ in recorded.items()
    }
    if stored is not None:
        report["stored_games"] = stored
    print_service(report, out)
    return report


def _redis_counts(
    args: argparse.Namespace,
    server: Server,
    games: list[str],
    seats: dict[str, int],
    phases: tuple[Phase, ...],
    samples: list[Sample],
) -> dict[str, Any] | None:
    """Round trips per call (one call at a time) and, with --redis-stats, the memory of the
    keys of replayed games; None without a known Redis."""
    if not server.redis_url or args.no_redis_count or server.cluster:
        return None
    from croupier.bench.redis_stats import count_round_trips, game_memory

    try:
        counts = count_round_trips(
            server.target, server.redis_url, games[0], seats[games[0]], args.seed
        )
        if args.redis_stats:
            names: dict[str, list[str]] = {}
            for phase, sample in zip(phases, samples, strict=True):
                if phase.kind == "replay":
                    for game, found in sample.finished_names.items():
                        names.setdefault(game, []).extend(found)
            counts["games"] = game_memory(server.redis_url, names)
    except Exception as exc:  # report, do not lose the run
        return {"error": f"{type(exc).__name__}: {exc}"}
    return counts
