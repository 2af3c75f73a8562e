"""The seeded generator kept in every game's state (C-2).

SplitMix64 with its position stored as a draw counter: the whole generator is two integers in
the state (`RngState.seed`, `RngState.draws`), so replaying a game from its seed and move log
reproduces every shuffle, and the stored state stays small.
"""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence, Sequence
from typing import Final, TypeVar

from croupier.v1.common_pb2 import RngState

T = TypeVar("T")

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15


def new_seed() -> int:
    """A seed from a cryptographic source, for games created without one."""
    return secrets.randbits(64)


def seeded(seed: int) -> RngState:
    if not 0 <= seed <= _MASK:
        raise ValueError("seed must be an unsigned 64-bit integer")
    return RngState(seed=seed, draws=0)


def _mix(seed: int, draws: int) -> int:
    """The SplitMix64 output for the generator's `draws`-th value."""
    z = (seed + draws * _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def next_u64(rng: RngState) -> int:
    """The next 64-bit value; advances the generator."""
    draws = rng.draws + 1
    rng.draws = draws
    return _mix(rng.seed, draws)


def _below(seed: int, draws: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) without modulo bias, drawn from position `draws`; returns it
    and the new position (rejected values are drawn too)."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        draws += 1
        value = _mix(seed, draws)
        if value < limit:
            return value % n, draws


def below(rng: RngState, n: int) -> int:
    """A uniform integer in [0, n), without modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    value, rng.draws = _below(rng.seed, rng.draws, n)
    return value


def choice(rng: RngState, items: Sequence[T]) -> T:
    return items[below(rng, len(items))]


def shuffle(rng: RngState, items: MutableSequence[T]) -> None:
    """Fisher-Yates, in place. The generator's two fields are read once and its position
    written once: reading a protobuf field costs more than a draw's arithmetic, and a shuffle
    draws once per card."""
    seed, draws = rng.seed, rng.draws
    for i in range(len(items) - 1, 0, -1):
        j, draws = _below(seed, draws, i + 1)
        items[i], items[j] = items[j], items[i]
    rng.draws = draws
