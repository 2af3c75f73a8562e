"""Pig Mau Mau's part of the generic tests (tests/engines/helpers.py: generic_of): its move space,
the option sets and sweep size of the move-space test (tests/engines/move_space.py says what a
move space is), and the scrambler of the secrets test (tests/reliability/test_secrets.py)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.pig_mau_mau_pb2 import PigMauMauMove, PigMauMauOptions, PigMauMauState
from tests.engines.move_space import Sweep
from tests.engines.pig_mau_mau import positions

# Options that reach every kind of move: the calls of the `mau` option.
OPTIONS: list[Message] = [PigMauMauOptions(), PigMauMauOptions(mau=True, finish_distance=30)]
# The quick sweep keeps the game to a few seconds (~3,000 move messages a seat: 41 card codes x
# 5 pigs x 5 colours x 3 calls).
SWEEP = Sweep(games=6, positions=5, full=False)


# --- Pig Mau Mau (pig_mau_mau.proto: card codes 0..38, PigColor 0..4, MauCall 0..2) ----------

PM_CARD_CODES = range(-1, 40)  # 0..38 are the deck; -1 and 39 are not cards
PIG_COLORS = range(0, 5)  # UNSPECIFIED, PINK, BROWN, BLACK, BEIGE
MAU_CALLS = range(0, 3)  # UNSPECIFIED, MAU, MAU_MAU


def moves(state: PigMauMauState, seat: int, full: bool = False) -> Iterator[PigMauMauMove]:
    move = PigMauMauMove
    yield move()
    yield move(draw=move.Draw())
    yield move(end_steps=move.EndSteps())
    yield move(decline_bet=move.DeclineBet())
    for color in PIG_COLORS:
        yield move(step_back=move.StepBack(pig=color))  # type: ignore[arg-type]
        yield move(place_bet=move.PlaceBet(color=color))  # type: ignore[arg-type]
    for card, pig, color, call in itertools.product(
        PM_CARD_CODES, PIG_COLORS, PIG_COLORS, MAU_CALLS
    ):
        play = move.PlayCard(card=card, pig=pig, color=color, call=call)  # type: ignore[arg-type]
        yield move(play=play)


def scrambled(state: PigMauMauState, viewer: int | None, rnd: random.Random) -> PigMauMauState:
    """The state with what `viewer` may not see changed (tests/engines/pig_mau_mau/positions.py)."""
    return positions.scrambled(state, viewer, rnd.getrandbits(32))
