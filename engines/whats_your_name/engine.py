"""The Engine subclass: new_game, active_seats, legal_moves, apply, view, result.

`apply` changes the caller's state in place after validating (no copy: the check runs before
any change, so a refused move changes nothing).
"""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_HIDE,
    WhatsYourNameEvent,
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
    WhatsYourNameView,
)
from engines.core import rng
from engines.core.engine import Emitted, Engine
from engines.core.errors import IllegalMove, InvalidOptions
from engines.whats_your_name import rounds, rules, views
from engines.whats_your_name.cards import RANKS, code, table_size, to_card
from engines.whats_your_name.setup import deal_game
from engines.whats_your_name.table import Event, Out, emit


class WhatsYourNameEngine(
    Engine[
        WhatsYourNameOptions,
        WhatsYourNameState,
        WhatsYourNameView,
        WhatsYourNameMove,
        WhatsYourNameEvent,
    ]
):
    game_id = "whats_your_name"
    title = "What's Your Name?"
    min_seats = 2
    max_seats = 6
    options_type = WhatsYourNameOptions
    state_type = WhatsYourNameState
    view_type = WhatsYourNameView
    move_type = WhatsYourNameMove
    event_type = WhatsYourNameEvent

    def new_game(
        self, options: WhatsYourNameOptions, seats: int, seed: int
    ) -> tuple[WhatsYourNameState, list[Emitted[WhatsYourNameEvent]]]:
        self.check_seats(seats)
        ages = list(options.youngest_seat)
        for seat in ages:
            if not 0 <= seat < seats:
                raise InvalidOptions("youngest_seat", f"there is no seat {seat}")
        if len(set(ages)) != len(ages):
            raise InvalidOptions("youngest_seat", "a seat may be listed only once")
        state = WhatsYourNameState(rng=rng.seeded(seed), seats=seats)
        state.options.CopyFrom(options)
        for _ in range(table_size(seats)):
            state.positions.add()
        out: Out = []
        deal_game(state, out)
        if state.phase != WHATS_YOUR_NAME_PHASE_HIDE:
            rounds.start_round(state, out)
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
            rounds.commit(state, seat, code(seat, rank), False, out)
        elif kind == "take":
            rounds.take(state, seat, rank, out)
        elif kind == "hide":
            rounds.hide(state, seat, code(seat, rank), out)
        else:
            _use_mirror(state, seat, rank, out)
        return out

    def view(self, state: WhatsYourNameState, seat: int | None) -> WhatsYourNameView:
        return views.build_view(state, seat)

    def result(self, state: WhatsYourNameState) -> GameResult | None:
        return views.build_result(state)


def _use_mirror(state: WhatsYourNameState, seat: int, rank: int, out: Out) -> None:
    """WN-7.2: discard the mirror with the holder's acquired card of `rank`."""
    acquired = state.positions[seat].acquired
    index = next(i for i, c in enumerate(acquired) if c % RANKS + 1 == rank)
    card = acquired[index]
    del acquired[index]
    state.discarded.append(card)
    state.ClearField("mirror_seat")
    emit(out, Event(mirror_used=Event.MirrorUsed(seat=seat, card=to_card(card))))
