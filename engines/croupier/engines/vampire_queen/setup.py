"""Setting up a Vampire Queen game: the options checked (VQ-2.4 rounds), Hunter 15 to
`first_hunter_seat` (or a drawn seat) and Hunter 20 to its left (VQ-2.1). Dealing a round
(VQ-2.2) recurs every round (VQ-4.4), so it is `flow.start_round`, which the engine runs next.
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.core.seats import left
from croupier.engines.vampire_queen.cards import HUNTER_15, HUNTER_20, typed
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenEvent,
    VampireQueenOptions,
    VampireQueenState,
)

Event = VampireQueenEvent
Events = list[Emitted[VampireQueenEvent]]

DEFAULT_ROUNDS: Final = 5
MAX_ROUNDS: Final = 20


def rounds_of(options: VampireQueenOptions) -> int:
    """The number of rounds (VQ-2.4): the option, or 5 when it is 0."""
    return options.rounds or DEFAULT_ROUNDS


def check_options(options: VampireQueenOptions, seats: int) -> None:
    if not 0 <= options.rounds <= MAX_ROUNDS:
        raise InvalidOptions("rounds", f"rounds must be 1..{MAX_ROUNDS} (0 for the default 5)")
    if options.HasField("first_hunter_seat") and not 0 <= options.first_hunter_seat < seats:
        raise InvalidOptions("first_hunter_seat", f"first_hunter_seat must be 0..{seats - 1}")


def set_up(options: VampireQueenOptions, seats: int, seed: int) -> tuple[VampireQueenState, Events]:
    """A new game: Hunters given out (VQ-2.1), round 1 dealt (VQ-2.2), first phase started."""
    state = VampireQueenState(seats=seats, rng=rng.seeded(seed))
    state.options.CopyFrom(options)
    drawn = not options.HasField("first_hunter_seat")
    first = rng.below(state.rng, seats) if drawn else options.first_hunter_seat
    second = left(first, seats)
    for _ in range(seats):
        state.hands.add()
    state.hands[first].cards.extend(typed([HUNTER_15]))
    state.hands[second].cards.extend(typed([HUNTER_20]))
    events: Events = [
        Emitted(
            Event(
                hunters_dealt=Event.HuntersDealt(
                    hunter_15_seat=first, hunter_20_seat=second, drawn=drawn
                )
            )
        )
    ]
    return state, events
