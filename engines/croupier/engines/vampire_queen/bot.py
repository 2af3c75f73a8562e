"""The strong Vampire Queen player: a one-ply heuristic over the seat's own view (VQ-6).

Penalties are the cards left in hand (VQ-4.3), so every card that leaves the hand is points
saved. How it thinks:
- Lead a Hunter whenever it may: it counts 0 in the hunt (VQ-5.2), so its leader never takes
  the cards, and 15 or 20 penalty points leave the hand.
- In a hunt (VQ-5.3), where one card must be played: a Queen counts only 1 there, so it sheds 14
  points at almost no risk; else the lowest vampire, the least likely to be the strongest.
- Leading: the rank with the most copies (few can follow with as many cards), high ranks a
  little preferred (more points), Queens kept as jokers unless they finish the hand.
- Following: always play when possible (passing saves nothing), preferring the play that sheds
  the most points without spending Queens or breaking a larger set of a rank.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from croupier.engines.core.bots import ScoringBot
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenView

_QUEEN: Final = 14
_HUNTERS: Final = (15, 20)


class StrongBot(ScoringBot):
    def score(self, seat: int, view: Any, move: Any) -> float:
        v: VampireQueenView = view
        m: VampireQueenMove = move
        if m.WhichOneof("kind") == "pass_turn":
            return 0.0
        cards = [int(c) for c in m.play.cards[:]]
        held = Counter(int(c) for c in v.hand[:])
        if len(cards) == len(v.hand):
            return 10_000.0  # the hand is empty: no penalty this round
        if cards[0] in _HUNTERS:
            return 5_000.0 + cards[0]
        hunt = v.phase.hunt and v.phase.plays and v.phase.leader != seat
        if hunt:
            card = cards[0]
            return 1_000.0 if card == _QUEEN else 500.0 - card
        queens = cards.count(_QUEEN)
        ranks = [c for c in cards if c != _QUEEN]
        rank = ranks[0] if ranks else _QUEEN
        leading = not v.phase.plays
        value = 100.0 + sum(cards)
        value -= 25.0 * queens  # Queens are jokers: worth more kept
        if ranks:
            # Cards of this rank left behind after the play (breaking a set wastes it).
            value -= 6.0 * (held[rank] - len(ranks))
        if leading:
            value += 8.0 * len(cards)
        else:
            value -= 0.5 * rank  # the lower beating play keeps the higher ones for later
        return value
