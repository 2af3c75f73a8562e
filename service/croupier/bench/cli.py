"""`croupier-bench`: how fast a Croupier server referees games, and how fast the engines are.

    croupier-bench                                   # start a server, all games, 32 in flight
    croupier-bench --concurrency 1                   # latency mode (blocking client calls)
    croupier-bench --server-cpus 0 --client-cpus 1   # server (and its Redis) and load on own cores
    croupier-bench --target HOST:PORT --server-pid PID --redis-url URL   # a server you started
                   (started with --benchmark-service --anonymous-rate-limit 0: Echo is the
                   baseline, and every CreateGame comes from this one address)
    croupier-bench --engines                         # the engines alone: no gRPC, no Redis
    croupier-bench --bots --games 1000               # strong bots against random ones
    croupier-bench --watchers 1000 --watch-games 16  # WatchGame streams while moves are made
    croupier-bench --watchers 64 --watch-games 16 --watch-split 10  # one more stream's update
    croupier-bench --stored-games 1000000            # the phases with 1M idle games in Redis
    croupier-bench --long-game 2000                  # per-move cost along a 2,000-move match
    croupier-bench --bot-games 32                    # moves made by the server's bot seats
    croupier-bench --table --games 1000              # seats playing over PlayGame sessions,
                   then over WatchGame + ListLegalMoves + ApplyMove, 1,000 games in flight
    croupier-bench --redis-cluster 3                 # the server on a local Redis Cluster
    croupier-bench --redis-tls                       # the server on a private Redis over TLS
    croupier-bench --server-arg=--workers=2          # any flag for the started server

The service benchmark measures, keeping `--concurrency` calls in flight, in phases:
the baseline, `croupier.v1.BenchmarkService/Echo` (a trivial call through the same server stack,
with the payload sizes of the measured ApplyMoves and a bearer credential); the replay, only
ApplyMove: complete games recorded with random bots are created again with the same seeds and
their moves sent in order (the top-level `apply_move` and `ratio`); and game play: bots play
through the API (ListLegalMoves, then a listed move through ApplyMove; GetGame once a game is
over; CreateGame for the next one), reported under `game_play`. Every figure is printed also
as a ratio to the baseline, so results compare across machines. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import __version__ as protobuf_version

from croupier.bench.bot_seats import run_bot_seats_bench
from croupier.bench.bots import run_bots_bench
from croupier.bench.cpu import parse_cpus, py_spy
from croupier.bench.engines import run_engine_bench
from croupier.bench.long_game import run_long_game_bench
from croupier.bench.service import run_service_bench
from croupier.bench.table import run_table_bench
from croupier.bench.watch import run_watch_bench
from croupier.messages import GAME_TYPES


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
        "--bots",
        action="store_true",
        help="bot strength: strong against random bots, engines alone (docs/bots.md)",
    )
    parser.add_argument(
        "--games",
        type=_positive(int),
        help="games per game type and kind (--bots; default 1000); games in flight (--table;"
        " default 32)",
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="One Card games of 4 seats played by their seats: over PlayGame sessions, then"
        " over WatchGame + ListLegalMoves + ApplyMove (docs/performance.md)",
    )
    parser.add_argument(
        "--processes", type=_positive(int), help="worker processes (--bots; default: 2 cores)"
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=GAME_TYPES,
        help="a game to play (repeatable; default all)",
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
    parser.add_argument(
        "--seats",
        type=_positive(int),
        help="seats per game, within each game's range (default: each game's maximum)",
    )
    parser.add_argument(
        "--target",
        help="host:port of a running server (default: start one), started with"
        " --benchmark-service --anonymous-rate-limit 0",
    )
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
    parser.add_argument(
        "--server-log-level",
        default="info",
        help="log level of the started server (default info, as deployed: one JSON line per"
        " call, written to /dev/null)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="deadline of each call")
    parser.add_argument("--seed", type=int, default=1, help="seed of games and bots")
    parser.add_argument(
        "--client",
        choices=("auto", "async", "blocking"),
        default="auto",
        help="how the load generator calls: grpc.aio, or blocking stubs (one call in flight per"
        " process; the calling thread waits on gRPC's completion queue, without the hop to an"
        " event loop); auto (default): blocking at one call in flight per process, else async",
    )
    parser.add_argument("--no-uvloop", action="store_true", help="client on the asyncio loop")
    parser.add_argument("--replay-only", action="store_true", help="skip the game-play phase(s)")
    parser.add_argument(
        "--redis-stats",
        action="store_true",
        help="Redis counters per move over the replay windows, and the memory of replayed"
        " games' keys (needs a known Redis)",
    )
    parser.add_argument("--no-redis-count", action="store_true", help="skip counting round trips")
    parser.add_argument("--no-rlcard", action="store_true", help="skip RLCard's UNO (--engines)")
    parser.add_argument(
        "--profile",
        help="py-spy record the server during the first replay phase: FILE.svg, .json or text",
    )
    parser.add_argument(
        "--watchers",
        type=_positive(int),
        help="the watcher benchmark: this many WatchGame streams while moves are applied",
    )
    parser.add_argument(
        "--watch-games", type=_positive(int), default=8, help="games the streams watch"
    )
    parser.add_argument(
        "--watch-rate", type=_positive(float), default=100.0, help="moves per second, all games"
    )
    parser.add_argument(
        "--watch-split",
        type=_positive(int),
        metavar="PAIRS",
        help="(--watchers) halve the games, the first half watched by one stream each, and"
        " send the moves to each half in turn: PAIRS pairs of phases give an extra stream's"
        " update",
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        metavar="FLAG",
        help="a flag for the started server, after the bench's own (repeatable; write"
        " --server-arg=--workers=2)",
    )
    parser.add_argument(
        "--redis-cluster",
        type=_positive(int),
        metavar="MASTERS",
        help="start a local Redis Cluster of this many masters for the started server",
    )
    parser.add_argument(
        "--redis-tls",
        action="store_true",
        help="the started server reaches its Redis over TLS (rediss://): a private redis-server"
        " with a throwaway certificate (openssl), or every node of --redis-cluster",
    )
    parser.add_argument(
        "--clock",
        type=_positive(int),
        metavar="SECONDS",
        help="replayed games get a turn clock of this many seconds per decision",
    )
    parser.add_argument(
        "--stored-games",
        type=_positive(int),
        metavar="N",
        help="fill Redis with N idle games (copies of real ones) before the phases",
    )
    parser.add_argument(
        "--long-game",
        type=_positive(int),
        metavar="MOVES",
        help="game length: per-move cost along a One Card match of this many moves",
    )
    parser.add_argument(
        "--bot-games",
        type=_positive(int),
        metavar="N",
        help="bot seats: N games in play whose every seat is the server's bot",
    )
    parser.add_argument(
        "--bot-level", default="random", choices=("random", "strong"), help="(--bot-games)"
    )
    parser.add_argument(
        "--operator-key", help="operator key of the --target server (--bot-games needs it)"
    )
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    return parser


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine() -> dict[str, Any]:
    """What the figures were measured on, written with every report: the CPU, how many the
    machine has, the system and Python, and the load average (1, 5 and 15 minutes) before the
    run, which shows whether other work shared the machine."""
    return {
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
        "protobuf": protobuf_version,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    command = shlex.join(["croupier-bench", *(sys.argv[1:] if argv is None else argv)])
    measured_on = machine()
    if args.games is None:
        args.games = 32 if args.table else 1000
    if args.target and (args.server_cpus or args.redis_cpus):
        parser.error("--server-cpus/--redis-cpus pin a server started here: not with --target")
    if args.client == "auto":
        args.client = "blocking" if args.concurrency <= args.client_processes else "async"
    elif args.client == "blocking" and args.concurrency > args.client_processes:
        parser.error(
            "--client blocking keeps one call in flight per process: raise"
            " --client-processes to --concurrency, or use --client async"
        )
    if args.target and (args.redis_cluster or args.server_arg or args.redis_tls):
        parser.error(
            "--redis-cluster/--redis-tls/--server-arg shape a server started here: not with"
            " --target"
        )
    if args.redis_tls and args.redis_url:
        parser.error("--redis-tls starts the server's Redis: give a rediss:// --redis-url instead")
    if args.stored_games and (args.redis_cluster or (args.target and not args.redis_url)):
        parser.error("--stored-games fills a single Redis: the started server's or --redis-url")
    if args.watch_split and not (args.watchers and args.watchers > args.watch_games > 1):
        parser.error(
            "--watch-split compares games watched by one stream with games watched by more:"
            " --watchers more than --watch-games, and --watch-games 2 or more"
        )
    if args.profile and py_spy() is None:
        parser.error("--profile needs py-spy on the PATH (pip install py-spy)")
    if args.bots:
        report = run_bots_bench(args, sys.stdout)
    elif args.engines:
        report = run_engine_bench(args, sys.stdout)
    elif args.watchers:
        report = run_watch_bench(args, sys.stdout)
    elif args.long_game:
        report = run_long_game_bench(args, sys.stdout)
    elif args.bot_games:
        report = run_bot_seats_bench(args, sys.stdout)
    elif args.table:
        report = run_table_bench(args, sys.stdout)
    else:
        report = run_service_bench(args, sys.stdout)
    if args.json:
        report = {**report, "command": command, "machine": measured_on}
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
