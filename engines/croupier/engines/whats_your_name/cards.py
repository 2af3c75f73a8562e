"""Cards, colour sets and table positions of What's Your Name? (WN-1, WN-6.1).

A card is stored as the integer `colour * 13 + (rank - 1)` (0..77): `rank` 1..13 and `colour`
0..5, the colour set of table position `colour`. Colour never matters for pairs or scores
(WN-1.1); it only tells whose set a card came from, so every move names a rank.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from croupier.v1.whats_your_name_pb2 import WhatsYourNameCard, WhatsYourNameState

RANKS: Final = 13
COLOUR_SETS: Final = 6  # WN-1.1
THIRTEEN: Final = 13
HAND_SIZE: Final = 3  # WN-2.4, WN-3.6
HIDDEN_DEAL: Final = 4  # WN-7.1: draw 4, set one aside
VIRTUAL: Final = 2  # WN-6.1: the virtual player's table position in a two-player game


def code(colour: int, rank: int) -> int:
    return colour * RANKS + rank - 1


def rank_of(card: int) -> int:
    return card % RANKS + 1


def colour_set(colour: int) -> list[int]:
    """The 13 cards of one colour set, ranks 1..13 (WN-1.1)."""
    return [colour * RANKS + i for i in range(RANKS)]


def to_card(card: int) -> WhatsYourNameCard:
    """The card message, for a message field (a constructor or `CopyFrom` copies it). It is a
    shared read-only prototype: copying it in C costs less than building a new one in Python."""
    return _CARDS[card]


def to_cards(cards: Iterable[int]) -> list[WhatsYourNameCard]:
    """The card messages, for filling a repeated field (which copies them); shared read-only
    prototypes, as with `to_card`."""
    return [_CARDS[c] for c in cards]


def has_virtual(state: WhatsYourNameState) -> bool:
    """WN-6.1: a two-player game adds the virtual player."""
    return state.seats == 2


def table_size(seats: int) -> int:
    """Table positions: the seats, plus the virtual player with two seats."""
    return 3 if seats == 2 else seats


_CARDS: Final = tuple(
    WhatsYourNameCard(rank=code % RANKS + 1, colour=code // RANKS)
    for code in range(COLOUR_SETS * RANKS)
)
