"""The Vampire Queen Engine: the interface wiring `setup`, `rules` (the one legality check and
the listing), `flow` (what follows a move) and `views`; it holds no rule of its own.

`apply` validates first (MalformedMove, then IllegalMove from `rules`) and only then changes
the caller's state in place: copying the state per move would cost more than the whole move.
"""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.vampire_queen import flow, rules, setup, views
from croupier.v1.common_pb2 import GameResult
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenEvent,
    VampireQueenMove,
    VampireQueenOptions,
    VampireQueenState,
    VampireQueenView,
)


class VampireQueenEngine(
    Engine[
        VampireQueenOptions,
        VampireQueenState,
        VampireQueenView,
        VampireQueenMove,
        VampireQueenEvent,
    ]
):
    game_type = "vampire_queen"
    title = "Vampire Queen"
    min_seats = 3
    max_seats = 12
    options_type = VampireQueenOptions
    state_type = VampireQueenState
    view_type = VampireQueenView
    move_type = VampireQueenMove
    event_type = VampireQueenEvent
    own_view_fields = views.OWN_FIELDS

    def new_game(
        self, options: VampireQueenOptions, seats: int, seed: int
    ) -> tuple[VampireQueenState, list[Emitted[VampireQueenEvent]]]:
        self.check_seats(seats)
        setup.check_options(options, seats)
        state, events = setup.set_up(options, seats, seed)
        flow.start_round(state, events)
        return state, events

    def active_seats(self, state: VampireQueenState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_moves(self, state: VampireQueenState, seat: int) -> list[VampireQueenMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: VampireQueenState, seat: int, move: VampireQueenMove
    ) -> list[Emitted[VampireQueenEvent]]:
        cards = rules.move_cards(move)
        found = rules.violation(state, seat, cards)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        if cards is None:
            return flow.pass_turn(state, seat)
        return flow.play(state, seat, cards)

    def view(self, state: VampireQueenState, seat: int | None) -> VampireQueenView:
        return views.build_view(state, seat)

    def shared_view(self, state: VampireQueenState) -> VampireQueenView:
        return views.shared_view(state)

    def own_view(self, state: VampireQueenState, seat: int | None) -> tuple[bytes, ...]:
        return views.own_view(state, seat)

    def result(self, state: VampireQueenState) -> GameResult | None:
        return views.build_result(state)
