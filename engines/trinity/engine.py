"""The Trinity engine: new game, the single legality check, apply, views and result."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.trinity_pb2 import (
    TrinityEvent,
    TrinityMove,
    TrinityOptions,
    TrinityRow,
    TrinityState,
    TrinityView,
)
from engines.core import rng
from engines.core.cards import draw
from engines.core.engine import Emitted, Engine
from engines.core.errors import IllegalMove, InvalidOptions
from engines.trinity import rules
from engines.trinity.board import ROWS, SLOTS
from engines.trinity.cards import ALL_CARDS
from engines.trinity.play import perform, public, to_hand
from engines.trinity.views import build_result, build_view

HAND_SIZE = 6
# The three assignments whose turn order J, Q, K runs clockwise (TR-2.2), by J seat.
_CLOCKWISE = {
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


class TrinityEngine(Engine[TrinityOptions, TrinityState, TrinityView, TrinityMove, TrinityEvent]):
    game_id = "trinity"
    title = "Trinity"
    min_seats = 3
    max_seats = 3
    options_type = TrinityOptions
    state_type = TrinityState
    view_type = TrinityView
    move_type = TrinityMove
    event_type = TrinityEvent

    def new_game(
        self, options: TrinityOptions, seats: int, seed: int
    ) -> tuple[TrinityState, list[Emitted[TrinityEvent]]]:
        self.check_seats(seats)
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

    def active_seats(self, state: TrinityState) -> list[int]:
        seat = rules.active_seat(state)
        return [] if seat is None else [seat]

    def legal_moves(self, state: TrinityState, seat: int) -> list[TrinityMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: TrinityState, seat: int, move: TrinityMove
    ) -> list[Emitted[TrinityEvent]]:
        choice = rules.decode(move)
        if (found := rules.check(rules.Position(state, seat), choice)) is not None:
            raise IllegalMove(found.rule_id, found.message)
        events = perform(state, seat, choice)
        # C-6: a step with a single possible move (the last card to discard, the only possible
        # part of a 10 or an A) is made for the player.
        while state.step != rules.ACTION:
            actor = rules.active_seat(state)
            if actor is None:
                break
            forced = rules.forced_choice(state, actor)
            if forced is None:
                break
            events += perform(state, actor, forced)
        return events

    def view(self, state: TrinityState, seat: int | None) -> TrinityView:
        return build_view(state, seat)

    def result(self, state: TrinityState) -> GameResult | None:
        return build_result(state)
