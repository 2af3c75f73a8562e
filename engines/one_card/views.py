"""What each seat sees (OC-7, C-4) and the final result (OC-6.2, OC-6.3, C-7).

A view is built positively: the viewer's own hand, then public facts only (the top card, pile
sizes, hand sizes, the active colour and direction, a pending attack or Quatran, the seat that
may be caught, the match score). Never another hand or the draw pile's content or order.
"""

from __future__ import annotations

from croupier.engines.core.scoring import build_result
from croupier.engines.one_card import cards as c
from croupier.engines.one_card import rules
from croupier.engines.one_card.setup import wins_to_match
from croupier.v1.common_pb2 import GameResult
from croupier.v1.one_card_pb2 import OneCardState, OneCardView


def view(state: OneCardState, seat: int | None) -> OneCardView:
    top = rules.top_card(state)
    out = OneCardView(
        discard_pile_size=len(state.discard_pile),
        draw_pile_size=len(state.draw_pile),
        hand_sizes=[len(hand.cards) for hand in state.hands],
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
    # Sorted from a slice: slicing copies the container in C, iterating it goes card by card.
    hand = sorted(state.hands[seat].cards[:]) if seat is not None else ()
    out.MergeFromString(c.view_cards(top, hand))
    if state.quatran_pending:
        out.quatran_color = state.named_color
    if state.HasField("catchable_seat"):
        out.catchable_seat = state.catchable_seat
    return out


def result(state: OneCardState) -> GameResult | None:
    if not state.over:
        return None
    last = list(state.history[-1].cards_left)
    if wins_to_match(state.options) == 1:
        return build_result(
            last,
            lower_is_better=True,
            summary="Score: cards left. The first to empty their hand wins; the others are"
            " placed by fewer cards left, ties sharing a place (OC-6.2).",
        )
    return build_result(
        list(state.wins),
        lower_is_better=False,
        tie_break=lambda seat: last[seat],
        summary=f"Score: games won. The first to win {wins_to_match(state.options)} games wins"
        " the match; equal wins are placed by fewer cards left in the last game (OC-6.3).",
    )
