"""Vampire Queen (`vampire_queen`): not written yet; see ../shared/rules/vampire_queen.md."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.vampire_queen_pb2 import VampireQueenEvent, VampireQueenMove, VampireQueenOptions, VampireQueenState, VampireQueenView
from engines.core.engine import Emitted, Engine


class VampireQueenEngine(Engine[VampireQueenOptions, VampireQueenState, VampireQueenView, VampireQueenMove, VampireQueenEvent]):
    game_id = "vampire_queen"
    title = "Vampire Queen"
    min_seats = 3
    max_seats = 12
    options_type = VampireQueenOptions
    state_type = VampireQueenState
    view_type = VampireQueenView
    move_type = VampireQueenMove
    event_type = VampireQueenEvent

    def new_game(
        self, options: VampireQueenOptions, seats: int, seed: int
    ) -> tuple[VampireQueenState, list[Emitted[VampireQueenEvent]]]:
        raise NotImplementedError

    def active_seats(self, state: VampireQueenState) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state: VampireQueenState, seat: int) -> list[VampireQueenMove]:
        raise NotImplementedError

    def apply(self, state: VampireQueenState, seat: int, move: VampireQueenMove) -> list[Emitted[VampireQueenEvent]]:
        raise NotImplementedError

    def view(self, state: VampireQueenState, seat: int | None) -> VampireQueenView:
        raise NotImplementedError

    def result(self, state: VampireQueenState) -> GameResult | None:
        raise NotImplementedError


ENGINE = VampireQueenEngine()
