"""Tobot One Card (`one_card`), 2-10 players; rules: docs/games/one_card.md.

Rules in brief. 108 cards by default (OC-1; the composition is an option): numbers 1..9 in
four colours, coloured +2 and +3 attacks, Jumps and U-turns, colourless Rainbows and Quatrans.
Seven cards each; a number card starts the discard pile (OC-2). On your turn discard one card
matching the top by colour, number or function, or draw one (OC-3); when both piles are empty
you must discard if you can (OC-3.5). Attacks make the next player draw unless they defend with
an attack card of the same colour or effect, the total passing on (OC-4.1..4.3); Jump skips,
U-turn reverses; Rainbow and Quatran name a colour, and after a Quatran the next player must
discard two numbers of that colour or draw two (OC-4.4..4.7). Leaving yourself one card, call
"One Card" or be caught by anyone before the next player moves and draw two (OC-5). The first
to discard their last card wins; the rest are placed by cards left; a match is played to
`wins_to_match` games (OC-6).

Files: the common layout of engines/README.md.
"""

from __future__ import annotations

from croupier.engines.one_card.engine import OneCardEngine

ENGINE = OneCardEngine()

__all__ = ["ENGINE", "OneCardEngine"]
