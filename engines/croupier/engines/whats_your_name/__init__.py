"""What's Your Name? (이름이 뭐에요?), game type `whats_your_name`, 2-6 players.

Rules: docs/games/whats_your_name.md (rule ids WN-x.y). In short:
- Setup (WN-2): each player shuffles a colour set of 13 cards (ranks 1..13) into a pile and
  reveals its top card onto the stage (a 13 is shuffled back). The lowest stage card takes the
  priority card for the whole game (ties: youngest by option `youngest_seat`, else by lot).
  Everyone draws 3.
- Play rounds (WN-3): every player secretly plays a card; all are revealed at once. In
  ascending order of the card played (ties from the priority holder clockwise) each takes one
  stage card; a 13 takes the whole stage instead (the first 13 in that order). The plays then
  become the new stage, hands refill to 3 from the pile.
- Final round (WN-3.7): with hands empty, each takes one stage card counter-clockwise from the
  priority holder's right, the holder last.
- Pairs (WN-4): two acquired cards of one rank are discarded at once.
- End (WN-5): lowest sum of acquired ranks wins; ties to the priority holder, then clockwise.
- Two players (WN-6): a virtual player at table position 2 takes the card left after the
  drafting, reveals its next card each round, never gets the priority card, and is scored.
- Options (WN-7): `hidden_card` (a secret card set aside, cancelled by an acquired card of its
  rank, else counted), `match` (one game per player, the mirror card for the highest total).

Files: the common layout of engines/README.md, plus `table.py`: the card movements with their
events (drawing, acquiring with the pairs of WN-4, taking from the stage) that `setup.py` and
`flow.py` both make.
"""

from __future__ import annotations

from croupier.engines.whats_your_name.engine import WhatsYourNameEngine

ENGINE = WhatsYourNameEngine()

__all__ = ["ENGINE", "WhatsYourNameEngine"]
