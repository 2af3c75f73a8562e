"""The three ways an engine refuses input.

`MalformedMove` and `InvalidOptions` are requests that make no sense for the game at all (the
service answers INVALID_ARGUMENT); `IllegalMove` is a well-formed move the rules forbid now
(FAILED_PRECONDITION, naming the rule id). An engine raises all three before changing anything.
"""

from __future__ import annotations

from typing import NamedTuple


class Violation(NamedTuple):
    """Why a well-formed move is refused: the rule it breaks and a message safe to show to the
    seat that tried it (it reveals nothing hidden, C-4). A game's one legality check returns it
    (or None); `legal_moves` keeps the moves without one and `apply` raises it as IllegalMove. A
    NamedTuple because the checks build many of them (Trinity's look-ahead, TR-3.4) and tuples
    are cheap."""

    rule_id: str
    message: str


class EngineError(Exception):
    """Base of the engine's refusals."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IllegalMove(EngineError):
    """A well-formed move that the rule `rule_id` forbids in the current state."""

    def __init__(self, rule_id: str, message: str) -> None:
        super().__init__(message)
        self.rule_id = rule_id

    def __str__(self) -> str:
        return f"{self.rule_id}: {self.message}"


class MalformedMove(EngineError):
    """A move that cannot be a move of this game (empty, out of range, unknown card)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class InvalidOptions(EngineError):
    """Creation options or a seat count the game does not accept."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
