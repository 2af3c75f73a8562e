"""The service benchmark's report as text."""

from __future__ import annotations

import argparse
import math
from typing import Any, TextIO

from croupier.bench.cpu import cpus_text
from croupier.bench.play import RPCS
from croupier.bench.server import Server
from croupier.bench.stats import ratio

COLUMNS = ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms")


def header(
    args: argparse.Namespace,
    server: Server,
    games: list[str],
    seats: dict[str, int],
    processes: int,
) -> str:
    where = (
        f"started here (pid {server.pids['server']})" if server.started else f"at {server.target}"
    )
    pinning = (
        f"server cpus {cpus_text(args.server_cpus)}, client cpus {cpus_text(args.client_cpus)}"
        if args.server_cpus or args.client_cpus
        else "not pinned"
    )
    return (
        f"croupier-bench: server {where}; {args.concurrency} in flight from {processes} client"
        f" process(es), {args.channels} channel(s) each, {args.client} calls; {pinning}\n"
        f"  games: {', '.join(f'{g} ({seats[g]} seats)' for g in games)};"
        f" phases of {args.warmup:g} s warm-up + {args.duration:g} s measured"
        + (f"\n  server flags added: {' '.join(args.server_arg)}" if args.server_arg else "")
        + (f"; Redis Cluster of {args.redis_cluster} masters" if args.redis_cluster else "")
        + ("; Redis over TLS" if getattr(args, "redis_tls", False) else "")
        + (f"; turn clock {args.clock} s per decision" if args.clock else "")
    )


def _cell(value: float, base: float | None) -> str:
    if math.isnan(value):
        return "-"
    text = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
    return text if base is None else f"{text} ({ratio(value, base):.2f}x)"


def _fig(entry: dict[str, Any], name: str) -> float:
    value = entry.get(name)
    return math.nan if value is None else float(value)


def _table(rows: list[tuple[str, dict[str, Any], bool]], base: dict[str, Any], out: TextIO) -> None:
    for label, entry, with_ratio in rows:
        cells = [_cell(_fig(entry, c), _fig(base, c) if with_ratio else None) for c in COLUMNS]
        print(
            f"{label:<26}{cells[0]:>18}{cells[1]:>17}{cells[2]:>17}{cells[3]:>17}{cells[4]:>17}"
            f"{entry['errors']:>8}",
            file=out,
        )


def print_service(report: dict[str, Any], out: TextIO) -> None:
    base, games = report["baseline"], report["config"]["games"]
    print(
        f"\n{'rpc':<26}{'calls/s':>18}{'p50 ms':>17}{'p90 ms':>17}{'p99 ms':>17}"
        f"{'max ms':>17}{'errors':>8}",
        file=out,
    )
    rows = [("baseline (Echo)", base, False), ("apply_move (replay)", report["apply_move"], True)]
    rows += [(f"  {game}", report[game], True) for game in games]
    rows += [("create_game (replay)", report["replay"]["create_game"], False)]
    _table(rows, base, out)
    play = report.get("game_play")
    if play:
        print("game play (ListLegalMoves + ApplyMove per move):", file=out)
        rows = [(f"  {rpc}", play[rpc], rpc != "create_game") for rpc in RPCS]
        rows += [(f"    {game}", play["games"][game], True) for game in games]
        _table(rows, base, out)
    print("(per game: its ApplyMove calls; ratios in parentheses are to the baseline's)", file=out)
    line = f"\nratio (replayed ApplyMove calls/s over baseline calls/s): {report['ratio']}"
    if play:
        line += (
            f"; game play: ApplyMove {play['ratio']}, all game RPCs"
            f" {play['all_game_rpcs']['ratio']}"
        )
    print(line, file=out)
    apply = report["apply_move"]
    print(
        f"payload (request/response bytes): ApplyMove {apply['request_bytes']}/"
        f"{apply['response_bytes']}, baseline {base['request_bytes']}/{base['response_bytes']}"
        f"; games replayed to the end: {report['replay']['games_replayed']}",
        file=out,
    )
    _print_cpu(report["cpu"], out)
    _print_redis(report.get("redis"), out)
    if report["errors"]:
        print("errors: " + ", ".join(f"{k} x{v}" for k, v in report["errors"].items()), file=out)
    for warning in report["warnings"]:
        print(f"WARNING: {warning}", file=out)
    print(
        "\nTo measure the server and not the load generator, give each its own core(s):\n"
        "  croupier-bench --server-cpus 0 --client-cpus 1          (server and its Redis on"
        " core 0)\n"
        "  taskset -c 0 croupier-server --port 50051 --benchmark-service"
        " --anonymous-rate-limit 0 &  taskset -c 1 croupier-bench"
        " --target localhost:50051 --server-pid $!",
        file=out,
    )


def _print_cpu(cpu: dict[str, Any], out: TextIO) -> None:
    for phase, entry in cpu.items():
        parts = [f"client {'+'.join(f'{c:.0%}' for c in entry['client'])}"]
        parts += [
            f"{k} {entry[k]:.0%} (system {entry.get(k + '_sys') or 0:.0%})"
            for k in ("server", "redis")
            if entry.get(k) is not None
        ]
        extra = [
            f"{label} {entry[key]} us per {unit}"
            for label in ("server", "redis")
            for key, unit in ((f"{label}_us_per_call", "call"), (f"{label}_us_per_move", "move"))
            if entry.get(key) is not None
        ]
        if entry.get("server_switches_per_call") is not None:
            extra.append(f"server {entry['server_switches_per_call']} context switches per call")
        tail = f"; CPU: {', '.join(extra)}" if extra else ""
        print(f"cpu {phase} (share of one core): {', '.join(parts)}{tail}", file=out)


def _print_redis(redis: dict[str, Any] | None, out: TextIO) -> None:
    if not redis:
        return
    if "error" in redis:
        print(f"redis: not counted ({redis['error']})", file=out)
        return
    for rpc in RPCS:
        if rpc in redis:
            r = redis[rpc]
            commands = ", ".join(f"{k} {v:g}" for k, v in r["commands_per_call"].items())
            print(
                f"redis {rpc}: {r['round_trips_median']} round trip(s)"
                f" (min {r['round_trips_min']}, max {r['round_trips_max']}, {r['calls']} calls),"
                f" bytes in/out {r['net_input_bytes_median']:g}/{r['net_output_bytes_median']:g}"
                f" (median); commands per call: {commands}",
                file=out,
            )
    if redis.get("apply_move_monitor"):
        print("redis MONITOR of one ApplyMove: " + "; ".join(redis["apply_move_monitor"]), file=out)
    for phase, r in redis.get("replay", {}).items():
        if "error" in r:
            continue
        print(
            f"redis per move, {phase} window ({r['moves']} moves, {r['create_games']} games"
            f" created): {r['round_trips_per_move']} round trips,"
            f" {sum(r['commands_per_move'].values()):.2f} commands,"
            f" {r['net_input_bytes_per_move']:g} B in, {r['net_output_bytes_per_move']:g} B out,"
            f" used_memory +{r['used_memory_per_move']:g} B",
            file=out,
        )
    for game, g in redis.get("games", {}).items():
        print(
            f"redis keys of a finished {game} ({g['games']} games, mean): {g['moves_mean']:g}"
            f" moves; StoredGame {g['stored_bytes_mean']:g} B (game key"
            f" {g['game_key_memory_mean']:g} B in memory); log {g['log_bytes_mean']:g} B"
            f" ({g['log_key_memory_mean']:g} B); per move record {g['record_bytes_mean']:g} B"
            f" ({g['record_key_memory_mean']:g} B)",
            file=out,
        )
