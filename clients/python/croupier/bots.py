"""Bots: they choose only among the moves ListLegalMoves offers, so no rule is restated here."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def new_seed() -> int:
    """A seed for a game and its bots, drawn as the server draws one (64 bits from a
    cryptographic source). Drawn by the client so that the client knows it: a seed the server
    draws stays secret until the game ends (GetGameRecord), and the bots need it from the start
    for the same seed to give the same game."""
    return secrets.randbits(64)


class RandomBot:
    """Uniformly random legal play, reproducible from its seed."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def choose(self, options: Sequence[T]) -> T:
        if not options:
            raise ValueError("nothing to choose from")
        return options[self._random.randrange(len(options))]
