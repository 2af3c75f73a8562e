"""The engine benchmark's loop with a playout count instead of a deadline, for instruction
counts that do not depend on the machine's load (docs/performance.md, "Probes"):

    valgrind --tool=callgrind .venv/bin/python -m croupier.bench.engine_loop \\
        GAME SEATS N [cpu]

Run it with N playouts and with 0 (the imports alone); the difference over the moves printed is
the cost per move of `bench_engine`'s loop, on the state message as the service plays. With
`cpu` it also prints the process's CPU seconds for the playouts and the moves per CPU second (a
rate that waiting for a busy core does not lower). GAME `rlcard_uno` plays N games of RLCard's
UNO through `env.step` the same way (SEATS is ignored; rlcard must be installed).
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from typing import Any

from croupier.engines.registry import GAMES


def run(game_type: str, seats: int, playouts: int) -> int:
    engine: Any = GAMES[game_type]
    options = engine.options_type()
    chooser = random.Random(11)
    result, active_seats, legal_moves, apply = (
        engine.result,
        engine.active_seats,
        engine.legal_moves,
        engine.apply,
    )
    moves = 0
    for _ in range(playouts):
        state, _ = engine.new_game(options, seats, chooser.getrandbits(63))
        while result(state) is None:
            seat = chooser.choice(active_seats(state))
            apply(state, seat, chooser.choice(legal_moves(state, seat)))
            moves += 1
    return moves


def uno_env() -> Any:
    return importlib.import_module("rlcard").make("uno", config={"seed": 11})


def run_uno(env: Any, games: int) -> int:
    """RLCard's UNO as `compare_with_uno` plays it (service/croupier/bench/engines.py)."""
    chooser = random.Random(11)
    steps = 0
    for _ in range(games):
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(chooser.choice(list(state["legal_actions"])))
            steps += 1
    return steps


if __name__ == "__main__":
    game, seats, count, flags = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    env = uno_env() if game == "rlcard_uno" else None  # made before the clock starts
    started = time.process_time()
    moves = run_uno(env, count) if env is not None else run(game, seats, count)
    if "cpu" in flags:
        cpu = time.process_time() - started
        print(f"{moves} {cpu:.3f} {moves / cpu:.0f}")
    else:
        print(moves)
