"""Which moves are legal (HC-3.1, HC-3.2, C-5): the one check, `violation`, which `apply` raises
with and `legal_moves` filters the candidates with. Its messages name nothing hidden (HC-5.6)."""

from __future__ import annotations

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.high_card.cards import CARDS
from croupier.v1.high_card_pb2 import HighCardMove, HighCardState

_NOT_YOUR_TURN = Violation("HC-3.2", "it is not your turn to play")
_NOT_HELD = Violation("HC-3.2", "you do not hold that card")


def parse(move: HighCardMove) -> int:
    """The card played, or MalformedMove for what cannot be a High Card move."""
    if move.WhichOneof("kind") != "play":
        raise MalformedMove("kind", "a High Card move plays a card")
    if move.play.card not in CARDS:
        raise MalformedMove("play.card", f"there is no card {move.play.card}: cards are 1..12")
    return move.play.card


def violation(state: HighCardState, seat: int, card: int) -> Violation | None:
    if state.over or seat != state.turn:
        return _NOT_YOUR_TURN
    if card not in state.hands[seat].cards:
        return _NOT_HELD
    return None


def legal_moves(state: HighCardState, seat: int) -> list[HighCardMove]:
    if not 0 <= seat < state.seats:
        return []
    return [
        HighCardMove(play=HighCardMove.Play(card=card))
        for card in state.hands[seat].cards
        if violation(state, seat, card) is None
    ]


def active_seats(state: HighCardState) -> list[int]:
    return [] if state.over else [state.turn]
