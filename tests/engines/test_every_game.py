"""Random legal play to the end, for every registered game (the generic test)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.registry import GAMES
from tests.engines.playout import play_randomly


def test_all_five_games_are_registered() -> None:
    assert sorted(GAMES) == sorted(
        ["whats_your_name", "one_card", "pig_mau_mau", "vampire_queen", "trinity"]
    )


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_play_every_seat_count(game_id: str) -> None:
    engine = GAMES[game_id]
    for seats in range(engine.min_seats, engine.max_seats + 1):
        play_randomly(engine, engine.options_type(), seats, seed=1000 + seats)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_play_property(game_id: str) -> None:
    engine = GAMES[game_id]

    @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 2**64 - 1), data=st.data())
    def run(seed: int, data: st.DataObject) -> None:
        seats = data.draw(st.integers(engine.min_seats, engine.max_seats), label="seats")
        play_randomly(engine, engine.options_type(), seats, seed)

    run()
