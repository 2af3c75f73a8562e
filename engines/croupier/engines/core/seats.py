"""Seat order (C-1): seats 0..N-1 clockwise; left is the next seat, right the previous one."""

from __future__ import annotations

from collections.abc import Iterator


def left(seat: int, seats: int) -> int:
    return (seat + 1) % seats


def right(seat: int, seats: int) -> int:
    return (seat - 1) % seats


def step(seat: int, seats: int, direction: int) -> int:
    """The next seat in `direction` (+1 clockwise, -1 counter-clockwise)."""
    return (seat + direction) % seats


def clockwise_from(seat: int, seats: int) -> Iterator[int]:
    """Every seat once, starting with `seat` and going clockwise."""
    for i in range(seats):
        yield (seat + i) % seats


def clockwise_distance(origin: int, seat: int, seats: int) -> int:
    """How many steps clockwise from `origin` to `seat` (0 for `origin` itself)."""
    return (seat - origin) % seats
