"""Trinity (`trinity`): not written yet; see ../shared/rules/trinity.md."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.trinity_pb2 import TrinityEvent, TrinityMove, TrinityOptions, TrinityState, TrinityView
from engines.core.engine import Emitted, Engine


class TrinityEngine(Engine[TrinityOptions, TrinityState, TrinityView, TrinityMove, TrinityEvent]):
    game_id = "trinity"
    title = "Trinity"
    min_seats = 3
    max_seats = 3
    options_type = TrinityOptions
    state_type = TrinityState
    view_type = TrinityView
    move_type = TrinityMove
    event_type = TrinityEvent

    def new_game(
        self, options: TrinityOptions, seats: int, seed: int
    ) -> tuple[TrinityState, list[Emitted[TrinityEvent]]]:
        raise NotImplementedError

    def active_seats(self, state: TrinityState) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state: TrinityState, seat: int) -> list[TrinityMove]:
        raise NotImplementedError

    def apply(self, state: TrinityState, seat: int, move: TrinityMove) -> list[Emitted[TrinityEvent]]:
        raise NotImplementedError

    def view(self, state: TrinityState, seat: int | None) -> TrinityView:
        raise NotImplementedError

    def result(self, state: TrinityState) -> GameResult | None:
        raise NotImplementedError


ENGINE = TrinityEngine()
