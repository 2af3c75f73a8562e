"""The 110 cards of Vampire Queen (VQ-1) and the arithmetic of plays.

A card is its `VampireQueenCard` number, which is also its penalty (VQ-4.3): 1..13 vampires
(eight copies each), 14 a Queen (four copies), 15 and 20 the Hunters (one each).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias, cast

from croupier.v1.vampire_queen_pb2 import VampireQueenCard

VAMPIRE_RANKS: Final = range(1, 14)
VAMPIRE_COPIES: Final = 8
QUEEN: Final = 14
QUEEN_COPIES: Final = 4
HUNTER_15: Final = 15
HUNTER_20: Final = 20
HUNTERS: Final = (HUNTER_15, HUNTER_20)
CARD_CODES: Final = frozenset([*VAMPIRE_RANKS, QUEEN, HUNTER_15, HUNTER_20])
# A rank that no play reaches: the size of per-code count tables.
CODE_LIMIT: Final = HUNTER_20 + 1

# The proto's card type: an int to Python, a distinct type to mypy.
Card: TypeAlias = VampireQueenCard.ValueType

NAMES: Final = {QUEEN: "Queen", HUNTER_15: "Hunter 15", HUNTER_20: "Hunter 20"}


def typed(cards: Iterable[int]) -> Iterable[Card]:
    """Card codes as the proto's enum type (no conversion: both are ints at run time)."""
    return cast("Iterable[Card]", cards)


def full_deck() -> list[int]:
    """All 110 cards, ascending (VQ-1)."""
    return sorted([*shuffled_part(), *HUNTERS])


def shuffled_part() -> list[int]:
    """The 108 cards that are shuffled and dealt every round (VQ-2.2, VQ-4.4), ascending."""
    deck = [rank for rank in VAMPIRE_RANKS for _ in range(VAMPIRE_COPIES)]
    deck.extend([QUEEN] * QUEEN_COPIES)
    return deck


def is_hunter(card: int) -> bool:
    return card in HUNTERS


def hand_size(seats: int, deal_all: bool) -> int:
    """Cards dealt to each player (VQ-2.2): the publisher's table, or floor(108 / N)."""
    if deal_all:
        return len(shuffled_part()) // seats
    if seats <= 8:
        return 13
    if seats == 9:
        return 12
    if seats == 10:
        return 10
    return 9


def penalty(cards: Iterable[int]) -> int:
    """Penalty points of a hand (VQ-4.3): every card scores its number."""
    return sum(cards)


def play_rank(cards: Sequence[int]) -> int | None:
    """The rank a non-Hunter play counts as in a normal phase (VQ-1.2), or None when it does
    not form one rank: Queens alone are 14, Queens with vampires take the vampires' rank."""
    rank = 0
    for card in cards:
        if card == QUEEN:
            continue
        if not 1 <= card <= 13 or (rank and card != rank):
            return None
        rank = card
    return rank or QUEEN


def hunt_strength(card: int) -> int:
    """A card's strength in a hunt (VQ-5.2): Hunter 0, Queen 1, a vampire its rank."""
    if is_hunter(card):
        return 0
    if card == QUEEN:
        return 1
    return card


def counts(cards: Iterable[int]) -> list[int]:
    """How many copies of each code `cards` holds, indexed by code."""
    table = [0] * CODE_LIMIT
    for card in cards:
        table[card] += 1
    return table


def card_name(card: int) -> str:
    return NAMES.get(card, str(card))
