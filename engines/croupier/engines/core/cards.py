"""Card helpers shared by every game. Cards are small integers whose meaning each game defines;
hands and piles are sequences of them (multisets where copies exist)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence
from typing import TypeVar

from google.protobuf.message import Message

from croupier.engines.core import rng
from croupier.v1.common_pb2 import RngState

M = TypeVar("M", bound=Message)


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


def field_encodings(cards: Iterable[M], holding: Callable[[M], Message]) -> tuple[bytes, ...]:
    """By card code (the position in `cards`, each card's message): the encoding of
    `holding(card)`, a message with just that card in one field.

    Views fill their card fields by joining the encodings they need and parsing them once
    with `MergeFromString`: parsing appends to a repeated field and sets a singular one, as a
    copy would, and one parse in C costs a fraction of copying card messages one by one (each
    copy makes a Python wrapper). The encodings are the library's own, never written by hand.
    """
    return tuple(holding(card).SerializeToString() for card in cards)
