"""The playout digest: one hash of everything the engines do in seeded random playouts, to show
that a change to an engine's inner workings leaves its behaviour byte-identical.

For 20 seeded random playouts per game and seat count (each game's smallest and largest), it
hashes every event with its private versions (new_game's and every move's), every listed move of
the acting seat, the state and every seat's view (and the spectator's) after every move, and the
result. Run it before and after a change; the digests must be equal:

    .venv/bin/python -m croupier.bench.engine_digest [GAME ...]
"""

from __future__ import annotations

import hashlib
import random
import sys
from typing import Any

from croupier.engines.registry import GAMES

PLAYOUTS = 20


def _message(digest: Any, message: Any) -> None:
    data = b"-" if message is None else message.SerializeToString(deterministic=True)
    digest.update(len(data).to_bytes(4, "big"))
    digest.update(data)


def _events(digest: Any, emitted: list[Any]) -> None:
    digest.update(b"E%d" % len(emitted))
    for event in emitted:
        _message(digest, event.public)
        for seat in sorted(event.private):
            digest.update(b"P%d" % seat)
            _message(digest, event.private[seat])


def game_digest(game_type: str, seats: int, playouts: int = PLAYOUTS) -> tuple[str, int]:
    """The hex digest of `playouts` random playouts, and the moves they made."""
    engine: Any = GAMES[game_type]
    digest = hashlib.sha256()
    moves = 0
    for number in range(playouts):
        chooser = random.Random(number)
        state, emitted = engine.new_game(engine.options_type(), seats, 1000 + number)
        _events(digest, emitted)
        while True:
            _message(digest, state)
            for viewer in [*range(seats), None]:
                _message(digest, engine.view(state, viewer))
            result = engine.result(state)
            _message(digest, result)
            if result is not None:
                break
            active = engine.active_seats(state)
            digest.update(repr(active).encode())
            seat = chooser.choice(active)
            legal = engine.legal_moves(state, seat)
            for move in legal:
                _message(digest, move)
            _events(digest, engine.apply(state, seat, chooser.choice(legal)))
            moves += 1
    return digest.hexdigest(), moves


def main(argv: list[str]) -> None:
    for game_type in argv or sorted(GAMES):
        engine = GAMES[game_type]
        for seats in sorted({engine.min_seats, engine.max_seats}):
            found, moves = game_digest(game_type, seats)
            print(f"{game_type} {seats} {moves} {found}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
