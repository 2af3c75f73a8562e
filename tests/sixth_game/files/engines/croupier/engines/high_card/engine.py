"""The High Card Engine: the interface wiring `setup`, `rules` (the one legality check and the
listing), `flow` (what follows a move) and `views`; it holds no rule of its own."""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.high_card import flow, rules, setup, views
from croupier.v1.common_pb2 import GameResult
from croupier.v1.high_card_pb2 import (
    HighCardEvent,
    HighCardMove,
    HighCardOptions,
    HighCardState,
    HighCardView,
)


class HighCardEngine(
    Engine[HighCardOptions, HighCardState, HighCardView, HighCardMove, HighCardEvent]
):
    game_type = "high_card"
    title = "High Card"
    min_seats = 2
    max_seats = 4
    options_type = HighCardOptions
    state_type = HighCardState
    view_type = HighCardView
    move_type = HighCardMove
    event_type = HighCardEvent

    def new_game(
        self, options: HighCardOptions, seats: int, seed: int
    ) -> tuple[HighCardState, list[Emitted[HighCardEvent]]]:
        self.check_seats(seats)
        return setup.new_game(options, seats, seed)

    def active_seats(self, state: HighCardState) -> list[int]:
        return rules.active_seats(state)

    def legal_moves(self, state: HighCardState, seat: int) -> list[HighCardMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: HighCardState, seat: int, move: HighCardMove
    ) -> list[Emitted[HighCardEvent]]:
        card = rules.parse(move)
        found = rules.violation(state, seat, card)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        return flow.play(state, seat, card)

    def view(self, state: HighCardState, seat: int | None) -> HighCardView:
        return views.build_view(state, seat)

    def result(self, state: HighCardState) -> GameResult | None:
        return views.build_result(state)
