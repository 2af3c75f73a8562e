"""Setting up a High Card game (HC-2): the option checked, the cards shuffled, each seat dealt
its hand (the rest set aside, HC-2.3), seat 0 to lead (HC-2.4)."""

from __future__ import annotations

from croupier.engines.core import rng
from croupier.engines.core.cards import draw
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.high_card.cards import CARDS, DEFAULT_HAND_SIZE
from croupier.v1.high_card_pb2 import HighCardEvent, HighCardOptions, HighCardState

Event = HighCardEvent
Events = list[Emitted[HighCardEvent]]


def new_game(options: HighCardOptions, seats: int, seed: int) -> tuple[HighCardState, Events]:
    if not 0 <= options.hand_size <= DEFAULT_HAND_SIZE:
        raise InvalidOptions("hand_size", "hand_size must be 1..3 (0 for the default 3)")
    state = HighCardState(seats=seats, rng=rng.seeded(seed))
    state.options.CopyFrom(options)
    deck = list(CARDS)
    rng.shuffle(state.rng, deck)
    size = options.hand_size or DEFAULT_HAND_SIZE
    events: Events = []
    for seat in range(seats):
        cards = sorted(draw(deck, size))
        state.hands.add(cards=cards)
        state.points.append(0)
        # HC-5.5: the seat sees its cards, the others the count.
        own = Event(dealt=Event.Dealt(seat=seat, count=size, cards=cards))
        events.append(Emitted(Event(dealt=Event.Dealt(seat=seat, count=size)), {seat: own}))
    state.leader = state.turn = 0
    return state, events
