"""What each seat sees (VQ-6, C-4), built positively from the public facts and the viewer's own
hand: every hand's size, who holds each Hunter (their backs differ, VQ-1.3), the current phase
and the completed phases of this round (every played card is shown face up), penalties, whose
turn it is and the Hunter locks. Other hands and the set-aside cards' faces are never copied.
"""

from __future__ import annotations

from croupier.v1.vampire_queen_pb2 import VampireQueenState, VampireQueenView
from engines.vampire_queen.cards import HUNTER_15, HUNTER_20
from engines.vampire_queen.flow import hunter_holders, rounds_of, totals
from engines.vampire_queen.rules import situation


def build_view(state: VampireQueenState, seat: int | None) -> VampireQueenView:
    view = VampireQueenView(
        round=state.round,
        rounds=rounds_of(state.options),
        hand_sizes=[len(hand.cards) for hand in state.hands],
        round_penalties=state.round_penalties,
        totals=totals(state),
        locks=state.locks,
        set_aside_count=len(state.set_aside),
        over=state.over,
        deal_all=state.options.deal_all,
        history=state.history,
    )
    if seat is not None:
        view.hand.extend(state.hands[seat].cards)
    holders = hunter_holders(state)
    if HUNTER_15 in holders:
        view.hunter_15_holder = holders[HUNTER_15]
    if HUNTER_20 in holders:
        view.hunter_20_holder = holders[HUNTER_20]
    if not state.over:
        view.turn = state.turn
        view.phase.CopyFrom(state.phase)
        sit = situation(state)
        if not sit.leading and not sit.hunt:
            view.count_to_play = sit.count
            view.rank_to_beat = sit.to_beat
    return view
