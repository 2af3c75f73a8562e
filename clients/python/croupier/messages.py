"""Wrapping a game's own messages into the generic ones, by the oneof member named after the
game type (so this works for every game without naming any)."""

from __future__ import annotations

from google.protobuf.message import Message

from croupier.v1.game_service_pb2 import CreateGameRequest, Move


def _members(message_type: type[Message], oneof: str) -> dict[str, str]:
    descriptor = message_type.DESCRIPTOR
    fields = descriptor.oneofs_by_name[oneof].fields
    return {f.message_type.full_name: f.name for f in fields if f.message_type is not None}


_OPTIONS = _members(CreateGameRequest, "options")
# Every game type the API knows, in the order of `CreateGameRequest.options`: read from the
# generated descriptors, so a new game needs no edit here (nor in croupier-play or the bench).
GAME_TYPES: list[str] = [
    f.name for f in CreateGameRequest.DESCRIPTOR.oneofs_by_name["options"].fields
]
_MOVES = _members(Move, "game")


def game_of_options(options: Message) -> str:
    """The game type whose options these are."""
    try:
        return _OPTIONS[options.DESCRIPTOR.full_name]
    except KeyError:
        raise TypeError(f"{type(options).__name__} is not a game's options message") from None


def wrap_move(move: Message) -> Move:
    """A `Move` holding a game's own move (a `Move` is returned as it is)."""
    if isinstance(move, Move):
        return move
    try:
        member = _MOVES[move.DESCRIPTOR.full_name]
    except KeyError:
        raise TypeError(f"{type(move).__name__} is not a game's move message") from None
    wrapped = Move()
    getattr(wrapped, member).CopyFrom(move)
    return wrapped


def unwrap(message: Message, oneof: str = "game") -> Message | None:
    """The member set in a generic message's oneof (a game's own move, event or view)."""
    member = message.WhichOneof(oneof)
    return None if member is None else getattr(message, member)
