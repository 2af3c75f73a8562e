"""Readable transcripts: one module per game with `describe_event` and `describe_table`; for the
terminal table (`croupier-play --human`) also `describe_move` (one line per legal move) and
`describe_seat` (the viewer's own part of the view and what a decision needs)."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from croupier.render import one_card, pig_mau_mau, trinity, vampire_queen, whats_your_name
from croupier.v1.game_service_pb2 import Event, GameView, Move

RENDERERS: dict[str, ModuleType] = {
    "whats_your_name": whats_your_name,
    "one_card": one_card,
    "pig_mau_mau": pig_mau_mau,
    "vampire_queen": vampire_queen,
    "trinity": trinity,
}


def describe_event(game_type: str, event: Event, names: Sequence[str]) -> list[str]:
    member = event.WhichOneof("game")
    if member is None:
        return []
    lines: list[str] = RENDERERS[game_type].describe_event(getattr(event, member), names)
    return lines


def describe_table(view: GameView) -> str | None:
    table: str | None = RENDERERS[view.game_type].describe_table(view)
    return table


def describe_move(game_type: str, move: Move, names: Sequence[str]) -> str:
    member = move.WhichOneof("game")
    if member is None:
        return "(no move)"
    line: str = RENDERERS[game_type].describe_move(getattr(move, member), names)
    return line


def describe_seat(view: GameView) -> str:
    text: str = RENDERERS[view.game_type].describe_seat(view)
    return text
