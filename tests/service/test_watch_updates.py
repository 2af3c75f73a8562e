"""A watch update is serialized once per seat from parts every seat shares
(games.Published.update_for): the same bytes as the message built whole, for every game, seat
and spectator at every move of whole random games (C-4: each seat sees only what it may)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from google.protobuf.message import Message

from croupier.engines.core.engine import Emitted
from croupier.engines.registry import GAMES
from croupier.service.application import clocks, moves
from croupier.service.application.config import Settings
from croupier.service.application.games import (
    LoadedGame,
    Published,
    RecentNotifications,
    _positions,
    _varint,
    notification_head,
)
from croupier.service.application.limits import StreamCount
from croupier.v1.game_service_pb2 import (
    GAME_STATUS_ACTIVE,
    ApplyMoveResponse,
    GameView,
    WatchGameResponse,
)
from croupier.v1.storage_pb2 import MoveNotification, StoredGame


def whole_update(game: LoadedGame, emitted: Sequence[Emitted[Any]], seat: int | None) -> bytes:
    """The update as a message built whole: the seat's view and its events."""
    events = ApplyMoveResponse().events
    game.add_events(events, emitted, seat)
    return WatchGameResponse(view=game.view(seat), events=events).SerializeToString()


@pytest.mark.parametrize("game_type", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("several", [False, True], ids=["one stream", "several streams"])
def test_every_update_has_the_bytes_of_the_message_built_whole(
    game_type: str, seed: int, several: bool
) -> None:
    """Whichever way the first audience's view is built: whole (one stream watches the game
    here) or from the shared view (several do)."""
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
        published = Published(game, note.events, several)
        viewers = [*range(seats), None]
        chooser.shuffle(viewers)  # any audience may be the first a stream asks for
        for viewer in viewers:
            assert published.update_for(viewer) == whole_update(game, emitted, viewer)
    assert moves > 10


@pytest.fixture
def fixed_clock() -> Iterator[None]:
    clocks.set_now(lambda: 1_700_000_000_000)
    yield
    clocks.set_now(None)


@pytest.mark.parametrize("game_type", sorted(GAMES))
@pytest.mark.parametrize("clock_seconds", [0, 60], ids=["no clock", "turn clock"])
def test_a_move_written_here_goes_to_the_watchers_here_without_a_decode(
    game_type: str, clock_seconds: int, fixed_clock: None
) -> None:
    """A move this process writes while its streams watch the game (moves.move_commit with
    the notifications) is found by its notification's payload: the game it was decided on,
    with the parts every update shares, from which its response's view was put together.
    Every audience's update is still the message built whole, and the response and the write
    are those made without it (a turn clock's deadlines and due entries included)."""
    engine = GAMES[game_type]
    chooser = random.Random(5)
    seats = engine.max_seats
    state, _ = engine.new_game(engine.options_type(), seats, 5)
    stored = StoredGame(
        game_type=game_type,
        display_names=[f"player {seat}" for seat in range(seats)],
        credential_hashes=[bytes([seat + 1]) * 32 for seat in range(seats)],
    )
    stored.clock.seconds = clock_seconds
    data = LoadedGame("ef" * 12, 1, stored, engine, state).encode()
    moves_made = 0
    while moves_made < 60:
        plain, watched = (LoadedGame.decode("ef" * 12, moves_made + 1, data) for _ in range(2))
        if engine.result(plain.state) is not None:
            break
        seat = chooser.choice(engine.active_seats(plain.state))
        move = chooser.choice(engine.legal_moves(plain.state, seat))
        emitted = engine.apply(plain.state, seat, move)
        response, commit = moves.move_commit(
            Settings(), plain, seat, plain.wrap_move(move), emitted, None, b"", 0
        )
        notifications = RecentNotifications(size=4)
        watched_response, watched_commit = moves.move_commit(
            Settings(),
            watched,
            seat,
            watched.wrap_move(move),
            engine.apply(watched.state, seat, move),
            None,
            b"",
            0,
            notifications=notifications,
        )
        assert watched_response.SerializeToString() == response.SerializeToString()
        assert bool(response.view.deadlines) == bool(clock_seconds)
        payload = commit.notification_head + commit.data
        assert watched_commit.notification_head + watched_commit.data == payload
        published = notifications.decode(watched.game_id, payload, streams=2)
        assert published.game is watched and published.parts and published.shared
        for viewer in [*range(seats), None]:
            assert published.update_for(viewer) == whole_update(plain, emitted, viewer)
        data, moves_made = commit.data, moves_made + 1
    assert moves_made > 10


def test_filed_moves_are_kept_within_the_bound_and_never_replace_a_decoded_one() -> None:
    """A filed move whose write was refused is never asked for: it ages out with the others
    (the bound), and a payload already decoded keeps its entry."""
    decoded = _published_move("one_card", streams=1)
    recent = RecentNotifications(size=2)
    payloads = [bytes([n]) * 8 for n in range(3)]
    for payload in payloads:
        recent.remember("g", payload, Published(decoded.game, decoded.events, filed=True))
    assert len(recent._recent) == 2 and ("g", payloads[0]) not in recent._recent
    kept = recent._recent[("g", payloads[2])]
    recent.remember("g", payloads[2], decoded)
    assert recent.decode("g", payloads[2], streams=1) is kept


def _published_move(game_type: str, streams: int) -> Published:
    """The first move of a new game of `game_type`, as a process with `streams` watch streams of
    the game decodes its notification."""
    engine = GAMES[game_type]
    state, _ = engine.new_game(engine.options_type(), engine.max_seats, 3)
    stored = StoredGame(game_type=game_type, display_names=[""] * engine.max_seats)
    game = LoadedGame("cd" * 12, 1, stored, engine, state)
    seat = engine.active_seats(state)[0]
    emitted = engine.apply(state, seat, engine.legal_moves(state, seat)[0])
    game.version = 2
    data = game.encode()
    payload = notification_head(game.notification(emitted), len(data)) + data
    return RecentNotifications(size=4).decode(game.game_id, payload, streams)


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_a_game_one_stream_watches_has_its_view_built_whole(game_type: str) -> None:
    published = _published_move(game_type, streams=1)
    published.update_for(0)
    assert published.shared is None  # no shared view for an audience of one
    published.update_for(1)  # a second audience after all (two streams came and went)
    assert published.shared is not None


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_a_game_several_streams_watch_builds_its_shared_view_once_for_all(game_type: str) -> None:
    published = _published_move(game_type, streams=3)
    published.update_for(None)
    shared = published.shared
    assert shared is not None  # from the first audience on: the others need it anyway
    published.update_for(0)
    published.update_for(1)
    assert published.shared is shared


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_the_shared_fields_are_filled_in_two_parts_either_side_of_the_seat(game_type: str) -> None:
    """An update puts a seat's number between the two parts, serialized apart: each holds only
    fields on its side of `viewer_seat`, and together they are the shared view."""
    game = _published_move(game_type, streams=2).game
    game.stored.clock.seconds = 60  # the clock's fields too, and a finished game's result
    game.stored.clock.deadline_ms.extend([1_000] * game.state.seats)
    game.stored.clock.forfeited_seat = 0
    before, after, whole = GameView(), GameView(), GameView()
    game.fill_before_seat(before)
    game.fill_after_seat(after)
    game.fill_shared(whole)
    seat = GameView.VIEWER_SEAT_FIELD_NUMBER
    assert before.ListFields() and all(f.number < seat for f, _ in before.ListFields())
    assert after.ListFields() and all(f.number > seat for f, _ in after.ListFields())
    assert {f.name for f, _ in after.ListFields()} >= {
        "result",
        "deadlines",
        "clock_seconds",
        "forfeited_seat",
    }
    assert before.SerializeToString() + after.SerializeToString() == whole.SerializeToString()


def test_the_streams_a_game_has_here_are_counted_as_they_come_and_go() -> None:
    """What the servicer gives `RecentNotifications.decode` for a game: its open streams,
    seats' and spectators' together."""
    watchers = StreamCount(0, 0, 0)
    assert watchers.count("g") == 0
    streams = [
        watchers.enter("g", None, "a"),
        watchers.enter("g", "cs_1", "a"),
        watchers.enter("h", None, "b"),
    ]
    assert (watchers.count("g"), watchers.count("h")) == (2, 1)
    watchers.leave(streams[0])
    watchers.leave(streams[2])
    assert (watchers.count("g"), watchers.count("h")) == (1, 0)


def test_the_wire_format_helpers_read_and_write_as_protobuf_does() -> None:
    """The update's parts are cut from serialized messages where a field starts: found for
    tags of one and two bytes, lengths of one and two bytes and varint values of one to seven
    bytes, as protobuf lays them out (the whole games above seldom reach the longer forms)."""
    assert _varint(0) == b"\x00"  # (a field at its default is not written: no protobuf twin)
    for value in (1, 127, 128, 300, 16_383, 16_384, 2**31 - 1):
        assert _varint(value) == GameView(move_count=value).SerializeToString()[1:]
    view = GameView(
        name="games/" + "x" * 200,  # a length of two bytes
        seats=3,
        display_names=["a" * 128, "b"],  # a length of 0x80 0x01
        viewer_seat=1,
        move_count=2**42,  # a value of seven bytes: six of 0x80, then 0x01
        status=GAME_STATUS_ACTIVE,
        clock_seconds=300,  # field 16: a tag of two bytes
        time_bank_ms=[90_000, 1, 2**40],  # packed: a length, then varints of up to six bytes
        forfeited_seat=2,
    )
    view.one_card.hand_sizes.extend([7, 7, 7])
    data = view.SerializeToString()
    numbers = sorted(field.number for field in GameView.DESCRIPTOR.fields)
    for start in range(len(numbers)):
        wanted = numbers[start:]
        before: Message = GameView.FromString(data)  # (a Message: its fields cleared by name)
        for field in GameView.DESCRIPTOR.fields:
            if field.number >= wanted[0]:
                before.ClearField(field.name)
        expected = len(before.SerializeToString())  # where the first field of `wanted` starts
        assert _positions(data, wanted)[0] == expected
    assert _positions(data, (6, 16, 22)) == tuple(_positions(data, (n,))[0] for n in (6, 16, 22))
    assert _positions(data, (26,)) == (len(data),)  # beyond the last field: the end
