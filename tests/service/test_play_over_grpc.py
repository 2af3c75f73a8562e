"""Whole games through the real server processes and a real Redis."""

from __future__ import annotations

import pytest
import redis

from croupier.client import Croupier
from engines.registry import GAMES
from tests.service.helpers import assert_replays, create, play_to_end


@pytest.mark.parametrize("game", sorted(GAMES))
def test_create_play_to_game_over_and_replay(
    game: str, client: Croupier, client_b: Croupier, redis_client: redis.Redis
) -> None:
    """Create → moves (alternating between two replicas) → game over; the stored move log
    replays from the seed to the stored state byte for byte."""
    engine = GAMES[game]
    created = create(client, game, engine.min_seats, seed=11)
    view, moves = play_to_end([client, client_b], created, seed=11)
    assert view.result.seats
    assert list(view.active_seats) == []
    assert assert_replays(redis_client, created.name) == moves == view.move_count


def test_same_seed_same_game(client: Croupier) -> None:
    """C-2: the same seed and the same moves give the same game."""
    first = create(client, "vampire_queen", 4, seed=99)
    second = create(client, "vampire_queen", 4, seed=99)
    for seat in range(4):
        a = client.get(first.name, first.seat_credentials[seat]).vampire_queen
        b = client.get(second.name, second.seat_credentials[seat]).vampire_queen
        assert a == b


def test_notification_head_and_state_make_a_notification() -> None:
    """The store publishes head + state; that must parse as the full MoveNotification."""
    from croupier.v1.game_service_pb2 import Event
    from croupier.v1.storage_pb2 import AudiencedEvent, MoveNotification, StoredGame
    from service.games import notification_head

    for size in (0, 5, 127, 128, 300, 20_000):
        game = StoredGame(game_type="vampire_queen", display_names=["x" * size])
        events = [AudiencedEvent(public=Event())]
        data = game.SerializeToString()
        note = MoveNotification.FromString(notification_head(7, events, len(data)) + data)
        assert note == MoveNotification(version=7, game=game, events=events)
