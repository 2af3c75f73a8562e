"""The engine benchmark's loop with a playout count instead of a deadline, for instruction
counts that do not depend on the machine's load (docs/performance.md, "Engines: issue 22"):

    valgrind --tool=callgrind .venv/bin/python -m croupier.service.bench.engine_loop GAME SEATS N

Run it with N playouts and with 0 (the imports alone); the difference over the moves printed is
the cost per move of `bench_engine`'s loop.
"""

from __future__ import annotations

import random
import sys
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


if __name__ == "__main__":
    print(run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
