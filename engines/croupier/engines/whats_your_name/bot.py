"""The strong What's Your Name? player: a one-ply heuristic over the seat's own view (WN-8).

The lowest total of acquired cards wins, and a pair of a rank leaves the game (WN-4). What a
card costs this seat: its rank, or minus its rank when it pairs with a card already acquired
(or with the seat's own hidden card, WN-7.1). How it thinks:
- Draft the cheapest stage card by that cost (a pair first, else the lowest rank).
- Play its lowest card to draft early, keeping a 13 (which sweeps the whole stage, WN-3.4)
  for a round where the sweep costs little: the stage's pairs with its cards and low ranks.
- Hide its lowest card (it counts at the end unless matched); use the mirror on its highest
  acquired card once that card is high, or whenever the mirror is the only move offered.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from croupier.engines.core.bots import ScoringBot
from croupier.v1.whats_your_name_pb2 import WhatsYourNameMove, WhatsYourNameView


def _acquired(view: WhatsYourNameView, seat: int) -> Counter[int]:
    for player in view.players[:]:
        if player.seat == seat and not player.virtual:
            return Counter(card.rank for card in player.acquired[:])
    return Counter()


def _cost(rank: int, acquired: Counter[int], hidden: int) -> int:
    return -rank if acquired[rank] % 2 == 1 or rank == hidden else rank


def _sweep_cost(view: WhatsYourNameView, acquired: Counter[int], hidden: int) -> int:
    held = Counter(acquired)
    cost = 0
    for card in view.stage[:]:
        cost += _cost(card.rank, held, hidden)
        held[card.rank] += 1
    return cost


class StrongBot(ScoringBot):
    def score(self, seat: int, view: Any, move: Any) -> float:
        v: WhatsYourNameView = view
        m: WhatsYourNameMove = move
        kind = m.WhichOneof("kind")
        acquired = _acquired(v, seat)
        hidden = v.hidden_card.rank
        if kind == "take":
            return -float(_cost(m.take.rank, acquired, hidden))
        if kind == "hide":
            return -float(m.hide.rank)
        if kind == "use_mirror":
            rank = m.use_mirror.rank
            return 1_000.0 + rank if rank >= 10 else -1_000.0 + rank
        rank = m.play.rank
        if rank == 13:
            stage = [card.rank for card in v.stage[:]]
            if not stage:
                return -500.0
            best_pick = min(_cost(r, acquired, hidden) for r in stage)
            sweep = _sweep_cost(v, acquired, hidden)
            return 100.0 if sweep <= best_pick + 2 else -500.0
        return -float(rank)
