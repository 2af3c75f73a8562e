"""Trinity (삼위일체, `trinity`): a cooperative game for exactly 3 players (rules:
docs/games/trinity.md).

54 cards (52 + colour joker + black-and-white joker). Each player owns a row of four slots
(J, Q, K; option `rows`); together they must fill the J row with the four Jacks, the Q row with
the Queens and the K row with the Kings (expert option `advanced`: reds in slots 1-2, blacks in
3-4). Six cards each; turn order J, Q, K (clockwise). A turn is one action, then draw 2 (no
reshuffle):
- place a hand card into slot 1 of the own row, pushing right up to the first empty slot (a
  card pushed out of slot 4 is discarded), then discard one card;
- use a card: ♦ moves a card of the own row to its rightmost occupied slot, ♥ to the leftmost,
  ♣ discards a card of the own row, ♠ reveals a hand card; a 10 also swaps same-numbered slots
  with another row, an A any two slots (each part optional, at least one); then discard one
  card. A joker gives a hand card to the right (colour) or left (black-and-white) player, who
  discards another card out of turn;
- discard two cards.
An action must be fully possible to be legal. A player without cards is skipped. The players
win together the moment the board is complete; they lose when every hand is empty (or, with
`stop_when_unwinnable`, as soon as a J, Q or K is discarded).

Files: the common layout of engines/README.md, plus `board.py`: the pure operations on a row of
four slots (TR-1.2: placing with the push, the rightmost and leftmost cards, moving, complete
rows), which the check, the flow and the views all read.
"""

from __future__ import annotations

from croupier.engines.trinity.engine import TrinityEngine

ENGINE = TrinityEngine()

__all__ = ["ENGINE", "TrinityEngine"]
