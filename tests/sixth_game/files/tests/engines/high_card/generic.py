"""High Card's part of the generic tests (tests/engines/helpers.py: generic_of): its move space,
the option sets and sweep size of the move-space test, and the scrambler of the secrets test."""

from __future__ import annotations

import random
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.high_card_pb2 import HighCardMove, HighCardOptions, HighCardState
from tests.engines.move_space import Sweep

# Every kind of move is reached with the default options; one card each ends at once.
OPTIONS: list[Message] = [HighCardOptions(), HighCardOptions(hand_size=1)]
SWEEP = Sweep(games=6, positions=6, full=False)


def moves(state: HighCardState, seat: int, full: bool = False) -> Iterator[HighCardMove]:
    """Every card 1..12 and a value just outside at each end, and the empty move."""
    yield HighCardMove()
    for card in range(0, 14):
        yield HighCardMove(play=HighCardMove.Play(card=card))


def scrambled(state: HighCardState, viewer: int | None, rnd: random.Random) -> HighCardState:
    """The state with the other hands' cards exchanged among them (sizes kept) and the
    generator moved: what `viewer` may not see (HC-5.4)."""
    other = HighCardState()
    other.CopyFrom(state)
    others = [seat for seat in range(state.seats) if seat != viewer]
    pool = [card for seat in others for card in other.hands[seat].cards]
    rnd.shuffle(pool)
    for seat in others:
        size = len(other.hands[seat].cards)
        del other.hands[seat].cards[:]
        other.hands[seat].cards.extend(sorted(pool[:size]))
        pool = pool[size:]
    other.rng.draws += 5
    return other
