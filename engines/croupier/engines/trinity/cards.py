"""Trinity's cards (TR-1.1) as the integer codes of the proto.

Code 0 is "no card" (an empty board slot); 1..52 is `1 + 13 * suit + (rank - 2)` with suits
♠ ♥ ♦ ♣ = 0..3 and ranks 2..14 (11 = J, 12 = Q, 13 = K, 14 = A); 53 is the colour joker and
54 the black-and-white joker.
"""

from __future__ import annotations

from typing import Final

NO_CARD: Final = 0
SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
ACE: Final = 14
TEN: Final = 10
COLOUR_JOKER: Final = 53
BW_JOKER: Final = 54
ALL_CARDS: Final = tuple(range(1, 55))

SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
RANK_LABELS: Final = {11: "J", 12: "Q", 13: "K", 14: "A"}


def card(rank: int, suit: int) -> int:
    """The code of the card of `rank` (2..14) and `suit` (0..3)."""
    return 1 + 13 * suit + (rank - 2)


def is_joker(code: int) -> bool:
    return code >= COLOUR_JOKER


def suit_of(code: int) -> int:
    """The suit (0..3) of a non-joker card."""
    return (code - 1) // 13


def rank_of(code: int) -> int:
    """The rank (2..14) of a card; 0 for a joker."""
    if code >= COLOUR_JOKER:
        return 0
    return (code - 1) % 13 + 2


def is_red(code: int) -> bool:
    return not is_joker(code) and suit_of(code) in (HEARTS, DIAMONDS)


def is_black(code: int) -> bool:
    return not is_joker(code) and suit_of(code) in (SPADES, CLUBS)


def is_face(code: int) -> bool:
    """A Jack, Queen or King: a card the board needs (TR-5.4)."""
    return rank_of(code) in (JACK, QUEEN, KING)


def _name(code: int) -> str:
    if code == NO_CARD:
        return "·"
    if code == COLOUR_JOKER:
        return "colour joker"
    if code == BW_JOKER:
        return "black-and-white joker"
    rank = rank_of(code)
    return f"{RANK_LABELS.get(rank, str(rank))}{SUIT_SYMBOLS[suit_of(code)]}"


NAMES: Final = tuple(_name(code) for code in range(BW_JOKER + 1))


def name(code: int) -> str:
    """A readable name: `J♦`, `10♣`, `colour joker`; `·` for no card."""
    return NAMES[code] if 0 <= code <= BW_JOKER else f"card {code}"


def parse(text: str) -> int:
    """The code of a readable name (`J♦`, `10♣`, `colour joker`), for tests and tools."""
    if text == "colour joker":
        return COLOUR_JOKER
    if text == "black-and-white joker":
        return BW_JOKER
    label, symbol = text[:-1], text[-1]
    ranks = {v: k for k, v in RANK_LABELS.items()}
    rank = ranks[label] if label in ranks else int(label)
    return card(rank, SUIT_SYMBOLS.index(symbol))
