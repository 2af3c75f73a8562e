"""Readable transcript lines for Pig Mau Mau (not written yet)."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.v1.game_service_pb2 import GameView
from croupier.v1.pig_mau_mau_pb2 import PigMauMauEvent


def describe_event(event: PigMauMauEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    return [str(event).strip()] if event.ByteSize() else []


def describe_table(view: GameView) -> str | None:
    """A picture of the table printed after each move, or None."""
    return None
