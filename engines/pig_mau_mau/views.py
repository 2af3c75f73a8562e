"""What each seat sees (PM-8, C-4), built positively from the public facts plus the viewer's
own hand and own bet colour; the result: most points after four races (PM-6.5)."""

from __future__ import annotations

from functools import cache
from typing import Final

from croupier.engines.core.cards import field_encodings
from croupier.engines.core.scoring import build_result as build_result_of
from croupier.engines.pig_mau_mau.cards import CARD_MESSAGES
from croupier.engines.pig_mau_mau.flow import OVER, RACES, totals
from croupier.v1.common_pb2 import GameResult
from croupier.v1.pig_mau_mau_pb2 import (
    PigColor,
    PigMauMauBet,
    PigMauMauPhase,
    PigMauMauState,
    PigMauMauView,
)

# By card code, the encoding of each card field: a view merges its cards (and bets) in one
# parse (croupier.engines.core.cards.field_encodings).
_HAND: Final = field_encodings(CARD_MESSAGES, lambda card: PigMauMauView(hand=[card]))
_TOP_CARD: Final = field_encodings(CARD_MESSAGES, lambda card: PigMauMauView(top_card=card))


@cache
def _bet(seat: int, color: PigColor.ValueType) -> bytes:
    """The encoding of a view holding just this bet in `bet_row` (merged as the cards are).
    Cached: there are only seats x colours of them, and none depends on a game."""
    return PigMauMauView(bet_row=[PigMauMauBet(seat=seat, color=color)]).SerializeToString()


def build_view(state: PigMauMauState, seat: int | None) -> PigMauMauView:
    # Every repeated or message field read from `state` makes a new wrapper object, so each is
    # read once; scalars go in as constructor keywords (set in C).
    hidden = PigColor.PIG_COLOR_UNSPECIFIED
    discard = state.discard_pile
    merged = [_TOP_CARD[discard[-1]]]
    my_bet = hidden
    for bet in state.bet_row:
        if bet.seat == seat:  # a seat has one bet at most (PM-5.2)
            my_bet = bet.color
            merged.append(_bet(seat, my_bet))
        else:
            merged.append(_bet(bet.seat, hidden))
    phase = state.phase
    hands = state.hands
    view = PigMauMauView(
        race=state.race,
        races=RACES,
        race_start_seat=state.race_start_seat,
        phase=phase,
        turn=state.turn if phase != PigMauMauPhase.PIG_MAU_MAU_PHASE_OVER else None,
        finish=state.finish,
        pigs=state.pigs,
        discard_size=len(discard),
        draw_size=len(state.draw_pile),
        hand_sizes=[len(hand.cards) for hand in hands],
        my_bet=my_bet,
        pending_draw=state.pending_draw,
        required_color=state.required_color,
        steps_left=state.steps_left,
        race_scores=state.race_scores,
        totals=totals(state),
        mau=state.options.mau,
    )
    if seat is not None:
        merged += [_HAND[c] for c in sorted(hands[seat].cards)]
    view.MergeFromString(b"".join(merged))
    return view


def build_result(state: PigMauMauState) -> GameResult | None:
    if state.phase != OVER:
        return None
    return build_result_of(
        totals(state),
        lower_is_better=False,
        summary="most points after four races wins; ties share the win",
    )
