"""Readable transcript lines for What's Your Name? (not written yet)."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.v1.game_service_pb2 import GameView
from croupier.v1.whats_your_name_pb2 import WhatsYourNameEvent


def describe_event(event: WhatsYourNameEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    return [str(event).strip()] if event.ByteSize() else []


def describe_table(view: GameView) -> str | None:
    """A picture of the table printed after each move, or None."""
    return None
