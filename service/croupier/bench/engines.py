"""The engine benchmark: random legal playouts with the engines alone (no gRPC, no Redis), the
stored sizes of their states and move logs, and RLCard's UNO for comparison."""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from typing import Any, TextIO

from google.protobuf.internal import api_implementation

from croupier.bench.cpu import cpus_text, pin
from croupier.bench.server import seats_of

MAX_PLAYOUT_MOVES = 50_000


def bench_engine(
    engine: Any, seats: int, seconds: float, seed: int, size_seconds: float | None = None
) -> dict[str, Any]:
    """Random legal playouts with the engine alone: per move, the acting seats, the legal moves
    of one of them, one move chosen and applied (validated by the engine)."""
    from croupier.v1.storage_pb2 import LoggedMove, StoredGame

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
    # one 32-byte credential hash and an empty display name per seat), and each playout's move
    # log (the LoggedMove entries the service appends).
    state_sizes: list[int] = []
    stored_sizes: list[int] = []
    log_sizes: list[int] = []
    chooser = random.Random(seed)
    size_deadline = time.perf_counter() + (seconds / 3 if size_seconds is None else size_seconds)
    for _ in range(playouts):
        state, _ = engine.new_game(options, seats, chooser.getrandbits(63))
        stored = StoredGame(
            game_type=engine.game_type,
            display_names=[""] * seats,
            credential_hashes=[b"h" * 32] * seats,
        )
        logged = LoggedMove()
        wrapped = getattr(logged.move, engine.game_type)
        log_bytes = 0
        while True:
            stored.state.Pack(state)  # as the service stores a game
            state_sizes.append(state.ByteSize())
            stored_sizes.append(stored.ByteSize())
            if result(state) is not None:
                break
            seat = chooser.choice(active_seats(state))
            move = chooser.choice(legal_moves(state, seat))
            logged.seat = seat
            wrapped.CopyFrom(move)
            log_bytes += logged.ByteSize()
            apply(state, seat, move)
            stored.move_count += 1
        log_sizes.append(log_bytes)
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
        "log_bytes_max": max(log_sizes),
        "log_bytes_mean": round(sum(log_sizes) / len(log_sizes), 1),
        "sized_games": len(log_sizes),
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
        f"{engine.game_type}_moves_per_s": round(own_rate, 1),
        f"{engine.game_type}_over_uno": round(own_rate / uno_rate, 3),
    }


def run_engine_bench(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    from croupier.engines.registry import GAMES

    if args.client_cpus:
        pin(os.getpid(), args.client_cpus)
    games: list[str] = args.game or list(GAMES)
    report: dict[str, Any] = {"engines": {}}
    print(
        f"croupier-bench --engines: {args.duration:g} s per game, protobuf"
        f" {api_implementation.Type()}, pid {os.getpid()} on cpus"
        f" {cpus_text(frozenset(os.sched_getaffinity(0)))}\n"
        f"{'game':<17}{'seats':>6}{'moves/s':>10}{'moves/game':>11}{'playouts':>9}"
        f"{'state B max/mean':>19}{'stored B max/mean':>20}{'log B/game max/mean':>22}",
        file=out,
        flush=True,
    )
    for game in games:
        engine = GAMES.get(game)
        try:
            if engine is None:
                raise KeyError(f"no engine registered for {game!r}")
            seats = seats_of([game], args.seats)[game]
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
            f"{entry['stored_bytes_max']:>10,} / {entry['stored_bytes_mean']:<7,.0f}"
            f"{entry['log_bytes_max']:>11,} / {entry['log_bytes_mean']:<7,.0f}",
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
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    return report
