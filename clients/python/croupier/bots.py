"""Bots: they choose only among the moves ListLegalMoves offers, so no rule is restated here."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class RandomBot:
    """Uniformly random legal play, reproducible from its seed."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def choose(self, options: Sequence[T]) -> T:
        if not options:
            raise ValueError("nothing to choose from")
        return options[self._random.randrange(len(options))]
