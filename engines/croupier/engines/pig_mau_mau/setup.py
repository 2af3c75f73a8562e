"""Setting up a Pig Mau Mau game: the options checked, the finish line (PM-1.5), the start seat
by option or by lot (PM-2.3, C-3), race 1 set up (PM-2) and its first turn begun."""

from __future__ import annotations

from typing import Final

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.pig_mau_mau.flow import Event, begin_turn, start_race
from croupier.v1.pig_mau_mau_pb2 import PigMauMauEvent, PigMauMauOptions, PigMauMauState

MAX_FINISH: Final = 60
DEFAULT_FINISH: Final = {2: 12, 3: 14, 4: 16, 5: 18}  # PM-1.5 Decision


def new_game(
    options: PigMauMauOptions, seats: int, seed: int
) -> tuple[PigMauMauState, list[Emitted[PigMauMauEvent]]]:
    if not 0 <= options.finish_distance <= MAX_FINISH:
        raise InvalidOptions(
            "finish_distance", f"finish_distance must be 0 (default) or 1..{MAX_FINISH}"
        )
    by_option = options.HasField("start_seat")
    if by_option and not 0 <= options.start_seat < seats:
        raise InvalidOptions("start_seat", f"start_seat must be a seat, 0..{seats - 1}")
    state = PigMauMauState(seats=seats, rng=rng.seeded(seed))
    state.options.CopyFrom(options)
    state.finish = options.finish_distance or DEFAULT_FINISH[seats]
    for _ in range(seats):
        state.hands.add()
    # PM-2.3 / C-3: the best oinker starts race 1.
    first = options.start_seat if by_option else rng.below(state.rng, seats)
    events: list[Emitted[PigMauMauEvent]] = [
        Emitted(Event(start_seat_chosen=Event.StartSeatChosen(seat=first, by_option=by_option)))
    ]
    start_race(state, 1, first, events)
    begin_turn(state, first, events)
    return state, events
