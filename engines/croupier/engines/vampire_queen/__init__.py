"""Vampire Queen (`vampire_queen`, 3-12 players): a climbing game over several rounds; the
lowest total penalty wins. Rules: docs/games/vampire_queen.md.

110 cards (VQ-1): vampires 1..13 (eight each), four Queens (jokers: rank 14 alone or with
other Queens, else the rank they join), Hunter 15 and Hunter 20 (their holders are public).
Setup (VQ-2): Hunter 15 to `first_hunter_seat` (or a drawn seat), Hunter 20 to its left, who
leads; the other 108 cards are shuffled and dealt (13/12/10/9 cards by player count, or all
with `deal_all`), the rest set aside unseen; `rounds` rounds (default 5).
Phases (VQ-3): the leader plays one rank (any count, Queens may join) or one Hunter; each other
player once, clockwise, passes or plays as many cards of a strictly higher rank; the highest
play leads next and the cards go to the grave.
Hunts (VQ-5): a led Hunter starts a hunt: it counts 0, Queens 1; no passing, everyone plays one
non-Hunter card; the strongest (later on a tie) takes all the cards and leads; a seat whose
hand is only a Hunter is forced to pass and takes them instead; a Hunter taken in a hunt may
not be led by its taker until they have led another phase.
Rounds (VQ-4): a round ends after a phase leaving a hand empty (checked after a hunt's cards
are taken); every card left in hand scores its number as penalty; Hunters stay with their
holders, everything else is reshuffled, and the Hunter 20 holder leads.

Files: the common layout of engines/README.md.
"""

from __future__ import annotations

from croupier.engines.vampire_queen.engine import VampireQueenEngine

ENGINE = VampireQueenEngine()

__all__ = ["ENGINE", "VampireQueenEngine"]
