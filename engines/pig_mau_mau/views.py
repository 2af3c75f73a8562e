"""What each seat sees (PM-8, C-4), built positively from the public facts plus the viewer's
own hand and own bet colour."""

from __future__ import annotations

from croupier.v1.pig_mau_mau_pb2 import (
    PigColor,
    PigMauMauBet,
    PigMauMauPhase,
    PigMauMauState,
    PigMauMauView,
)
from engines.pig_mau_mau.cards import card_message
from engines.pig_mau_mau.race import RACES, totals


def build_view(state: PigMauMauState, seat: int | None) -> PigMauMauView:
    hidden = PigColor.PIG_COLOR_UNSPECIFIED
    row = [
        PigMauMauBet(seat=bet.seat, color=bet.color if bet.seat == seat else hidden)
        for bet in state.bet_row
    ]
    my_bet = next((bet.color for bet in state.bet_row if bet.seat == seat), hidden)
    view = PigMauMauView(
        race=state.race,
        races=RACES,
        race_start_seat=state.race_start_seat,
        phase=state.phase,
        finish=state.finish,
        pigs=list(state.pigs),
        top_card=card_message(state.discard_pile[-1]),
        discard_size=len(state.discard_pile),
        draw_size=len(state.draw_pile),
        hand_sizes=[len(hand.cards) for hand in state.hands],
        bet_row=row,
        my_bet=my_bet,
        pending_draw=state.pending_draw,
        required_color=state.required_color,
        steps_left=state.steps_left,
        race_scores=state.race_scores,
        totals=totals(state),
        mau=state.options.mau,
    )
    if state.phase != PigMauMauPhase.PIG_MAU_MAU_PHASE_OVER:
        view.turn = state.turn
    if seat is not None:
        view.hand.extend(card_message(c) for c in sorted(state.hands[seat].cards))
    return view
