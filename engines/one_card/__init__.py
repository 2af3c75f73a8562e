"""Tobot One Card (`one_card`): not written yet; see ../shared/rules/one_card.md."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.one_card_pb2 import OneCardEvent, OneCardMove, OneCardOptions, OneCardState, OneCardView
from engines.core.engine import Emitted, Engine


class OneCardEngine(Engine[OneCardOptions, OneCardState, OneCardView, OneCardMove, OneCardEvent]):
    game_id = "one_card"
    title = "Tobot One Card"
    min_seats = 2
    max_seats = 10
    options_type = OneCardOptions
    state_type = OneCardState
    view_type = OneCardView
    move_type = OneCardMove
    event_type = OneCardEvent

    def new_game(
        self, options: OneCardOptions, seats: int, seed: int
    ) -> tuple[OneCardState, list[Emitted[OneCardEvent]]]:
        raise NotImplementedError

    def active_seats(self, state: OneCardState) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state: OneCardState, seat: int) -> list[OneCardMove]:
        raise NotImplementedError

    def apply(self, state: OneCardState, seat: int, move: OneCardMove) -> list[Emitted[OneCardEvent]]:
        raise NotImplementedError

    def view(self, state: OneCardState, seat: int | None) -> OneCardView:
        raise NotImplementedError

    def result(self, state: OneCardState) -> GameResult | None:
        raise NotImplementedError


ENGINE = OneCardEngine()
