"""Trinity's part of the generic tests (tests/engines/helpers.py: generic_of): its move space,
the option sets and sweep size of the move-space test (tests/engines/move_space.py says what a
move space is), and the scrambler of the secrets test (tests/reliability/test_secrets.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.trinity_pb2 import TrinityMove, TrinityOptions, TrinityState
from tests.engines.move_space import Sweep
from tests.engines.trinity import test_properties

# Options that reach every kind of move: they change when the game ends.
OPTIONS: list[Message] = [
    TrinityOptions(),
    TrinityOptions(advanced=True, stop_when_unwinnable=True),
]
# The quick sweep keeps the game to a few seconds (~500 move messages a seat).
SWEEP = Sweep(games=8, positions=8, full=False)


# --- Trinity (trinity.proto: card codes 1..54, slots 1..4, TrinityRow 1..3) -------------------

TR_CARD_CODES = range(0, 56)  # 1..54 are the deck; 0 is "no card", 55 is not a card
TR_SLOTS = range(0, 6)  # 1..4 are slots
TR_ROWS = range(0, 4)  # UNSPECIFIED, J, Q, K


def moves(state: TrinityState, seat: int, full: bool = False) -> Iterator[TrinityMove]:
    move = TrinityMove
    yield move()
    yield move(skip=move.Skip())
    for card in TR_CARD_CODES:
        yield move(place=move.Place(card=card))
        yield move(use=move.Use(card=card))
        yield move(discard_two=move.DiscardTwo(card=card))
        yield move(reveal=move.Reveal(card=card))
        yield move(discard=move.Discard(card=card))
        yield move(give=move.Give(card=card))
    for slot in TR_SLOTS:
        yield move(target_slot=move.TargetSlot(slot=slot))
    for own, row, other in itertools.product(TR_SLOTS, TR_ROWS, TR_SLOTS):
        swap = move.Swap(own_slot=own, other_row=row, other_slot=other)  # type: ignore[arg-type]
        yield move(swap=swap)


# The secrets test's scrambler (tests/reliability/test_secrets.py): the state with what a seat
# may not see changed.
scrambled = test_properties.scrambled
