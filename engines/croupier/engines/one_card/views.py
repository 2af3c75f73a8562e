"""What each seat sees (OC-7, C-4) and the final result (OC-6.2, OC-6.3, C-7).

A view is built positively: the viewer's own hand, then public facts only (the top card, pile
sizes, hand sizes, the active colour and direction, a pending attack or Quatran, the seat that
may be caught, the match score). Never another hand or the draw pile's content or order.
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core.scoring import build_result
from croupier.engines.one_card import cards as c
from croupier.engines.one_card import rules
from croupier.engines.one_card.setup import wins_to_match
from croupier.v1.common_pb2 import GameResult
from croupier.v1.one_card_pb2 import OneCardState, OneCardView

# The view's fields that differ between audiences: the viewer's own hand.
OWN_FIELDS: Final[tuple[int, ...]] = (OneCardView.HAND_FIELD_NUMBER,)


def view(state: OneCardState, seat: int | None) -> OneCardView:
    return shared_view(state, b"".join(own_view(state, seat)))


def own_view(state: OneCardState, seat: int | None) -> tuple[bytes]:
    """The encoded `hand` of `seat`'s view, sorted (nothing for a spectator)."""
    if seat is None:
        return (b"",)
    # Sorted from a slice: slicing copies the container in C, iterating it goes card by card.
    return (c.hand_cards(sorted(state.hands[seat].cards[:])),)


def shared_view(state: OneCardState, own: bytes = b"") -> OneCardView:
    """Every audience's view but the hand, with `own` (an audience's encoded own fields) merged
    in the same parse as the top card."""
    top = rules.top_card(state)
    out = OneCardView(
        discard_pile_size=len(state.discard_pile),
        draw_pile_size=len(state.draw_pile),
        hand_sizes=[len(hand.cards) for hand in state.hands[:]],
        active_color=rules.active_color(state),  # type: ignore[arg-type]
        clockwise=not state.counter_clockwise,
        current_seat=state.current_seat,
        pending_attack=state.pending_attack,
        dealer=state.dealer,
        game_number=state.game_number,
        wins=state.wins,
        wins_to_match=wins_to_match(state.options),
        # Empty until a game of the match ends: an empty repeated field given to the
        # constructor still costs a copy, None leaves it empty.
        history=state.history or None,
        over=state.over,
    )
    out.MergeFromString(c.top_card(top) + own)
    if state.quatran_pending:
        out.quatran_color = state.named_color
    if state.HasField("catchable_seat"):
        out.catchable_seat = state.catchable_seat
    return out


def result(state: OneCardState) -> GameResult | None:
    if not state.over:
        return None
    last = state.history[-1].cards_left[:]
    if wins_to_match(state.options) == 1:
        return build_result(
            last,
            lower_is_better=True,
            summary="Score: cards left. The first to empty their hand wins; the others are"
            " placed by fewer cards left, ties sharing a place (OC-6.2).",
        )
    return build_result(
        state.wins[:],
        lower_is_better=False,
        tie_break=lambda seat: last[seat],
        summary=f"Score: games won. The first to win {wins_to_match(state.options)} games wins"
        " the match; equal wins are placed by fewer cards left in the last game (OC-6.3).",
    )
