"""The generic random playout every engine must survive (one test over all games).

At every step it checks that only the active seats have moves, that the move a timeout stands
for (where the rules name one) is one of them, that a listed move applies, that a move by a seat
that may not act is refused with the state's bytes unchanged, that the state encodes and decodes
to the same bytes, and at the end that the game is over and that replaying the seed and move log
gives the same bytes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.engines.registry import AnyEngine
from tests.engines.helpers import encode

MAX_MOVES = 20_000


def play_randomly(
    engine: AnyEngine, options: Any, seats: int, seed: int, *, check_every_step: bool = True
) -> tuple[Any, list[tuple[int, Any]]]:
    """Play one game to the end with uniformly random legal moves; return state and log."""
    chooser = random.Random(seed)
    state, _ = engine.new_game(options, seats, seed)
    again, _ = engine.new_game(options, seats, seed)
    assert encode(state) == encode(again), "new_game is not deterministic"
    log: list[tuple[int, Any]] = []
    while engine.result(state) is None:
        assert len(log) < MAX_MOVES, f"{engine.game_type} did not end after {MAX_MOVES} moves"
        active = engine.active_seats(state)
        assert active, "a game that is not over must have a seat that may act"
        if check_every_step:
            for seat in range(seats):
                listed = engine.legal_moves(state, seat)
                has_moves = bool(listed)
                assert has_moves == (seat in active), f"seat {seat}: moves={has_moves} {active=}"
                ruled = engine.timeout_move(state, seat)
                assert ruled is None or ruled in listed, f"seat {seat}: timeout {ruled} not legal"
        seat = chooser.choice(active)
        moves = engine.legal_moves(state, seat)
        move = chooser.choice(moves)
        if check_every_step:
            before = encode(state)
            for other in range(seats):
                if other not in active:
                    with pytest.raises((IllegalMove, MalformedMove)):
                        engine.apply(state, other, move)
                    assert encode(state) == before, "a refused move changed the state"
            with pytest.raises(MalformedMove):
                engine.apply(state, seat, engine.move_type())
            assert encode(state) == before, "a refused move changed the state"
        engine.apply(state, seat, move)
        log.append((seat, move))
        if check_every_step:
            data = encode(state)
            assert encode(engine.state_type.FromString(data)) == data
            for viewer in [*range(seats), None]:
                engine.view(state, viewer).SerializeToString()
    assert engine.active_seats(state) == []
    for seat in range(seats):
        assert engine.legal_moves(state, seat) == []
    replayed = engine.replay(engine.setup_of(state), log)
    assert encode(replayed) == encode(state), "replay from seed and log differs"
    return state, log
