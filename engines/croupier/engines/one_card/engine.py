"""The Tobot One Card Engine: the interface wiring `setup`, `rules` (the one legality check and
the listing), `flow` (what follows a move) and `views`; it holds no rule of its own."""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.one_card import flow, rules, setup, views
from croupier.v1.common_pb2 import GameResult
from croupier.v1.one_card_pb2 import (
    OneCardEvent,
    OneCardMove,
    OneCardOptions,
    OneCardState,
    OneCardView,
)


class OneCardEngine(Engine[OneCardOptions, OneCardState, OneCardView, OneCardMove, OneCardEvent]):
    game_type = "one_card"
    title = "Tobot One Card"
    min_seats = 2
    max_seats = 10
    options_type = OneCardOptions
    state_type = OneCardState
    view_type = OneCardView
    move_type = OneCardMove
    event_type = OneCardEvent
    own_view_fields = views.OWN_FIELDS

    def new_game(
        self, options: OneCardOptions, seats: int, seed: int
    ) -> tuple[OneCardState, list[Emitted[OneCardEvent]]]:
        self.check_seats(seats)
        setup.validate(options, seats)
        state = setup.new_state(options, seats, seed)
        dealer, by_lot = setup.first_dealer(state)
        events = setup.deal_game(state, dealer, by_lot)
        events += flow.automatic_steps(state)
        return state, events

    def active_seats(self, state: OneCardState) -> list[int]:
        return rules.active_seats(state)

    def legal_moves(self, state: OneCardState, seat: int) -> list[OneCardMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: OneCardState, seat: int, move: OneCardMove
    ) -> list[Emitted[OneCardEvent]]:
        act = rules.parse_move(move, state.seats)
        found = rules.violation(state, seat, act)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        return flow.apply_act(state, seat, act)

    def view(self, state: OneCardState, seat: int | None) -> OneCardView:
        return views.view(state, seat)

    def shared_view(self, state: OneCardState) -> OneCardView:
        return views.shared_view(state)

    def own_view(self, state: OneCardState, seat: int | None) -> tuple[bytes, ...]:
        return views.own_view(state, seat)

    def result(self, state: OneCardState) -> GameResult | None:
        return views.result(state)
