"""What each seat sees (VQ-6, C-4), built positively from the public facts and the viewer's own
hand: every hand's size, who holds each Hunter (their backs differ, VQ-1.3), the current phase
and the completed phases of this round (every played card is shown face up), penalties, whose
turn it is and the Hunter locks. Other hands and the set-aside cards' faces are never copied.
The result: the lowest total penalty wins (VQ-4.5).
"""

from __future__ import annotations

from typing import Final

from google.protobuf.internal.containers import RepeatedScalarFieldContainer

from croupier.engines.core.scoring import build_result as build_result_of
from croupier.engines.vampire_queen.cards import HUNTER_15, HUNTER_20
from croupier.engines.vampire_queen.flow import hunter_holders, totals
from croupier.engines.vampire_queen.rules import situation
from croupier.engines.vampire_queen.setup import rounds_of
from croupier.v1.common_pb2 import GameResult
from croupier.v1.vampire_queen_pb2 import VampireQueenCard, VampireQueenState, VampireQueenView

# The view's fields that differ between audiences: the viewer's own hand.
OWN_FIELDS: Final[tuple[int, ...]] = (VampireQueenView.HAND_FIELD_NUMBER,)


def own_view(state: VampireQueenState, seat: int | None) -> tuple[bytes]:
    """The encoded `hand` of `seat`'s view (nothing for a spectator)."""
    hand = _own_hand(state, seat)
    return (b"" if hand is None else VampireQueenView(hand=hand).SerializeToString(),)


def _own_hand(
    state: VampireQueenState, seat: int | None
) -> RepeatedScalarFieldContainer[VampireQueenCard.ValueType] | None:
    hands = state.hands
    return hands[seat].cards if seat is not None and 0 <= seat < len(hands) else None


def shared_view(state: VampireQueenState) -> VampireQueenView:
    """Every audience's view but the hand: a spectator's."""
    return build_view(state, None)


def build_view(state: VampireQueenState, seat: int | None) -> VampireQueenView:
    hands = state.hands[:]  # a slice to loop over (engines/README.md)
    holders = hunter_holders(state)
    options = state.options
    # An empty repeated field given to the constructor still costs a copy; None leaves it
    # empty. None also leaves a Hunter's holder unset while no hand holds it.
    view = VampireQueenView(
        round=state.round,
        rounds=rounds_of(options),
        hand=_own_hand(state, seat),
        hand_sizes=[len(hand.cards) for hand in hands],
        hunter_15_holder=holders.get(HUNTER_15),
        hunter_20_holder=holders.get(HUNTER_20),
        round_penalties=state.round_penalties or None,
        totals=totals(state),
        locks=state.locks or None,
        set_aside_count=len(state.set_aside),
        over=state.over,
        deal_all=options.deal_all,
    )
    # Copying the phases one by one into added entries is quicker than passing the repeated
    # field to the constructor (or to `extend`).
    add_phase = view.history.add
    for record in state.history[:]:
        add_phase().CopyFrom(record)
    if not state.over:
        view.turn = state.turn
        view.phase.CopyFrom(state.phase)
        sit = situation(state)
        if not sit.leading and not sit.hunt:
            view.count_to_play = sit.per_play
            view.rank_to_beat = sit.to_beat
    return view


def build_result(state: VampireQueenState) -> GameResult | None:
    if not state.over:
        return None
    return build_result_of(
        totals(state),
        lower_is_better=True,
        summary="lowest total penalty wins (VQ-4.5); ties share the win",
    )
