"""High Card's cards (HC-1.1): the numbers 1..12, one of each; a higher number beats a lower
one (HC-1.2), so a card is its own integer."""

from __future__ import annotations

CARDS = tuple(range(1, 13))
DEFAULT_HAND_SIZE = 3  # HC-2.2
