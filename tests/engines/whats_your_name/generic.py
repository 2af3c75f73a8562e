"""What's Your Name?'s part of the generic tests (tests/engines/helpers.py: generic_of): its
move space, the option sets and sweep size of the move-space test (tests/engines/move_space.py
says what a move space is), and the scrambler of the secrets test
(tests/reliability/test_secrets.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.whats_your_name_pb2 import (
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.move_space import Sweep
from tests.engines.whats_your_name import test_properties

# Options that reach every kind of move: hidden cards and the mirror.
OPTIONS: list[Message] = [
    WhatsYourNameOptions(),
    WhatsYourNameOptions(hidden_card=True),
    WhatsYourNameOptions(hidden_card=True, match=True),
]
# The quick sweep keeps the game to a few seconds (~60 move messages a seat).
SWEEP = Sweep(games=12, positions=12, full=False)


# --- What's Your Name? (whats_your_name.proto: ranks 1..13) -----------------------------------

WN_RANKS = range(0, 15)  # 1..13 are ranks


def moves(state: WhatsYourNameState, seat: int, full: bool = False) -> Iterator[WhatsYourNameMove]:
    move = WhatsYourNameMove
    yield move()
    for rank in WN_RANKS:
        yield move(play=move.PlayCard(rank=rank))
        yield move(take=move.TakeCard(rank=rank))
        yield move(hide=move.HideCard(rank=rank))
        yield move(use_mirror=move.UseMirror(rank=rank))


def scrambled(
    state: WhatsYourNameState, viewer: int | None, rnd: random.Random
) -> WhatsYourNameState:
    """The state with what `viewer` may not see changed (its own scrambler needs no randomness)."""
    return test_properties.scrambled(state, viewer)
