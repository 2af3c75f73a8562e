"""Seat names in transcripts: the display name, or "seat N" where none was given."""

from __future__ import annotations

from collections.abc import Sequence


def seat_name(names: Sequence[str], seat: int) -> str:
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"
