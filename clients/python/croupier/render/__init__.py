"""Readable transcripts: one module per game, named by its game type, with `describe_event` and
`describe_table`; for the terminal table (`croupier-play --human`) also `describe_move` (one line
per legal move) and `describe_seat` (the viewer's own part of the view and what a decision
needs). A game without a module of its own is shown by `croupier.render.generic` (its messages
in protobuf text format), so a new game plays in the terminal before it has one.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import cache
from types import ModuleType

from croupier.messages import GAME_TYPES
from croupier.render import generic
from croupier.v1.game_service_pb2 import Event, GameView, Move


@cache
def renderer(game_type: str) -> ModuleType:
    """The game's own module, croupier.render.<game type>, else the generic one."""
    if game_type not in GAME_TYPES:  # only game types name modules (not `names`, not `generic`)
        raise KeyError(f"no game {game_type!r}")
    name = f"{__name__}.{game_type}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise  # the module exists but something it imports does not
        return generic


def describe_event(game_type: str, event: Event, names: Sequence[str]) -> list[str]:
    member = event.WhichOneof("game")
    if member is None:
        return []
    lines: list[str] = renderer(game_type).describe_event(getattr(event, member), names)
    return lines


def describe_table(view: GameView) -> str | None:
    table: str | None = renderer(view.game_type).describe_table(view)
    return table


def describe_move(game_type: str, move: Move, names: Sequence[str]) -> str:
    member = move.WhichOneof("game")
    if member is None:
        return "(no move)"
    line: str = renderer(game_type).describe_move(getattr(move, member), names)
    return line


def describe_seat(view: GameView) -> str:
    text: str = renderer(view.game_type).describe_seat(view)
    return text
