"""Cards of Tobot One Card (OC-1): integer codes, their properties, the deck, short names.

Codes (documented in one_card.proto as well):
  0..35   number cards, (colour - 1) * 9 + (number - 1); colours red 1, yellow 2, green 3, blue 4
  36..39  +2 attack      40..43  +3 attack      44..47  Jump      48..51  U-turn
  52      Rainbow        53      Quatran
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from croupier.engines.core.cards import field_encodings
from croupier.engines.core.errors import MalformedMove
from croupier.v1.one_card_pb2 import OneCardCard, OneCardDeck, OneCardView

# Module constants are Final: mypyc (setup.py) then reads them as C constants, not through the
# module's dictionary.
RED: Final = 1
YELLOW: Final = 2
GREEN: Final = 3
BLUE: Final = 4
COLORS: Final = (RED, YELLOW, GREEN, BLUE)

# Card types, equal to the OneCardCardType enum values.
NUMBER: Final = 1
PLUS_TWO: Final = 2
PLUS_THREE: Final = 3
JUMP: Final = 4
U_TURN: Final = 5
RAINBOW: Final = 6
QUATRAN: Final = 7

_FIRST_CODE: Final = {PLUS_TWO: 36, PLUS_THREE: 40, JUMP: 44, U_TURN: 48}
RAINBOW_CODE: Final = 52
QUATRAN_CODE: Final = 53
CODE_COUNT: Final = 54

# How many cards an attack card makes the next player draw (OC-4.1, OC-4.2).
ATTACK_VALUE: Final = {PLUS_TWO: 2, PLUS_THREE: 3}


def number_code(color: int, number: int) -> int:
    return (color - 1) * 9 + (number - 1)


def special_code(card_type: int, color: int = 0) -> int:
    if card_type == RAINBOW:
        return RAINBOW_CODE
    if card_type == QUATRAN:
        return QUATRAN_CODE
    return _FIRST_CODE[card_type] + color - 1


def _properties() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    types = [0] * CODE_COUNT
    colors = [0] * CODE_COUNT
    numbers = [0] * CODE_COUNT
    for color in COLORS:
        for number in range(1, 10):
            code = number_code(color, number)
            types[code], colors[code], numbers[code] = NUMBER, color, number
        for card_type in _FIRST_CODE:
            code = special_code(card_type, color)
            types[code], colors[code] = card_type, color
    types[RAINBOW_CODE] = RAINBOW
    types[QUATRAN_CODE] = QUATRAN
    return tuple(types), tuple(colors), tuple(numbers)


# Per code: its type, its colour (0 for the two colourless cards) and its number (0 if none).
_PROPERTIES: Final = _properties()
TYPE: Final = _PROPERTIES[0]
COLOR: Final = _PROPERTIES[1]
NUM: Final = _PROPERTIES[2]

WILD_TYPES: Final = (RAINBOW, QUATRAN)


def is_wild(code: int) -> bool:
    """Rainbow or Quatran: no colour, a colour is named when it is discarded."""
    return code >= RAINBOW_CODE


# ---------------------------------------------------------------- the deck (OC-1)

DEFAULT_DECK: Final = {
    "number_copies": 2,
    "plus_two_per_color": 2,
    "plus_three_per_color": 1,
    "jump_per_color": 2,
    "u_turn_per_color": 2,
    "rainbows": 4,
    "quatrans": 4,
}
# Upper bound of each count: keeps the stored state well under 2 KB.
DECK_LIMITS: Final = {
    "number_copies": 4,
    "plus_two_per_color": 4,
    "plus_three_per_color": 4,
    "jump_per_color": 4,
    "u_turn_per_color": 4,
    "rainbows": 8,
    "quatrans": 8,
}
_PER_COLOR_TYPE: Final = {
    "plus_two_per_color": PLUS_TWO,
    "plus_three_per_color": PLUS_THREE,
    "jump_per_color": JUMP,
    "u_turn_per_color": U_TURN,
}


def deck_counts(deck: OneCardDeck) -> dict[str, int]:
    """The composition table with the defaults filled in for unset counts."""
    table: Any = deck  # HasField is typed with literal names only
    return {
        name: getattr(table, name) if table.HasField(name) else default
        for name, default in DEFAULT_DECK.items()
    }


def build_deck(counts: dict[str, int]) -> list[int]:
    """Every card of the deck, as codes, in a fixed order (shuffled afterwards)."""
    cards: list[int] = []
    for color in COLORS:
        for number in range(1, 10):
            cards += [number_code(color, number)] * counts["number_copies"]
        for name, card_type in _PER_COLOR_TYPE.items():
            cards += [special_code(card_type, color)] * counts[name]
    cards += [RAINBOW_CODE] * counts["rainbows"]
    cards += [QUATRAN_CODE] * counts["quatrans"]
    return cards


# ---------------------------------------------------------------- messages and names


def to_message(code: int) -> OneCardCard:
    return OneCardCard(type=TYPE[code], color=COLOR[code], number=NUM[code])  # type: ignore[arg-type]


def to_messages(codes: Sequence[int]) -> list[OneCardCard]:
    return [to_message(code) for code in codes]


def add_messages(field: RepeatedCompositeFieldContainer[OneCardCard], codes: Iterable[int]) -> None:
    """Append the messages of `codes` to a repeated card field of a message being built: in
    place, field by field, which is quicker than `to_messages` and copying them in."""
    for code in codes:
        card = field.add()
        card.type = TYPE[code]  # type: ignore[assignment]
        card.color = COLOR[code]  # type: ignore[assignment]
        card.number = NUM[code]


# By card code, the encoding of a view's card fields: a view merges its cards in one parse
# (croupier.engines.core.cards.field_encodings).
_MESSAGES: Final = [to_message(code) for code in range(CODE_COUNT)]
_HAND_ENTRY: Final = field_encodings(_MESSAGES, lambda card: OneCardView(hand=[card]))
_TOP_CARD: Final = field_encodings(_MESSAGES, lambda card: OneCardView(top_card=card))


def top_card(code: int) -> bytes:
    """The encoded `top_card` field of a `OneCardView`, for `MergeFromString`."""
    return _TOP_CARD[code]


def hand_cards(hand: Iterable[int]) -> bytes:
    """The encoded `hand` field of a `OneCardView`, for `MergeFromString`."""
    return b"".join([_HAND_ENTRY[code] for code in hand])


def from_message(card: OneCardCard, field: str) -> int:
    """The code of a card message; MalformedMove when no such card exists in the game."""
    card_type, color, number = int(card.type), int(card.color), card.number
    if card_type == NUMBER:
        if color not in COLORS or not 1 <= number <= 9:
            raise MalformedMove(field, "a number card has a colour and a number 1..9")
        return number_code(color, number)
    if card_type in _FIRST_CODE:
        if color not in COLORS or number != 0:
            raise MalformedMove(field, "a +2, +3, Jump or U-turn card has a colour and no number")
        return special_code(card_type, color)
    if card_type in WILD_TYPES:
        if color != 0 or number != 0:
            raise MalformedMove(field, "a Rainbow or Quatran card has no colour and no number")
        return special_code(card_type)
    raise MalformedMove(field, "unknown card type")


COLOR_NAMES: Final = {RED: "red", YELLOW: "yellow", GREEN: "green", BLUE: "blue"}
_TYPE_SHORT: Final = {PLUS_TWO: "+2", PLUS_THREE: "+3", JUMP: "J", U_TURN: "U"}
_COLOR_LETTER: Final = {RED: "R", YELLOW: "Y", GREEN: "G", BLUE: "B"}
_LETTER_COLOR: Final = {letter: color for color, letter in _COLOR_LETTER.items()}
_SHORT_TYPE: Final = {short: card_type for card_type, short in _TYPE_SHORT.items()}


def short_name(code: int) -> str:
    """Compact notation used by tests and docs: R5, B+2, Y+3, GJ, RU, W (Rainbow), Q (Quatran)."""
    if code == RAINBOW_CODE:
        return "W"
    if code == QUATRAN_CODE:
        return "Q"
    letter = _COLOR_LETTER[COLOR[code]]
    if TYPE[code] == NUMBER:
        return f"{letter}{NUM[code]}"
    return letter + _TYPE_SHORT[TYPE[code]]


def parse(name: str) -> int:
    """The code of a short name (inverse of `short_name`)."""
    if name == "W":
        return RAINBOW_CODE
    if name == "Q":
        return QUATRAN_CODE
    color = _LETTER_COLOR[name[0]]
    rest = name[1:]
    if rest.isdigit():
        return number_code(color, int(rest))
    return special_code(_SHORT_TYPE[rest], color)


def parse_all(names: str) -> list[int]:
    """Codes of a space-separated list of short names."""
    return [parse(name) for name in names.split()]
