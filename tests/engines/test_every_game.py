"""Random legal play to the end, for every registered game (the generic test)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.registry import GAME_TYPES, GAMES
from croupier.v1.game_service_pb2 import CreateGameRequest, Event, GameView, Move
from tests.engines.helpers import encode, games_index, generic_of
from tests.engines.playout import play_randomly


def test_the_registered_games_are_the_indexed_ones() -> None:
    """The registry and the games index (docs/games/README.md) list the same games, and the
    index says each game's title and seat counts as its engine does."""
    index = games_index()
    assert sorted(GAMES) == sorted(index)
    assert len(GAMES) >= 5
    for game_id, engine in GAMES.items():
        row = index[game_id]
        assert row.title.startswith(engine.title), (game_id, row.title)
        seats = (
            f"exactly {engine.min_seats}"
            if engine.min_seats == engine.max_seats
            else f"{engine.min_seats}\N{EN DASH}{engine.max_seats}"
        )
        assert row.players == seats, (game_id, row.players)
        assert row.page == f"{game_id}.md", (game_id, row.page)


@pytest.mark.parametrize(
    ("message", "oneof", "role"),
    [
        (CreateGameRequest, "options", "options_type"),
        (GameView, "game", "view_type"),
        (Move, "game", "move_type"),
        (Event, "game", "event_type"),
    ],
)
def test_the_protos_hold_every_registered_game(message: Any, oneof: str, role: str) -> None:
    """Each generic message's oneof has one member per registered game, named by its id, in the
    registry's order, of the engine's own message type: the service and the clients find a
    game's messages by its id alone."""
    members = message.DESCRIPTOR.oneofs_by_name[oneof].fields
    assert [f.name for f in members] == list(GAME_TYPES)
    for member in members:
        own = getattr(GAMES[member.name], role).DESCRIPTOR
        assert member.message_type.full_name == own.full_name, (member.name, role)


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


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_brings_what_the_generic_tests_need(game_id: str) -> None:
    """tests/engines/<game>/generic.py (tests/engines/helpers.py: generic_of), so that the
    move-space and secrets tests need no entry of their own for a game."""
    generic = generic_of(game_id)
    engine = GAMES[game_id]
    assert generic.OPTIONS and all(isinstance(o, engine.options_type) for o in generic.OPTIONS)
    assert generic.SWEEP.games > 0
    state, _ = engine.new_game(generic.OPTIONS[0], engine.min_seats, 1)
    assert any(True for _ in generic.moves(state, 0, False))
    other = generic.scrambled(state, 0, random.Random(1))
    assert isinstance(other, engine.state_type)
    assert encode(engine.view(other, 0)) == encode(engine.view(state, 0))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_view_is_its_shared_part_and_its_audiences_own_fields(game_id: str) -> None:
    """C-4, as watch updates use it (service/croupier/service/application/games.py, SharedView):
    every audience's view is the shared view, which holds none of `own_view_fields`, with the
    audience's own fields merged in, each part holding its own field only. Checked for every seat
    and a spectator after every move of random games of two seat counts."""
    engine = GAMES[game_id]
    own_fields = engine.own_view_fields
    if not own_fields:
        pytest.skip(f"{game_id} builds each view whole (no own_view_fields)")
    assert list(own_fields) == sorted(set(own_fields))
    for seats in (engine.min_seats, engine.max_seats):
        _, log = play_randomly(engine, engine.options_type(), seats, 7, check_every_step=False)
        replayed, _ = engine.new_game(engine.options_type(), seats, 7)
        for step in range(len(log) + 1):
            if step:
                engine.apply(replayed, *log[step - 1])
            shared = engine.shared_view(replayed)
            held = {field.number for field, _ in shared.ListFields()}
            assert held.isdisjoint(own_fields), f"the shared view holds {held & set(own_fields)}"
            for viewer in [*range(seats), None]:
                parts = engine.own_view(replayed, viewer)
                assert len(parts) == len(own_fields)
                for number, part in zip(own_fields, parts, strict=True):
                    fields = engine.view_type.FromString(part).ListFields()
                    assert {field.number for field, _ in fields} <= {number}
                merged = engine.shared_view(replayed)
                merged.MergeFromString(b"".join(parts))
                assert merged == engine.view(replayed, viewer)
