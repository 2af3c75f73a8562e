"""What each seat sees (TR-6, C-4), built positively from the public facts and the seat's own
hand: never another seat's unrevealed cards, never the deck's content or order."""

from __future__ import annotations

from typing import Final

from croupier.engines.core.scoring import shared_result
from croupier.engines.trinity.board import ROWS, row_of_board
from croupier.engines.trinity.cards import BW_JOKER
from croupier.engines.trinity.rules import (
    ONGOING,
    gift_receiver,
    row_of_seat,
    row_value,
    seat_of_row,
)
from croupier.v1.common_pb2 import GameResult
from croupier.v1.trinity_pb2 import TrinityOutcome, TrinityState, TrinityStep, TrinityView

# The TrinityRow value of each row index, looked up rather than converted for every row.
ROW_VALUES: Final = tuple(row_value(row) for row in range(ROWS))


# The view's fields that differ between audiences: the viewer's own hand, and the card given
# during a gift (seen by its giver and its receiver).
OWN_FIELDS: Final[tuple[int, ...]] = (
    TrinityView.HAND_FIELD_NUMBER,
    TrinityView.GIFT_CARD_FIELD_NUMBER,
)


# By card code, the encoding of a view holding just that `gift_card`.
_GIFT_CARD: Final = tuple(
    TrinityView(gift_card=card).SerializeToString() for card in range(BW_JOKER + 1)
)


def own_view(state: TrinityState, seat: int | None) -> tuple[bytes, bytes]:
    """The encoded `hand` and `gift_card` of `seat`'s view."""
    hands = state.hands
    hand = b""
    if seat is not None and 0 <= seat < len(hands):
        hand = TrinityView(hand=hands[seat].cards).SerializeToString()
    gift = b""
    if state.step == TrinityStep.TRINITY_STEP_GIFT_DISCARD and seat in (
        state.turn,
        gift_receiver(state),
    ):
        gift = _GIFT_CARD[state.gift_card]
    return hand, gift


def build_view(state: TrinityState, seat: int | None) -> TrinityView:
    view = shared_view(state)
    view.MergeFromString(b"".join(own_view(state, seat)))
    return view


def shared_view(state: TrinityState) -> TrinityView:
    """Every audience's view but its own fields."""
    # A view is built for every seat after every move: each part of the state is read once
    # (every access to a sub-message or repeated field makes a new wrapper object), and the
    # rows and seats are added with keyword arguments, which are set in C.
    view = TrinityView(
        options=state.options,
        discard_pile=state.discard_pile,
        deck_size=len(state.deck),
        turn=state.turn,
        step=state.step,
        action=state.action,
        using_card=state.using_card,
        effect_done=state.effect_done,
        revealed_now=state.revealed_now,
        outcome=state.outcome,
    )
    board = state.board
    add_row = view.board.add
    for row in range(ROWS):
        add_row(row=ROW_VALUES[row], seat=seat_of_row(state, row), slots=row_of_board(board, row))
    add_seat = view.seats.add
    for other, hand in enumerate(state.hands[:]):
        cards = hand.cards
        add_seat(
            seat=other,
            row=ROW_VALUES[row_of_seat(state, other)],
            hand_size=len(cards),
            # Usually none: an empty repeated field given to `add` still costs a copy.
            revealed=hand.revealed or None,
        )
    if state.step == TrinityStep.TRINITY_STEP_GIFT_DISCARD:
        view.gift_receiver = gift_receiver(state)
    return view


SUMMARIES: Final = {
    TrinityOutcome.TRINITY_OUTCOME_WON: "cooperative: the board is complete, every seat wins",
    TrinityOutcome.TRINITY_OUTCOME_LOST_HANDS_EMPTY: (
        "cooperative: every hand is empty and the board is not complete, every seat loses"
    ),
    TrinityOutcome.TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED: (
        "cooperative: a Jack, Queen or King was discarded, every seat loses"
    ),
}


def build_result(state: TrinityState) -> GameResult | None:
    """A shared result (C-7): every seat scores 1 and wins, or scores 0 and none wins."""
    if state.outcome == ONGOING:
        return None
    won = state.outcome == TrinityOutcome.TRINITY_OUTCOME_WON
    return shared_result(state.seats, won=won, summary=SUMMARIES[state.outcome])
