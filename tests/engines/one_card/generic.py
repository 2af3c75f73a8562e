"""One Card's part of the generic tests (tests/engines/helpers.py: generic_of): its move space,
the option sets and sweep size of the move-space test (tests/engines/move_space.py says what a
move space is), and the scrambler of the secrets test (tests/reliability/test_secrets.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from google.protobuf.message import Message

from croupier.v1.one_card_pb2 import (
    OneCardCard,
    OneCardDeck,
    OneCardMove,
    OneCardOptions,
    OneCardState,
)
from tests.engines.move_space import Sweep
from tests.engines.one_card import test_properties

# Options that reach every kind of move: many attacks and wild cards (defences, Quatran
# answers), and a match.
OPTIONS: list[Message] = [
    OneCardOptions(),
    OneCardOptions(
        deck=OneCardDeck(plus_two_per_color=3, plus_three_per_color=3, rainbows=6, quatrans=8)
    ),
    OneCardOptions(wins_to_match=2),
]
# The quick sweep keeps the game to a few seconds (~3,300 move messages a seat).
SWEEP = Sweep(games=6, positions=4, full=False)


# --- One Card (one_card.proto: OneCardCard {type, color, number}) ------------------------------

_OC_COLORS = range(1, 5)  # OneCardColor RED..BLUE
_OC_NUMBER, _OC_RAINBOW, _OC_QUATRAN = 1, 6, 7  # OneCardCardType
_OC_COLORED_SPECIALS = range(2, 6)  # PLUS_TWO, PLUS_THREE, JUMP, U_TURN

OC_NUMBER_CARDS = [
    OneCardCard(type=_OC_NUMBER, color=color, number=number)  # type: ignore[arg-type]
    for color in _OC_COLORS
    for number in range(1, 10)
]
OC_CARDS = [
    *OC_NUMBER_CARDS,
    *(
        OneCardCard(type=kind, color=color)  # type: ignore[arg-type]
        for kind in _OC_COLORED_SPECIALS
        for color in _OC_COLORS
    ),
    OneCardCard(type=_OC_RAINBOW),  # type: ignore[arg-type]
    OneCardCard(type=_OC_QUATRAN),  # type: ignore[arg-type]
]
# Cards no deck has: refused as malformed, never accepted.
OC_NOT_CARDS = [
    OneCardCard(),
    OneCardCard(type=_OC_NUMBER, color=1, number=0),  # type: ignore[arg-type]
    OneCardCard(type=_OC_NUMBER, color=1, number=10),  # type: ignore[arg-type]
    OneCardCard(type=_OC_NUMBER, number=5),  # type: ignore[arg-type]
    OneCardCard(type=2, color=1, number=3),  # type: ignore[arg-type]
    OneCardCard(type=_OC_RAINBOW, color=2),  # type: ignore[arg-type]
    OneCardCard(type=_OC_QUATRAN, color=3),  # type: ignore[arg-type]
    OneCardCard(type=8),  # type: ignore[arg-type]
]


def _oc_held(state: OneCardState, seat: int) -> list[int]:
    """The seat's distinct card codes. A code indexes OC_CARDS, which lists the cards in code
    order (numbers 0..35, then +2, +3, Jump, U-turn per colour, Rainbow, Quatran: the encoding
    of docs/games/one_card.md), so no engine code is used."""
    if not 0 <= seat < len(state.hands):
        return []
    return list(dict.fromkeys(state.hands[seat].cards))


def moves(state: OneCardState, seat: int, full: bool = False) -> Iterator[OneCardMove]:
    yield OneCardMove()
    yield OneCardMove(draw=OneCardMove.Draw())
    yield OneCardMove(call_one_card=OneCardMove.CallOneCard())
    for target in range(-1, state.seats + 1):
        yield OneCardMove(catch=OneCardMove.Catch(seat=target))
    calls = (False, True)
    colors = range(0, 5)
    yield OneCardMove(play=OneCardMove.Play())  # no card at all
    for card in [*OC_CARDS, *OC_NOT_CARDS]:
        for color in colors:
            for call in calls:
                play = OneCardMove.Play(cards=[card], color=color, call_one_card=call)  # type: ignore[arg-type]
                yield OneCardMove(play=play)
    # Two cards (a Quatran answer, OC-4.7): every ordered pair of number cards, the same card
    # twice included, without the call (with `full`: every ordered pair of cards, with and
    # without the call); and every ordered pair of held cards with every colour and the call.
    pair_domain = OC_CARDS if full else OC_NUMBER_CARDS
    for first, second in itertools.product(pair_domain, repeat=2):
        for call in calls if full else (False,):
            play = OneCardMove.Play(cards=[first, second], call_one_card=call)
            yield OneCardMove(play=play)
    held = _oc_held(state, seat)
    for a, b in itertools.product(held, repeat=2):
        # Held pairs with every named colour (which only a wild card may carry) and with the
        # call; the pairs of numbers without a colour or call are all above already.
        numbers = a < len(OC_NUMBER_CARDS) and b < len(OC_NUMBER_CARDS)
        for color, call in [*((color, False) for color in colors), (0, True)]:
            if color == 0 and not call and (full or numbers):
                continue
            cards = [OC_CARDS[a], OC_CARDS[b]]
            play = OneCardMove.Play(cards=cards, color=color, call_one_card=call)  # type: ignore[arg-type]
            yield OneCardMove(play=play)
    # Three cards: never a move; a few of the held ones.
    for triple in itertools.islice(itertools.permutations(held, 3), 20):
        yield OneCardMove(play=OneCardMove.Play(cards=[OC_CARDS[code] for code in triple]))


# The secrets test's scrambler (tests/reliability/test_secrets.py): the state with what a seat
# may not see changed.
scrambled = test_properties.scrambled
