"""The bot strength benchmark (`croupier-bench --bots`): engine-only games, no gRPC, no Redis.

For every competitive game: `--games` games of one strong bot against random bots, the strong
seat rotating over the positions (game i: seat i mod seats), and as many games of random bots
only, with the same seeds, as the measured fair share (ties and a winnerless result count as
the game's result says: a seat wins when it is among `GameResult.winners`). For Trinity
(cooperative): three strong bots against three random ones, the team's win rate. Every rate
comes with its 95% Wilson interval; the strong bots' decision times (view, legal moves and
choice, as the service will do them) are given as p50 / p99 / max, in wall-clock time and in the
deciding thread's CPU time (which leaves out the preemptions of a busy machine).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from croupier.bench.server import seats_of

Z95 = 1.959963984540054
COOPERATIVE = ("trinity",)
DEFAULT_SEATS = 4
CHUNK = 50


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    # Exact at the ends: no rounding residue below 0 or above 1.
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return (low, high)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def _strong_seats(mine: int) -> Callable[[int], bool]:
    """Which seats' decisions to time: every seat of a strong team (-2), else the strong one."""
    return lambda seat: mine == -2 or seat == mine


# Per game: the strong seat (-1: none, -2: all), the winners, decision wall and CPU seconds.
Played = tuple[int, list[int], list[float], list[float]]


def _play_chunk(task: tuple[str, str, int, int, int, int]) -> list[Played]:
    """Games `first`..`first + count - 1` of one kind; per game: the strong seat (-1: none),
    the winners and the strong seats' decision times (wall clock, CPU)."""
    from croupier.engines.core.bots import Bot, bot_for, play_game
    from croupier.engines.registry import GAMES

    game, kind, seats, seed, first, count = task
    engine = GAMES[game]
    strong, weak = bot_for(game, "strong"), bot_for(game, "random")
    out = []
    for index in range(first, first + count):
        if kind == "team_strong":
            bots: list[Bot] = [strong] * seats
            mine = -2
        elif kind == "one_strong":
            mine = index % seats
            bots = [strong if seat == mine else weak for seat in range(seats)]
        else:
            bots, mine = [weak] * seats, -1
        played = play_game(engine, bots, seed * 1_000_003 + index, timed=_strong_seats(mine))
        wall = played.decision_seconds if mine != -1 else []
        cpu = played.decision_cpu_seconds if mine != -1 else []
        out.append((mine, list(played.result.winners), wall, cpu))
    return out


def _run(pool: Any, game: str, kind: str, seats: int, seed: int, games: int) -> list[Played]:
    tasks = [
        (game, kind, seats, seed, first, min(CHUNK, games - first))
        for first in range(0, games, CHUNK)
    ]
    results: list[Played] = []
    for chunk in pool.imap(_play_chunk, tasks):
        results.extend(chunk)
    return results


def _rate(wins: int, games: int) -> dict[str, Any]:
    low, high = wilson(wins, games)
    return {
        "wins": wins,
        "games": games,
        "rate": wins / games if games else 0.0,
        "ci95": [low, high],
    }


def _fmt(rate: dict[str, Any]) -> str:
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:5.1f}% [{100 * low:4.1f}, {100 * high:4.1f}]"


def run_bots_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    from croupier.engines.registry import GAMES

    games_per_type: int = args.games
    games: list[str] = args.game or list(GAMES)
    processes = args.processes or min(2, os.cpu_count() or 1)
    started = time.perf_counter()
    report: dict[str, Any] = {"bots": {}}
    print(
        f"croupier-bench --bots: {games_per_type} games per game type and kind,"
        f" {processes} processes, seed {args.seed}",
        file=out,
        flush=True,
    )
    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    with context.Pool(processes) as pool:
        for game in games:
            engine = GAMES[game]
            default = engine.max_seats if game in COOPERATIVE else DEFAULT_SEATS
            seats = seats_of([game], args.seats or default)[game]
            game_started = time.perf_counter()
            if game in COOPERATIVE:
                strong = _run(pool, game, "team_strong", seats, args.seed, games_per_type)
                weak = _run(pool, game, "random", seats, args.seed, games_per_type)
                entry: dict[str, Any] = {
                    "seats": seats,
                    "team_strong": _rate(sum(bool(w) for _, w, _, _ in strong), len(strong)),
                    "team_random": _rate(sum(bool(w) for _, w, _, _ in weak), len(weak)),
                }
            else:
                strong = _run(pool, game, "one_strong", seats, args.seed, games_per_type)
                weak = _run(pool, game, "random", seats, args.seed, games_per_type)
                positions = []
                for seat in range(seats):
                    mine = [w for s, w, _, _ in strong if s == seat]
                    positions.append(_rate(sum(seat in w for w in mine), len(mine)))
                entry = {
                    "seats": seats,
                    "strong_by_seat": positions,
                    "strong": _rate(sum(s in w for s, w, _, _ in strong), len(strong)),
                    # A random seat's share of wins among random bots, over every seat.
                    "random_fair_share": _rate(
                        sum(len(w) for _, w, _, _ in weak), len(weak) * seats
                    ),
                    "equal_share": 1 / seats,
                }
            wall = [t for _, _, times, _ in strong for t in times]
            cpu = [t for _, _, _, times in strong for t in times]
            entry["decision_ms"] = {
                "decisions": len(wall),
                "p50": round(1000 * percentile(wall, 0.50), 3),
                "p99": round(1000 * percentile(wall, 0.99), 3),
                "max": round(1000 * max(wall, default=0.0), 3),
                "cpu_p50": round(1000 * percentile(cpu, 0.50), 3),
                "cpu_p99": round(1000 * percentile(cpu, 0.99), 3),
                "cpu_max": round(1000 * max(cpu, default=0.0), 3),
            }
            entry["seconds"] = round(time.perf_counter() - game_started, 1)
            report["bots"][game] = entry
            _print_game(game, entry, out)
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["config"] = {
        "games": games_per_type,
        "seed": args.seed,
        "processes": processes,
        "python": sys.version.split()[0],
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    print(f"run time {report['seconds']:.1f} s", file=out, flush=True)
    return report


def _print_game(game: str, entry: dict[str, Any], out: TextIO) -> None:
    timing = entry["decision_ms"]
    print(f"\n{game} ({entry['seats']} seats, {entry['seconds']:.1f} s)", file=out)
    print(
        f"  strong decisions ({timing['decisions']:,}), ms: wall p50 {timing['p50']:.3f}"
        f" p99 {timing['p99']:.3f} max {timing['max']:.3f}; CPU p50 {timing['cpu_p50']:.3f}"
        f" p99 {timing['cpu_p99']:.3f} max {timing['cpu_max']:.3f}",
        file=out,
    )
    if "team_strong" in entry:
        strong, weak = entry["team_strong"], entry["team_random"]
        print(f"  team of 3 strong  win rate {_fmt(strong)}", file=out)
        print(f"  team of 3 random  win rate {_fmt(weak)}", file=out)
        # A ratio that holds with both intervals: the strong team's lower bound over the
        # random team's upper bound (random teams may win no game at all).
        bound = strong["ci95"][0] / weak["ci95"][1]
        print(f"  strong / random   at least {bound:.1f}x (CI low / CI high)", file=out, flush=True)
        return
    print(f"  {'strong seat':<18}{'win rate [95% CI]':<24}{'games':>6}", file=out)
    for seat, rate in enumerate(entry["strong_by_seat"]):
        print(f"  {seat:<18}{_fmt(rate):<24}{rate['games']:>6}", file=out)
    print(f"  {'any':<18}{_fmt(entry['strong']):<24}{entry['strong']['games']:>6}", file=out)
    fair = entry["random_fair_share"]
    print(
        f"  fair share: random seat among random bots {_fmt(fair)}"
        f" (1/{entry['seats']} = {100 * entry['equal_share']:.1f}%)",
        file=out,
        flush=True,
    )
