"""The Vampire Queen engine: the Engine interface over `rules` (the one legality check),
`flow` (what happens after a move) and `views` (what each seat sees).

`apply` validates first (MalformedMove, then IllegalMove from `rules`) and only then changes
the caller's state in place: copying the state per move would cost more than the whole move.
"""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenEvent,
    VampireQueenMove,
    VampireQueenOptions,
    VampireQueenState,
    VampireQueenView,
)
from engines.core.engine import Emitted, Engine
from engines.core.errors import IllegalMove
from engines.core.scoring import build_result
from engines.vampire_queen import flow, rules, views
from engines.vampire_queen.cards import counts, typed


class VampireQueenEngine(
    Engine[
        VampireQueenOptions,
        VampireQueenState,
        VampireQueenView,
        VampireQueenMove,
        VampireQueenEvent,
    ]
):
    game_id = "vampire_queen"
    title = "Vampire Queen"
    min_seats = 3
    max_seats = 12
    options_type = VampireQueenOptions
    state_type = VampireQueenState
    view_type = VampireQueenView
    move_type = VampireQueenMove
    event_type = VampireQueenEvent

    def new_game(
        self, options: VampireQueenOptions, seats: int, seed: int
    ) -> tuple[VampireQueenState, list[Emitted[VampireQueenEvent]]]:
        self.check_seats(seats)
        flow.check_options(options, seats)
        return flow.set_up(options, seats, seed)

    def active_seats(self, state: VampireQueenState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_moves(self, state: VampireQueenState, seat: int) -> list[VampireQueenMove]:
        if rules.turn_violation(state, seat) is not None:
            return []
        sit = rules.situation(state)
        held = counts(state.hands[seat].cards)
        moves: list[VampireQueenMove] = []
        if rules.pass_violation(sit) is None:
            moves.append(VampireQueenMove(pass_turn=VampireQueenMove.Pass()))
        for cards in rules.candidates(sit, held):
            if rules.play_violation(sit, held, cards) is None:
                move = VampireQueenMove()
                move.play.cards.extend(typed(cards))  # four times faster than nested constructors
                moves.append(move)
        return moves

    def apply(
        self, state: VampireQueenState, seat: int, move: VampireQueenMove
    ) -> list[Emitted[VampireQueenEvent]]:
        cards = rules.move_cards(move)
        found = rules.turn_violation(state, seat)
        if found is None:
            sit = rules.situation(state)
            if cards is None:
                found = rules.pass_violation(sit)
            else:
                found = rules.play_violation(sit, counts(state.hands[seat].cards), cards)
        if found is not None:
            raise IllegalMove(found.rule_id, found.message)
        if cards is None:
            return flow.pass_turn(state, seat)
        return flow.play(state, seat, cards)

    def view(self, state: VampireQueenState, seat: int | None) -> VampireQueenView:
        return views.build_view(state, seat)

    def result(self, state: VampireQueenState) -> GameResult | None:
        if not state.over:
            return None
        return build_result(
            flow.totals(state),
            lower_is_better=True,
            summary="lowest total penalty wins (VQ-4.5); ties share the win",
        )
