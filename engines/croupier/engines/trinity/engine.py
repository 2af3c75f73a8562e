"""The Trinity Engine: the interface wiring `setup`, `rules` (the one legality check and the
listing), `flow` (what follows a move) and `views`; it holds no rule of its own."""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.trinity import flow, rules, setup
from croupier.engines.trinity.views import (
    OWN_FIELDS,
    build_result,
    build_view,
    own_view,
    shared_view,
)
from croupier.v1.common_pb2 import GameResult
from croupier.v1.trinity_pb2 import (
    TrinityEvent,
    TrinityMove,
    TrinityOptions,
    TrinityState,
    TrinityView,
)


class TrinityEngine(Engine[TrinityOptions, TrinityState, TrinityView, TrinityMove, TrinityEvent]):
    game_type = "trinity"
    title = "Trinity"
    min_seats = 3
    max_seats = 3
    cooperative = True
    options_type = TrinityOptions
    state_type = TrinityState
    view_type = TrinityView
    move_type = TrinityMove
    event_type = TrinityEvent
    own_view_fields = OWN_FIELDS

    def new_game(
        self, options: TrinityOptions, seats: int, seed: int
    ) -> tuple[TrinityState, list[Emitted[TrinityEvent]]]:
        self.check_seats(seats)
        return setup.new_game(options, seats, seed)

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
        return flow.perform(state, seat, choice)

    def view(self, state: TrinityState, seat: int | None) -> TrinityView:
        return build_view(state, seat)

    def shared_view(self, state: TrinityState) -> TrinityView:
        return shared_view(state)

    def own_view(self, state: TrinityState, seat: int | None) -> tuple[bytes, ...]:
        return own_view(state, seat)

    def result(self, state: TrinityState) -> GameResult | None:
        return build_result(state)
