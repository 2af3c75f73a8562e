"""The strong One Card player: a one-ply heuristic over the seat's own view (OC-7).

How it thinks, in order:
- Catch whenever a catch is offered (the caught seat draws 2, OC-5.2), and always call "One
  Card" with the discard that leaves one card (never catchable itself).
- Discard rather than draw: a draw is a card more, and drawing with a discard in hand is only
  kept for the case where there is nothing else.
- Facing an attack, pass it on (a defence) instead of drawing the total.
- Keep the wild cards (Rainbow, Quatran) for when nothing else fits, unless the hand is short;
  name the colour held most.
- Prefer the colour held most (it keeps the next turns playable), and aim attacks, Jumps and
  U-turns at the next seat when that seat is close to going out.
"""

from __future__ import annotations

from typing import Any, Final

from croupier.engines.core.bots import ScoringBot
from croupier.v1.one_card_pb2 import (
    ONE_CARD_CARD_TYPE_JUMP,
    ONE_CARD_CARD_TYPE_NUMBER,
    ONE_CARD_CARD_TYPE_PLUS_THREE,
    ONE_CARD_CARD_TYPE_PLUS_TWO,
    ONE_CARD_CARD_TYPE_QUATRAN,
    ONE_CARD_CARD_TYPE_RAINBOW,
    ONE_CARD_CARD_TYPE_U_TURN,
    OneCardMove,
    OneCardView,
)

_ATTACKS: Final = (ONE_CARD_CARD_TYPE_PLUS_TWO, ONE_CARD_CARD_TYPE_PLUS_THREE)
_WILDS: Final = (ONE_CARD_CARD_TYPE_RAINBOW, ONE_CARD_CARD_TYPE_QUATRAN)


class StrongBot(ScoringBot):
    def score(self, seat: int, view: Any, move: Any) -> float:
        v: OneCardView = view
        m: OneCardMove = move
        kind = m.WhichOneof("kind")
        if kind == "catch":
            return 1000.0
        if kind == "call_one_card":
            return 900.0
        if kind == "draw":
            return -100.0
        cards = m.play.cards[:]
        left = len(v.hand) - len(cards)
        if left == 0:
            return 10_000.0  # going out wins at once (OC-6.1)
        value = 0.0
        if left == 1 and not m.play.call_one_card:
            return -50.0  # a discard to one card without the call invites a catch
        colours: dict[int, int] = {}
        for card in v.hand[:]:
            if card.type not in _WILDS:
                colours[card.color] = colours.get(card.color, 0) + 1
        for card in cards:
            if card.type not in _WILDS:
                colours[card.color] -= 1
        seats = len(v.hand_sizes)
        step = 1 if v.clockwise else -1
        following = v.hand_sizes[(seat + step) % seats]
        value += 10.0 * len(cards)  # the Quatran answer sheds two
        first = cards[0]
        if first.type == ONE_CARD_CARD_TYPE_NUMBER:
            value += 20.0 + colours.get(first.color, 0)
        elif first.type in _ATTACKS:
            # An attack passed on is worth more than any number; otherwise keep it for defence
            # unless the next seat is about to go out.
            value += 40.0 if v.pending_attack else 12.0 + (30.0 if following <= 2 else 0.0)
            value += colours.get(first.color, 0)
        elif first.type in (ONE_CARD_CARD_TYPE_JUMP, ONE_CARD_CARD_TYPE_U_TURN):
            value += 18.0 + colours.get(first.color, 0) + (25.0 if following <= 2 else 0.0)
        else:
            # A wild card: named colour the one held most; kept while the hand is long.
            value += (5.0 if left > 3 else 25.0) + 2.0 * colours.get(m.play.color, 0)
            if first.type == ONE_CARD_CARD_TYPE_QUATRAN and following <= 2:
                value += 10.0
        return value
