"""Pig Mau Mau (`pig_mau_mau`): not written yet; see ../shared/rules/pig_mau_mau.md."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.pig_mau_mau_pb2 import PigMauMauEvent, PigMauMauMove, PigMauMauOptions, PigMauMauState, PigMauMauView
from engines.core.engine import Emitted, Engine


class PigMauMauEngine(Engine[PigMauMauOptions, PigMauMauState, PigMauMauView, PigMauMauMove, PigMauMauEvent]):
    game_id = "pig_mau_mau"
    title = "Pig Mau Mau"
    min_seats = 2
    max_seats = 5
    options_type = PigMauMauOptions
    state_type = PigMauMauState
    view_type = PigMauMauView
    move_type = PigMauMauMove
    event_type = PigMauMauEvent

    def new_game(
        self, options: PigMauMauOptions, seats: int, seed: int
    ) -> tuple[PigMauMauState, list[Emitted[PigMauMauEvent]]]:
        raise NotImplementedError

    def active_seats(self, state: PigMauMauState) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state: PigMauMauState, seat: int) -> list[PigMauMauMove]:
        raise NotImplementedError

    def apply(self, state: PigMauMauState, seat: int, move: PigMauMauMove) -> list[Emitted[PigMauMauEvent]]:
        raise NotImplementedError

    def view(self, state: PigMauMauState, seat: int | None) -> PigMauMauView:
        raise NotImplementedError

    def result(self, state: PigMauMauState) -> GameResult | None:
        raise NotImplementedError


ENGINE = PigMauMauEngine()
