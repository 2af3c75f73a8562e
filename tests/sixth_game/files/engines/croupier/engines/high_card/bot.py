"""The strong High Card player: win the trick as cheaply as possible, else throw the lowest card.

It sees only its seat's view (its hand and the cards already on the trick), as every bot does
(engines/croupier/engines/core/bots.py)."""

from __future__ import annotations

from croupier.engines.core.bots import ScoringBot
from croupier.v1.high_card_pb2 import HighCardMove, HighCardView


class StrongBot(ScoringBot):
    def score(self, seat: int, view: HighCardView, move: HighCardMove) -> float:
        card = move.play.card
        best_on_trick = max(view.trick, default=0)
        if card > best_on_trick:
            return 100 - card  # the lowest card that beats the trick
        return -card  # cannot win: keep the high cards for later tricks
