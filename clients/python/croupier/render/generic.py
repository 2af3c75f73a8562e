"""The transcript of a game without a renderer of its own: its messages in protobuf text format,
on one line each (a new game's moves and events are readable before anyone writes its module)."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf import text_format
from google.protobuf.message import Message

from croupier.v1.game_service_pb2 import GameView


def _line(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True) or "(empty)"


def describe_event(event: Message, names: Sequence[str]) -> list[str]:
    kind = event.WhichOneof("kind")
    return [f"{kind}: {_line(getattr(event, kind))}" if kind else _line(event)]


def describe_table(view: GameView) -> str | None:
    member = view.WhichOneof("game")
    return None if member is None else _line(getattr(view, member))


def describe_move(move: Message, names: Sequence[str]) -> str:
    kind = move.WhichOneof("kind")
    return f"{kind} {_line(getattr(move, kind))}" if kind else "(no move)"


def describe_seat(view: GameView) -> str:
    seat = "a spectator" if not view.HasField("viewer_seat") else f"seat {view.viewer_seat}"
    return f"You are {seat}."
