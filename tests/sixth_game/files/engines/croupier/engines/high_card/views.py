"""What each seat sees (HC-5, C-4), built positively from the public facts and the viewer's own
hand, and the result (HC-4.2, HC-4.3)."""

from __future__ import annotations

from croupier.engines.core.scoring import build_result as build_result_of
from croupier.v1.common_pb2 import GameResult
from croupier.v1.high_card_pb2 import HighCardState, HighCardView


def build_view(state: HighCardState, seat: int | None) -> HighCardView:
    view = HighCardView(
        hand_sizes=[len(hand.cards) for hand in state.hands],
        trick=state.trick,
        leader=state.leader,
        turn=state.turn,
        points=state.points,
    )
    if seat is not None:
        view.hand.extend(state.hands[seat].cards)
    return view


def build_result(state: HighCardState) -> GameResult | None:
    if not state.over:
        return None
    return build_result_of(
        list(state.points), lower_is_better=False, summary="most tricks win; ties share the win"
    )
