"""What's Your Name? (`whats_your_name`): not written yet; see ../shared/rules/whats_your_name.md."""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult
from croupier.v1.whats_your_name_pb2 import WhatsYourNameEvent, WhatsYourNameMove, WhatsYourNameOptions, WhatsYourNameState, WhatsYourNameView
from engines.core.engine import Emitted, Engine


class WhatsYourNameEngine(Engine[WhatsYourNameOptions, WhatsYourNameState, WhatsYourNameView, WhatsYourNameMove, WhatsYourNameEvent]):
    game_id = "whats_your_name"
    title = "What's Your Name?"
    min_seats = 2
    max_seats = 6
    options_type = WhatsYourNameOptions
    state_type = WhatsYourNameState
    view_type = WhatsYourNameView
    move_type = WhatsYourNameMove
    event_type = WhatsYourNameEvent

    def new_game(
        self, options: WhatsYourNameOptions, seats: int, seed: int
    ) -> tuple[WhatsYourNameState, list[Emitted[WhatsYourNameEvent]]]:
        raise NotImplementedError

    def active_seats(self, state: WhatsYourNameState) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state: WhatsYourNameState, seat: int) -> list[WhatsYourNameMove]:
        raise NotImplementedError

    def apply(self, state: WhatsYourNameState, seat: int, move: WhatsYourNameMove) -> list[Emitted[WhatsYourNameEvent]]:
        raise NotImplementedError

    def view(self, state: WhatsYourNameState, seat: int | None) -> WhatsYourNameView:
        raise NotImplementedError

    def result(self, state: WhatsYourNameState) -> GameResult | None:
        raise NotImplementedError


ENGINE = WhatsYourNameEngine()
