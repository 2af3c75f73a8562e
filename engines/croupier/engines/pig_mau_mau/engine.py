"""The Pig Mau Mau Engine: the interface wiring `setup`, `rules` (the one legality check and the
listing), `flow` (what follows a move) and `views`; it holds no rule of its own."""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.pig_mau_mau import flow, rules, setup, views
from croupier.v1.common_pb2 import GameResult
from croupier.v1.pig_mau_mau_pb2 import (
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauOptions,
    PigMauMauState,
    PigMauMauView,
)


class PigMauMauEngine(
    Engine[PigMauMauOptions, PigMauMauState, PigMauMauView, PigMauMauMove, PigMauMauEvent]
):
    game_type = "pig_mau_mau"
    title = "Pig Mau Mau"
    min_seats = 2
    max_seats = 5
    options_type = PigMauMauOptions
    state_type = PigMauMauState
    view_type = PigMauMauView
    move_type = PigMauMauMove
    event_type = PigMauMauEvent
    own_view_fields = views.OWN_FIELDS

    def new_game(
        self, options: PigMauMauOptions, seats: int, seed: int
    ) -> tuple[PigMauMauState, list[Emitted[PigMauMauEvent]]]:
        self.check_seats(seats)
        return setup.new_game(options, seats, seed)

    def active_seats(self, state: PigMauMauState) -> list[int]:
        return [] if state.phase == flow.OVER else [state.turn]

    def legal_moves(self, state: PigMauMauState, seat: int) -> list[PigMauMauMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: PigMauMauState, seat: int, move: PigMauMauMove
    ) -> list[Emitted[PigMauMauEvent]]:
        kind = rules.check_form(move)
        found = rules.violation(state, seat, move, kind)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        return flow.perform(state, seat, move, kind)

    def timeout_move(self, state: PigMauMauState, seat: int) -> PigMauMauMove | None:
        return rules.timeout_move(state, seat)

    def view(self, state: PigMauMauState, seat: int | None) -> PigMauMauView:
        return views.build_view(state, seat)

    def shared_view(self, state: PigMauMauState) -> PigMauMauView:
        return views.shared_view(state)

    def own_view(self, state: PigMauMauState, seat: int | None) -> tuple[bytes, ...]:
        return views.own_view(state, seat)

    def result(self, state: PigMauMauState) -> GameResult | None:
        return views.build_result(state)


ENGINE = PigMauMauEngine()
