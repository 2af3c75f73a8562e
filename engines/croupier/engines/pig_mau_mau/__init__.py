"""Pig Mau Mau (`pig_mau_mau`, 2-5 players, four races); rules: docs/games/pig_mau_mau.md.

Mau Mau with a pig race on the side. Each race: pigs on START, 39 cards shuffled, 5 dealt to
each, one turned up (no action). On a turn a player plays a card matching the top by colour,
number or symbol, or any green card (PM-3.1); a number card moves its pig forward, an X skips
the next player, a +2 makes the next player stack a +2 or draw the total and then move pigs back
one space per card drawn (PM-4), a Tired Pig moves the rearmost pig 3 and demands its printed
colour, a Farmer names the next colour (PM-3.4). A player who cannot play draws one card
(automatically, C-6). After any draw the drawer may place or change a secret bet at the end of
the bet row (PM-5). A race ends when a pig reaches the finish (+3 to who moved it, that pig wins)
or a player plays their last card (+5, the leading pig(s) win); bets on winners score 6-4-3-2-1
in row order (PM-6). Four races, the start player moving left; most points wins. Option `mau`:
plays leaving one card / no card must call "Mau" / "Mau Mau", else the card is taken back and
the turn passes (PM-7); a +2 so taken back did not answer a pending +2, so its player draws the
total first (PM-7.3).

Files: the common layout of engines/README.md.
"""

from __future__ import annotations

from croupier.engines.pig_mau_mau.engine import ENGINE, PigMauMauEngine

__all__ = ["ENGINE", "PigMauMauEngine"]
