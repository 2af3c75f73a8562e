"""A watch update is serialized once per seat from parts every seat shares
(games.Published.update_for): the same bytes as the message built whole, for every game, seat
and spectator at every move of whole random games (C-4: each seat sees only what it may)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from croupier.engines.core.engine import Emitted
from croupier.engines.registry import GAMES
from croupier.service.games import LoadedGame, Published, notification_head
from croupier.v1.game_service_pb2 import ApplyMoveResponse, WatchGameResponse
from croupier.v1.storage_pb2 import MoveNotification, StoredGame


def whole_update(game: LoadedGame, emitted: Sequence[Emitted[Any]], seat: int | None) -> bytes:
    """The update as a message built whole: the seat's view and its events."""
    events = ApplyMoveResponse().events
    game.add_events(events, emitted, seat)
    return WatchGameResponse(view=game.view(seat), events=events).SerializeToString()


@pytest.mark.parametrize("game_type", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_update_has_the_bytes_of_the_message_built_whole(game_type: str, seed: int) -> None:
    engine = GAMES[game_type]
    chooser = random.Random(seed)
    seats = chooser.randint(engine.min_seats, engine.max_seats)
    state, _ = engine.new_game(engine.options_type(), seats, seed)
    stored = StoredGame(
        game_type=game_type,
        display_names=[f"player {seat}" for seat in range(seats)],
        player_ids=[f"id-{seat}" if seat % 2 else "" for seat in range(seats)],
        credential_hashes=[bytes([seat + 1]) * 32 for seat in range(seats)],
    )
    game = LoadedGame("ab" * 12, 1, stored, engine, state)
    moves = 0
    while engine.result(state) is None and moves < 400:
        seat = chooser.choice(engine.active_seats(state))
        emitted = engine.apply(state, seat, chooser.choice(engine.legal_moves(state, seat)))
        game.version += 1
        stored.move_count = moves = moves + 1
        data = game.encode()
        note = MoveNotification.FromString(
            notification_head(game.notification(emitted), len(data)) + data
        )
        published = Published(game, note.events)
        for viewer in [*range(seats), None]:
            assert published.update_for(viewer) == whole_update(game, emitted, viewer)
    assert moves > 10
