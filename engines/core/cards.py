"""Card helpers shared by every game. Cards are small integers whose meaning each game defines;
hands and piles are sequences of them (multisets where copies exist)."""

from __future__ import annotations

from collections.abc import MutableSequence

from croupier.v1.common_pb2 import RngState
from engines.core import rng


def draw(pile: MutableSequence[int], count: int) -> list[int]:
    """Take up to `count` cards from the top (the end) of a face-down pile."""
    count = min(count, len(pile))
    if count == 0:
        return []
    taken = list(pile[-count:])
    del pile[-count:]
    taken.reverse()
    return taken


def refill_from_discard(
    draw_pile: MutableSequence[int], discard_pile: MutableSequence[int], state_rng: RngState
) -> int:
    """Shuffle the discard pile but its top card (the last entry) into the draw pile (whose top
    is also its last entry); return how many cards moved (0 when only the top was left)."""
    if len(discard_pile) <= 1:
        return 0
    moved = list(discard_pile[:-1])
    del discard_pile[:-1]
    rng.shuffle(state_rng, moved)
    draw_pile.extend(moved)
    return len(moved)
