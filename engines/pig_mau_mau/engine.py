"""The Pig Mau Mau engine: the Engine interface over cards, rules, turns, race and views."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.pig_mau_mau_pb2 import (
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauOptions,
    PigMauMauState,
    PigMauMauView,
)
from engines.core import rng
from engines.core.engine import Emitted, Engine
from engines.core.errors import IllegalMove, InvalidOptions
from engines.core.scoring import build_result
from engines.pig_mau_mau.cards import colour_index
from engines.pig_mau_mau.race import DEFAULT_FINISH, OVER, Event, start_race, totals
from engines.pig_mau_mau.rules import check_form, legal_moves, violation
from engines.pig_mau_mau.turns import begin_turn, bet, draw_instead, end_steps, play_card, step_back
from engines.pig_mau_mau.views import build_view

MAX_FINISH = 60


class PigMauMauEngine(
    Engine[PigMauMauOptions, PigMauMauState, PigMauMauView, PigMauMauMove, PigMauMauEvent]
):
    game_id = "pig_mau_mau"
    title = "Pig Mau Mau"
    min_seats = 2
    max_seats = 5
    options_type = PigMauMauOptions
    state_type = PigMauMauState
    view_type = PigMauMauView
    move_type = PigMauMauMove
    event_type = PigMauMauEvent

    def new_game(
        self, options: PigMauMauOptions, seats: int, seed: int
    ) -> tuple[PigMauMauState, list[Emitted[PigMauMauEvent]]]:
        self.check_seats(seats)
        if not 0 <= options.finish_distance <= MAX_FINISH:
            raise InvalidOptions(
                "finish_distance", f"finish_distance must be 0 (default) or 1..{MAX_FINISH}"
            )
        by_option = options.HasField("start_seat")
        if by_option and not 0 <= options.start_seat < seats:
            raise InvalidOptions("start_seat", f"start_seat must be a seat, 0..{seats - 1}")
        state = PigMauMauState(seats=seats, rng=rng.seeded(seed))
        state.options.CopyFrom(options)
        state.finish = options.finish_distance or DEFAULT_FINISH[seats]
        for _ in range(seats):
            state.hands.add()
        # PM-2.3 / C-3: the best oinker starts race 1.
        first = options.start_seat if by_option else rng.below(state.rng, seats)
        events: list[Emitted[PigMauMauEvent]] = [
            Emitted(Event(start_seat_chosen=Event.StartSeatChosen(seat=first, by_option=by_option)))
        ]
        start_race(state, 1, first, events)
        begin_turn(state, first, events)
        return state, events

    def active_seats(self, state: PigMauMauState) -> list[int]:
        return [] if state.phase == OVER else [state.turn]

    def legal_moves(self, state: PigMauMauState, seat: int) -> list[PigMauMauMove]:
        return legal_moves(state, seat)

    def apply(
        self, state: PigMauMauState, seat: int, move: PigMauMauMove
    ) -> list[Emitted[PigMauMauEvent]]:
        kind = check_form(move)
        found = violation(state, seat, move, kind)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        events: list[Emitted[PigMauMauEvent]] = []
        if kind == "play":
            play_card(state, seat, move.play, events)
        elif kind == "draw":
            draw_instead(state, seat, events)
        elif kind == "step_back":
            step_back(state, seat, colour_index(move.step_back.pig), events)
        elif kind == "end_steps":
            end_steps(state, seat, events)
        elif kind == "place_bet":
            bet(state, seat, colour_index(move.place_bet.color), events)
        else:
            bet(state, seat, None, events)
        return events

    def view(self, state: PigMauMauState, seat: int | None) -> PigMauMauView:
        return build_view(state, seat)

    def result(self, state: PigMauMauState) -> GameResult | None:
        if state.phase != OVER:
            return None
        return build_result(
            totals(state),
            lower_is_better=False,
            summary="most points after four races wins; ties share the win",
        )


ENGINE = PigMauMauEngine()
