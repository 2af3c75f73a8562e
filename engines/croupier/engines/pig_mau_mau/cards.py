"""The 39 game cards of Pig Mau Mau (PM-1.2) as integer codes, and the matching rule (PM-3.1,
PM-3.4).

Colour index c: 0 pink, 1 brown, 2 black, 3 beige (the proto's PigColor is c + 1).
    0..23   number card: colour code // 6, number code % 6 + 1
    24..27  X of colour code - 24
    28..31  +2 of colour code - 28
    32..35  Tired Pig (green), printed colour code - 32
    36..38  Farmer (green)
"""

from __future__ import annotations

from typing import Final

from croupier.v1.pig_mau_mau_pb2 import PigColor, PigMauMauCard, PigMauMauCardKind

DECK_SIZE: Final = 39
COLOURS: Final = 4
COLOUR_NAMES: Final = ("pink", "brown", "black", "beige")

NUMBER: Final = PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_NUMBER
SKIP: Final = PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_SKIP
PLUS_TWO: Final = PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_PLUS_TWO
TIRED_PIG: Final = PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_TIRED_PIG
FARMER: Final = PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_FARMER

NO_COLOUR: Final = -1


def _kind(code: int) -> PigMauMauCardKind.ValueType:
    if code < 24:
        return NUMBER
    if code < 28:
        return SKIP
    if code < 32:
        return PLUS_TWO
    if code < 36:
        return TIRED_PIG
    return FARMER


def _suit(code: int) -> int:
    """The colour a card matches by (PM-3.1); green cards have none."""
    if code < 24:
        return code // 6
    if code < 32:
        return (code - 24) % 4
    return NO_COLOUR


KIND: tuple[PigMauMauCardKind.ValueType, ...] = tuple(_kind(c) for c in range(DECK_SIZE))
SUIT: tuple[int, ...] = tuple(_suit(c) for c in range(DECK_SIZE))
NUMBER_OF: tuple[int, ...] = tuple(c % 6 + 1 if c < 24 else 0 for c in range(DECK_SIZE))
GREEN: tuple[bool, ...] = tuple(c >= 32 for c in range(DECK_SIZE))
# The printed colour of a Tired Pig (the colour that must follow it, PM-3.4).
PRINTED: tuple[int, ...] = tuple(c - 32 if 32 <= c < 36 else NO_COLOUR for c in range(DECK_SIZE))


# The four +2 cards: the only cards that may go on a pending +2 (PM-4.1).
PLUS_TWOS: Final = frozenset(c for c in range(DECK_SIZE) if KIND[c] == PLUS_TWO)


def number_card(colour: int, number: int) -> int:
    return colour * 6 + number - 1


def skip_card(colour: int) -> int:
    return 24 + colour


def plus_two_card(colour: int) -> int:
    return 28 + colour


def tired_pig_card(colour: int) -> int:
    return 32 + colour


FARMERS: Final = (36, 37, 38)


def pig_color(colour: int) -> PigColor.ValueType:
    """The proto colour of a colour index (NO_COLOUR gives UNSPECIFIED)."""
    return PigColor.ValueType(colour + 1)


def colour_index(color: PigColor.ValueType) -> int:
    """The colour index of a proto colour (UNSPECIFIED gives NO_COLOUR)."""
    return int(color) - 1


def card_message(code: int) -> PigMauMauCard:
    colour = SUIT[code] if not GREEN[code] else PRINTED[code]
    return PigMauMauCard(
        code=code, kind=KIND[code], color=pig_color(colour), number=NUMBER_OF[code]
    )


def matches(card: int, top: int, required: int) -> bool:
    """Whether `card` may be played on `top` (no +2 pending): green on anything; on a green top
    the required colour (any card when there is none); else same colour, same number, or the
    same symbol (X on X, +2 on +2)."""
    if GREEN[card]:
        return True
    if GREEN[top]:
        return required == NO_COLOUR or SUIT[card] == required
    if SUIT[card] == SUIT[top]:
        return True
    kind = KIND[card]
    if kind != KIND[top]:
        return False
    return kind != NUMBER or NUMBER_OF[card] == NUMBER_OF[top]


def card_name(code: int) -> str:
    """A short readable name: 'pink 5', 'brown X', 'black +2', 'Tired Pig (beige)', 'Farmer'."""
    kind = KIND[code]
    if kind == NUMBER:
        return f"{COLOUR_NAMES[SUIT[code]]} {NUMBER_OF[code]}"
    if kind == SKIP:
        return f"{COLOUR_NAMES[SUIT[code]]} X"
    if kind == PLUS_TWO:
        return f"{COLOUR_NAMES[SUIT[code]]} +2"
    if kind == TIRED_PIG:
        return f"Tired Pig ({COLOUR_NAMES[PRINTED[code]]})"
    return "Farmer"


# `matches` as a table, by top card and then by the proto value of the required colour (0: none),
# so that a turn looks its cards up in a set instead of calling `matches` for each: 39 x 5 sets.
PLAYABLE: tuple[tuple[frozenset[int], ...], ...] = tuple(
    tuple(
        frozenset(c for c in range(DECK_SIZE) if matches(c, top, required))
        for required in range(NO_COLOUR, COLOURS)
    )
    for top in range(DECK_SIZE)
)

# One card message per code, to copy into events (CopyFrom is several times quicker than building
# the message from keywords). Shared: never hand one out to be changed.
CARD_MESSAGES: tuple[PigMauMauCard, ...] = tuple(card_message(c) for c in range(DECK_SIZE))
