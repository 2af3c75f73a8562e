"""High Card (`high_card`, 2-4 players), the test game of docs/api.md's "Adding a game"; rules:
docs/games/high_card.md.

Twelve cards, 1..12 (HC-1). Three each (option `hand_size`), seat 0 leads (HC-2). Each trick,
clockwise from the leader, everyone plays a card; the highest wins a point and leads next (HC-3).
When the hands are empty the most points win (HC-4).

Files: the common layout of engines/README.md.
"""

from __future__ import annotations

from croupier.engines.high_card.engine import HighCardEngine

ENGINE = HighCardEngine()

__all__ = ["ENGINE", "HighCardEngine"]
