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


@cache
def _my_bet(color: PigColor.ValueType) -> bytes:
    """The encoding of a view holding just `my_bet` (nothing for a hidden colour)."""
    return PigMauMauView(my_bet=color).SerializeToString()


# The view's fields that differ between audiences: the viewer's own hand, the bet row (each bet
# face down but the viewer's own) and the viewer's own bet colour.
OWN_FIELDS: Final[tuple[int, ...]] = (
    PigMauMauView.HAND_FIELD_NUMBER,
    PigMauMauView.BET_ROW_FIELD_NUMBER,
    PigMauMauView.MY_BET_FIELD_NUMBER,
)


def build_view(state: PigMauMauState, seat: int | None) -> PigMauMauView:
    return shared_view(state, b"".join(own_view(state, seat)))


def own_view(state: PigMauMauState, seat: int | None) -> tuple[bytes, bytes, bytes]:
    """The encoded `hand`, `bet_row` and `my_bet` of `seat`'s view."""
    hidden = PigColor.PIG_COLOR_UNSPECIFIED
    my_bet = hidden
    bets = []
    for bet in state.bet_row[:]:
        if bet.seat == seat:  # a seat has one bet at most (PM-5.2)
            my_bet = bet.color
            bets.append(_bet(seat, my_bet))
        else:
            bets.append(_bet(bet.seat, hidden))
    hand = b"" if seat is None else b"".join([_HAND[c] for c in sorted(state.hands[seat].cards[:])])
    return hand, b"".join(bets), _my_bet(my_bet)


def shared_view(state: PigMauMauState, own: bytes = b"") -> PigMauMauView:
    """Every audience's view but its own fields, with `own` (an audience's encoded own fields)
    merged in the same parse as the top card."""
    # Every repeated or message field read from `state` makes a new wrapper object, so each is
    # read once; scalars go in as constructor keywords (set in C).
    discard = state.discard_pile
    phase = state.phase
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
        hand_sizes=[len(hand.cards) for hand in state.hands[:]],
        pending_draw=state.pending_draw,
        required_color=state.required_color,
        steps_left=state.steps_left,
        race_scores=state.race_scores,
        totals=totals(state),
        mau=state.options.mau,
    )
    view.MergeFromString(_TOP_CARD[discard[-1]] + own)
    return view


def build_result(state: PigMauMauState) -> GameResult | None:
    if state.phase != OVER:
        return None
    return build_result_of(
        totals(state),
        lower_is_better=False,
        summary="most points after four races wins; ties share the win",
    )
