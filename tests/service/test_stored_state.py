"""A stored game's state is unpacked from its Any as protobuf's `Any.Unpack` reads it
(games.state_of): the type URL `pack_state` writes is compared whole, any other is read as
Unpack reads it."""

from __future__ import annotations

import pytest

from croupier.engines.registry import GAMES
from croupier.service.application.games import UnreadableGame, pack_state, state_of
from croupier.v1.storage_pb2 import StoredGame


def _stored(game_type: str) -> StoredGame:
    engine = GAMES[game_type]
    state, _ = engine.new_game(engine.options_type(), engine.min_seats, 5)
    stored = StoredGame(game_type=game_type)
    pack_state(stored, state)
    return stored


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_a_state_is_read_back_as_packed(game_type: str) -> None:
    stored = _stored(game_type)
    assert stored.state.type_url.startswith("type.googleapis.com/")
    assert state_of(stored).SerializeToString() == stored.state.value


def test_a_type_url_with_another_prefix_is_read_as_any_unpack_reads_it() -> None:
    stored = _stored("one_card")
    stored.state.type_url = "example.org/prefix/croupier.v1.OneCardState"
    assert state_of(stored).SerializeToString() == stored.state.value


@pytest.mark.parametrize(
    "type_url", ["type.googleapis.com/croupier.v1.TrinityState", "croupier.v1.OneCardState", ""]
)
def test_a_state_of_another_type_is_unreadable(type_url: str) -> None:
    stored = _stored("one_card")
    stored.state.type_url = type_url
    with pytest.raises(UnreadableGame, match="stored in an older format"):
        state_of(stored)
