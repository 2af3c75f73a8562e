"""Whole games through the real server processes and a real Redis."""

from __future__ import annotations

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.service.application.games import state_of
from croupier.service.store import keys
from croupier.v1.storage_pb2 import StoredGame
from tests.service.helpers import (
    StoredReplay,
    assert_replays,
    create,
    game_id,
    play_to_end,
    stored,
)


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


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_write_packs_the_engines_state(
    game: str, client: Croupier, client_b: Croupier, redis_client: redis.Redis
) -> None:
    """StoredGame.state is an Any packed at every write (LoadedGame.encode): after each move of
    a whole game (each at its most seats), the stored bytes unpack to exactly the state
    the logged moves replay to, so a write that serialized a stale pack fails at that move."""
    engine = GAMES[game]
    created = create(client, game, engine.max_seats, seed=12)
    replay = StoredReplay(redis_client, created.name)
    view, moves = play_to_end([client, client_b], created, seed=12, after_move=replay.check)
    assert view.result.seats and moves == view.move_count
    assert assert_replays(redis_client, created.name) == moves


def test_a_game_stored_in_the_old_format_is_refused(
    client: Croupier, redis_client: redis.Redis
) -> None:
    """A game stored before the Any (its state in field 12, one_card's member of the former
    oneof) is refused with GAME_UNREADABLE, not a crash; other games are served as before."""
    created = create(client, "one_card", 2, seed=3)
    _, new = stored(redis_client, created.name)
    old = StoredGame()
    old.CopyFrom(new)
    old.ClearField("state")
    state = state_of(new).SerializeToString()
    data = old.SerializeToString() + bytes([12 << 3 | 2]) + _varint(len(state)) + state
    redis_client.hset(keys.game(game_id(created.name)), "s", data)
    for call in (
        lambda: client.get(created.name),
        lambda: client.legal_moves(created.name, created.seat_credentials[0]),
    ):
        with pytest.raises(CroupierError) as raised:
            call()
        assert raised.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert raised.value.reason == "GAME_UNREADABLE", raised.value
    other = create(client, "one_card", 2, seed=4)
    assert client.get(other.name).game_type == "one_card"


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes([*out, value])


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
    from croupier.service.application.games import notification_head
    from croupier.v1.game_service_pb2 import Event
    from croupier.v1.storage_pb2 import AudiencedEvent, MoveNotification, StoredGame

    for size in (0, 5, 127, 128, 300, 20_000):
        game = StoredGame(game_type="vampire_queen", display_names=["x" * size])
        events = [AudiencedEvent(public=Event())]
        data = game.SerializeToString()
        head = notification_head(MoveNotification(version=7, events=events), len(data))
        note = MoveNotification.FromString(head + data)
        assert note == MoveNotification(version=7, game=game, events=events)


def test_a_notification_is_decoded_once_and_each_seats_update_built_once() -> None:
    """Every stream of a game gets the same payload: one decode, one update per seat (and one
    for the spectators), each with that audience's view and events (C-4)."""
    from croupier.engines.registry import GAMES
    from croupier.service.application.games import (
        LoadedGame,
        RecentNotifications,
        notification_head,
    )
    from croupier.v1.game_service_pb2 import ApplyMoveResponse, WatchGameResponse
    from croupier.v1.storage_pb2 import StoredGame

    engine = GAMES["vampire_queen"]
    state, _ = engine.new_game(engine.options_type(), 3, 5)
    stored = StoredGame(game_type="vampire_queen", display_names=[""] * 3)
    game = LoadedGame("a" * 24, 1, stored, engine, state)
    seat = engine.active_seats(game.state)[0]
    emitted = engine.apply(game.state, seat, engine.legal_moves(game.state, seat)[0])
    game.version = 2
    data = game.encode()
    payload = notification_head(game.notification(emitted), len(data)) + data

    recent = RecentNotifications(size=2)
    published = recent.decode("a" * 24, payload, 4)
    assert recent.decode("a" * 24, bytes(payload), 4) is published  # equal bytes: same entry
    assert published.game.version == 2
    for viewer in (0, 1, 2, None):
        serialized = published.update_for(viewer)
        assert published.update_for(viewer) is serialized
        update = WatchGameResponse.FromString(serialized)
        assert update.view == game.view(viewer)
        response = ApplyMoveResponse()
        game.add_events(response.events, emitted, viewer)
        assert update.events == response.events
    assert published.update_for(0) != published.update_for(1)  # each sees its own hand
    recent.decode("b" * 24, payload, 1)
    recent.decode("c" * 24, payload, 1)
    assert recent.decode("a" * 24, payload, 4) is not published  # the oldest was dropped
