"""The What's Your Name? Engine: the interface wiring `setup`, `rules` (the one legality check
and the listing), `flow` (what follows a move) and `views`; it holds no rule of its own.

`apply` changes the caller's state in place after validating (no copy: the check runs before
any change, so a refused move changes nothing).
"""

from __future__ import annotations

from croupier.engines.core.engine import Emitted, Engine
from croupier.engines.core.errors import IllegalMove
from croupier.engines.whats_your_name import flow, rules, setup, views
from croupier.engines.whats_your_name.cards import code
from croupier.engines.whats_your_name.table import Out
from croupier.v1.common_pb2 import GameResult
from croupier.v1.whats_your_name_pb2 import (
    WhatsYourNameEvent,
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
    WhatsYourNameView,
)


class WhatsYourNameEngine(
    Engine[
        WhatsYourNameOptions,
        WhatsYourNameState,
        WhatsYourNameView,
        WhatsYourNameMove,
        WhatsYourNameEvent,
    ]
):
    game_type = "whats_your_name"
    title = "What's Your Name?"
    min_seats = 2
    max_seats = 6
    options_type = WhatsYourNameOptions
    state_type = WhatsYourNameState
    view_type = WhatsYourNameView
    move_type = WhatsYourNameMove
    event_type = WhatsYourNameEvent
    own_view_fields = views.OWN_FIELDS

    def new_game(
        self, options: WhatsYourNameOptions, seats: int, seed: int
    ) -> tuple[WhatsYourNameState, list[Emitted[WhatsYourNameEvent]]]:
        self.check_seats(seats)
        state, out = setup.new_game(options, seats, seed)
        flow.after_deal(state, out)
        return state, out

    def active_seats(self, state: WhatsYourNameState) -> list[int]:
        return rules.active_seats(state)

    def legal_moves(self, state: WhatsYourNameState, seat: int) -> list[WhatsYourNameMove]:
        return rules.legal_moves(state, seat)

    def apply(
        self, state: WhatsYourNameState, seat: int, move: WhatsYourNameMove
    ) -> list[Emitted[WhatsYourNameEvent]]:
        kind, rank = rules.parse(move)
        found = rules.violation(state, seat, kind, rank)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        out: Out = []
        if kind == "play":
            flow.commit(state, seat, code(seat, rank), False, out)
        elif kind == "take":
            flow.take(state, seat, rank, out)
        elif kind == "hide":
            flow.hide(state, seat, code(seat, rank), out)
        else:
            flow.use_mirror(state, seat, rank, out)
        return out

    def view(self, state: WhatsYourNameState, seat: int | None) -> WhatsYourNameView:
        return views.build_view(state, seat)

    def shared_view(self, state: WhatsYourNameState) -> WhatsYourNameView:
        return views.shared_view(state)

    def own_view(self, state: WhatsYourNameState, seat: int | None) -> tuple[bytes, ...]:
        return views.own_view(state, seat)

    def result(self, state: WhatsYourNameState) -> GameResult | None:
        return views.build_result(state)
