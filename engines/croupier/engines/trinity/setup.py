"""Setting up a Trinity game (TR-2): the shuffled deck and six cards to each hand (TR-2.1), the
rows and the turn order from the `rows` option (TR-2.2), the J row's player first."""

from __future__ import annotations

from typing import Final

from croupier.engines.core import rng
from croupier.engines.core.cards import draw
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.trinity import rules
from croupier.engines.trinity.board import ROWS, SLOTS
from croupier.engines.trinity.cards import ALL_CARDS
from croupier.engines.trinity.flow import public, to_hand
from croupier.v1.trinity_pb2 import TrinityEvent, TrinityOptions, TrinityRow, TrinityState

HAND_SIZE: Final = 6
# The three assignments whose turn order J, Q, K runs clockwise (TR-2.2), by J seat.
_CLOCKWISE: Final = {
    (TrinityRow.TRINITY_ROW_J, TrinityRow.TRINITY_ROW_Q, TrinityRow.TRINITY_ROW_K): 0,
    (TrinityRow.TRINITY_ROW_K, TrinityRow.TRINITY_ROW_J, TrinityRow.TRINITY_ROW_Q): 1,
    (TrinityRow.TRINITY_ROW_Q, TrinityRow.TRINITY_ROW_K, TrinityRow.TRINITY_ROW_J): 2,
}


def j_seat_of(options: TrinityOptions) -> int:
    """The seat owning the J row, from the `rows` option (TR-2.2)."""
    if not options.rows:
        return 0
    chosen = tuple(options.rows)
    if len(chosen) != ROWS or sorted(chosen) != [1, 2, 3]:
        raise InvalidOptions("rows", "rows must name each of J, Q and K once, in seat order")
    if chosen not in _CLOCKWISE:
        raise InvalidOptions(
            "rows",
            "turn order J, Q, K must run clockwise (TR-2.2): use [J, Q, K], [K, J, Q] or [Q, K, J]",
        )
    return _CLOCKWISE[chosen]


def new_game(
    options: TrinityOptions, seats: int, seed: int
) -> tuple[TrinityState, list[Emitted[TrinityEvent]]]:
    j_seat = j_seat_of(options)
    state = TrinityState(options=options, rng=rng.seeded(seed), seats=seats, j_seat=j_seat)
    deck = list(ALL_CARDS)
    rng.shuffle(state.rng, deck)
    state.deck.extend(deck)
    state.board.extend([0] * (ROWS * SLOTS))
    events: list[Emitted[TrinityEvent]] = []
    for seat in range(seats):
        cards = draw(state.deck, HAND_SIZE)
        state.hands.add().cards.extend(cards)
        events.append(to_hand("dealt", seat, cards))
    state.turn = j_seat
    state.step = rules.ACTION
    began = TrinityEvent()
    began.turn_began.seat = j_seat
    events.append(public(began))
    return state, events
