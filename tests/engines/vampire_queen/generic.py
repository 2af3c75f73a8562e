"""Vampire Queen's part of the generic tests (tests/engines/helpers.py: generic_of): its move space,
the option sets and sweep size of the move-space test (tests/engines/move_space.py says what a
move space is), and the scrambler of the secrets test (tests/reliability/test_secrets.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions, VampireQueenState
from tests.engines.move_space import Sweep
from tests.engines.vampire_queen import test_properties

# Options that reach every kind of move: every card dealt.
OPTIONS: list[Message] = [
    VampireQueenOptions(rounds=2),
    VampireQueenOptions(deal_all=True, rounds=1),
]
# The quick sweep keeps the game to a few seconds (~1,000 move messages a seat).
SWEEP = Sweep(games=5, positions=4, full=False)


# --- Vampire Queen (vampire_queen.proto: a multiset of VampireQueenCard values) ----------------

VQ_CARDS = [*range(1, 16), 20]  # vampires 1..13, Queen 14, Hunters 15 and 20
VQ_NOT_CARDS = [0, 16]  # UNSPECIFIED, and a value the enum does not have


def moves(state: VampireQueenState, seat: int, full: bool = False) -> Iterator[VampireQueenMove]:
    move = VampireQueenMove
    yield move()
    yield move(pass_turn=move.Pass())
    yield move(play=move.PlayCards())  # no card at all
    seen: set[tuple[int, ...]] = set()
    # Every multiset over the whole card domain up to a small size (mixed ranks, two Hunters,
    # cards that are no card) ...
    small = itertools.chain.from_iterable(
        itertools.combinations_with_replacement([*VQ_NOT_CARDS, *VQ_CARDS], size)
        for size in range(1, 4 if full else 3)
    )
    # ... and every shape a play can accept (VQ-1.2, VQ-3.1): k copies of one card value with
    # q Queens, k up to one more than the 8 copies of a rank, q up to one more than the 4
    # Queens, for every value. Any other play is refused, and holds a mixed or small multiset.
    shaped = (
        tuple(sorted([value] * k + [14] * q))
        for value in [*VQ_NOT_CARDS, *VQ_CARDS]
        for k in range(1, 10)
        for q in range(0, 6)
    )
    for cards in itertools.chain(small, shaped):
        if cards not in seen:
            seen.add(cards)
            yield move(play=move.PlayCards(cards=cards))
            if len(set(cards)) > 1:
                # The proto makes the cards a multiset: any order is the same play.
                yield move(play=move.PlayCards(cards=cards[::-1]))


def canonical(move: VampireQueenMove) -> VampireQueenMove:
    """The move in the form `moves` yields it: a play's cards sorted (the proto makes them a
    multiset)."""
    if move.WhichOneof("kind") == "play":
        copy = VampireQueenMove()
        copy.play.cards.extend(sorted(move.play.cards))
        return copy
    return move


# The secrets test's scrambler (tests/reliability/test_secrets.py): the state with what a seat
# may not see changed.
scrambled = test_properties.scrambled_state
