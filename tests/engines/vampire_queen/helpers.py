"""Positions and moves for the Vampire Queen tests.

Cards are their numbers: 1..13 vampires, Q (14) a Queen, H15 and H20 the Hunters.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.vampire_queen import ENGINE
from croupier.engines.vampire_queen.cards import full_deck, typed
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenEvent,
    VampireQueenMove,
    VampireQueenOptions,
    VampireQueenState,
)
from tests.engines import helpers as shared
from tests.engines.helpers import events_of

Q = 14
H15 = 15
H20 = 20

Events = list[Emitted[VampireQueenEvent]]


def position(
    hands: Sequence[Sequence[int]],
    *,
    leader: int = 0,
    plays: Sequence[Sequence[int]] = (),
    hunt: bool = False,
    rounds: int = 5,
    round_number: int = 1,
    locks: Sequence[tuple[int, int]] = (),
    penalties: Sequence[Sequence[int]] = (),
    seed: int = 1,
) -> VampireQueenState:
    """A state in the middle of a phase: `plays` are the actions so far from `leader` on,
    clockwise (an empty list is a pass). The set-aside pile holds whatever the hands and the
    plays leave of the 110 cards, so that the position is complete."""
    seats = len(hands)
    state = VampireQueenState(seats=seats, rng=rng.seeded(seed), round=round_number)
    state.options.CopyFrom(VampireQueenOptions(rounds=rounds))
    for hand in hands:
        state.hands.add(cards=typed(sorted(hand)))
    state.phase.leader = leader
    state.phase.hunt = hunt
    for index, cards in enumerate(plays):
        state.phase.plays.add(seat=(leader + index) % seats, cards=typed(sorted(cards)))
    state.turn = (leader + len(plays)) % seats
    for seat, hunter in locks:
        state.locks.add(seat=seat, hunter=next(iter(typed([hunter]))))
    for row in penalties:
        state.round_penalties.add(penalties=row)
    rest = full_deck()
    for hand in [*hands, *plays]:
        for card in hand:
            rest.remove(card)
    state.set_aside.extend(typed(rest))
    return state


def play_move(*cards: int) -> VampireQueenMove:
    move = VampireQueenMove()
    move.play.cards.extend(typed(cards))
    return move


def pass_move() -> VampireQueenMove:
    return VampireQueenMove(pass_turn=VampireQueenMove.Pass())


def play(state: VampireQueenState, seat: int, *cards: int) -> Events:
    return ENGINE.apply(state, seat, play_move(*cards))


def pass_(state: VampireQueenState, seat: int) -> Events:
    return ENGINE.apply(state, seat, pass_move())


def refused(state: VampireQueenState, seat: int, move: VampireQueenMove, rule_id: str) -> str:
    """Assert that `move` is refused under `rule_id`, changes nothing and is not listed; the
    refusal's message."""
    return shared.refused(ENGINE, state, seat, move, rule_id).message


def public(events: Events, kind: str) -> list[VampireQueenEvent]:
    """The events of one kind as a spectator receives them."""
    return events_of(events, kind)


def hand(state: VampireQueenState, seat: int) -> list[int]:
    return list(state.hands[seat].cards)


def plays_of(moves: Sequence[VampireQueenMove]) -> set[tuple[int, ...]]:
    """The listed plays as card tuples (passes left out)."""
    return {tuple(m.play.cards) for m in moves if m.WhichOneof("kind") == "play"}


def can_pass(moves: Sequence[VampireQueenMove]) -> bool:
    return any(m.WhichOneof("kind") == "pass_turn" for m in moves)
