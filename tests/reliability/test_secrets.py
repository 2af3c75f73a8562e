"""Secrets: for every game, random games played through the API, with every message a seat or a
spectator receives checked against the full state read directly from Redis at the same version.

- Views (ApplyMove, GetGame, WatchGame) are exactly the documented GameView built from the
  engine's own `view(state, seat)`; events (ApplyMove, WatchGame) are exactly the engine's
  `Emitted.for_seat(seat)`; legal move lists are the engine's for that seat; a refused move's
  status is exactly the engine's refusal (code, message, details) and nothing more. So the
  service adds nothing and mixes up no audiences.
- Nothing hidden from a seat reaches it: the view bytes it received do not change when
  everything it may not see is scrambled (the engines' own scramblers), nor does the refusal it
  receives for a move.
- Credentials: a seat's credential sending another seat's legal move is refused, a spectator
  can never act, and no credential (nor its hash) appears in any response after CreateGame or
  in the server logs (at debug level).
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from google.rpc import status_pb2
from grpc_status import rpc_status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.engines.registry import GAMES
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.application import auth, errors
from croupier.service.application.games import pack_state, state_of
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.storage_pb2 import StoredGame
from tests.engines.helpers import generic_of
from tests.reliability.figures import record
from tests.reliability.support import (
    GAME_TYPES,
    encode,
    expected_view,
    metadata,
    raw,
    redis_client,
    stored,
    wrap_move,
    wrapped_events,
)

FIGURES: Counter[str] = Counter()
CREDENTIALS: list[str] = []  # every credential handed out in this module

# --- what a seat may not see: the engines' own scramblers ----------------------------------


# Each game's scrambler, from its tests/engines/<game>/generic.py. Loaded here, at import: a
# game's test modules define Hypothesis tests, and importing them inside a running @given
# trips Hypothesis's nested-given check.
SCRAMBLERS: dict[str, Callable[[Any, int | None, random.Random], Any]] = {
    game_type: generic_of(game_type).scrambled for game_type in GAME_TYPES
}


def scrambled_for(game_type: str, state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The state with what `seat` may not see changed, by the game's own scrambler."""
    return SCRAMBLERS[game_type](state, seat, rnd)


# --- the server ------------------------------------------------------------------------------


@dataclass
class Env:
    servers: list[LocalServer]
    stubs: list[GameServiceStub]
    channels: list[grpc.Channel]
    client: redis.Redis
    logs: list[Path]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    folder = tmp_path_factory.mktemp("secrets")
    logs = [folder / "server-a.log", folder / "server-b.log"]
    with EmbeddedRedis() as store, logs[0].open("wb") as a_log, logs[1].open("wb") as b_log:
        started = [
            LocalServer(
                store.url,
                extra_args=("--rate-limit", "0", "--anonymous-rate-limit", "0"),
                log_level="debug",
                stderr=sink.fileno(),
            ).start()
            for sink in (a_log, b_log)
        ]
        channels = [grpc.insecure_channel(s.target) for s in started]
        client = redis_client(store.url)
        try:
            yield Env(started, [GameServiceStub(c) for c in channels], channels, client, logs)
        finally:
            client.close()
            for channel in channels:
                channel.close()
            for server in started:
                server.stop()


@pytest.fixture(scope="module", autouse=True)
def report(env: Env) -> Iterator[None]:
    yield
    check_logs(env.logs)
    record("secrets", **dict(sorted(FIGURES.items())), leaked=0)


def check_logs(logs: list[Path]) -> None:
    """No credential, nor its random part, nor its hash, in the servers' debug logs."""
    text = "".join(log.read_text(errors="replace") for log in logs)
    assert '"rpc"' in text, "the servers logged no calls"
    for credential in CREDENTIALS:
        assert credential not in text, "a credential appears in the server logs"
        assert credential.removeprefix(auth.PREFIX) not in text
        assert auth.credential_hash(credential).hex() not in text
    FIGURES["credentials_checked_in_logs"] = len(CREDENTIALS)
    FIGURES["log_lines_checked"] = text.count("\n")


# --- one call, and everything it returned --------------------------------------------------


class Received:
    """Every byte a client received after CreateGame: searched for credentials at the end."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def add(self, data: bytes) -> None:
        self.chunks.append(data)

    def check_no_credential(self, credentials: list[str]) -> None:
        blob = b"".join(self.chunks)
        for credential in credentials:
            assert credential.encode() not in blob, "a credential was sent in a response"
            assert credential.removeprefix(auth.PREFIX).encode() not in blob
            assert auth.credential_hash(credential) not in blob, "a credential hash was sent"
        FIGURES["bytes_received_checked"] += len(blob)


def call(received: Received, method: Any, request: Any, credential: str | None) -> Any:
    """The response, or the grpc.RpcError; both are recorded as received."""
    try:
        response = method(request, metadata=metadata(credential), timeout=10)
    except grpc.RpcError as error:
        received.add(refusal_bytes(error))
        return error
    received.add(response.SerializeToString())
    return response


def refusal_bytes(error: grpc.RpcError) -> bytes:
    status = rpc_status.from_call(error)
    text: str = error.details() or ""
    return text.encode() + (status.SerializeToString() if status is not None else b"")


def status_of(error: grpc.RpcError) -> status_pb2.Status:
    status = rpc_status.from_call(error)
    assert status is not None, "every refusal carries a google.rpc.Status"
    return status


def expected_refusal(engine: Any, state: Any, seat: int, move: Any) -> status_pb2.Status | None:
    """The status the engine's own refusal maps to (docs/api.md), None if the move is legal."""
    copy = type(state)()
    copy.CopyFrom(state)
    try:
        engine.apply(copy, seat, move)
    except IllegalMove as exc:
        error = errors.illegal_move(exc.rule_id, exc.message)
    except MalformedMove as exc:
        error = errors.invalid_argument(
            errors.Reason.MALFORMED_MOVE, f"move.{engine.game_type}.{exc.field}", exc.message
        )
    else:
        return None
    details = dict(error.to_status().trailing_metadata)["grpc-status-details-bin"]
    return status_pb2.Status.FromString(details)


# --- watchers ------------------------------------------------------------------------------


class Watcher:
    """A WatchGame stream of one seat (or the spectator) read in a thread."""

    def __init__(self, stub: GameServiceStub, name: str, seat: int | None, credential: str | None):
        self.seat = seat
        self.messages: list[pb.WatchGameResponse] = []
        self.error: grpc.RpcError | None = None
        self.stream: Any = stub.WatchGame(
            pb.WatchGameRequest(name=name), metadata=metadata(credential)
        )
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.stream:
                self.messages.append(message)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.error = error

    def last_etag(self) -> str:
        return self.messages[-1].view.etag if self.messages else ""

    def close(self) -> None:
        self.stream.cancel()
        self.thread.join(timeout=10)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


# --- one random game -----------------------------------------------------------------------


@dataclass
class Game:
    name: str
    game_type: str
    credentials: list[str]
    versions: dict[int, StoredGame] = field(default_factory=dict)
    events: dict[int, dict[int | None, bytes]] = field(default_factory=dict)

    @property
    def audiences(self) -> list[int | None]:
        return [*range(len(self.credentials)), None]

    def credential(self, seat: int | None) -> str | None:
        return None if seat is None else self.credentials[seat]


def check_views(
    env: Env, game: Game, version: int, received: Received, rng: random.Random
) -> dict[int | None, pb.GameView]:
    """GetGame and ListLegalMoves for every seat and the spectator, through either process."""
    stored_game = game.versions[version]
    engine = GAMES[game.game_type]
    state = state_of(stored_game)
    views: dict[int | None, pb.GameView] = {}
    for seat in game.audiences:
        stub = rng.choice(env.stubs)
        got = call(received, stub.GetGame, pb.GetGameRequest(name=game.name), game.credential(seat))
        assert isinstance(got, pb.GetGameResponse), got
        assert encode(got.view) == encode(expected_view(game.name, stored_game, version, seat))
        views[seat] = got.view
        FIGURES["views_checked"] += 1
        request = pb.ListLegalMovesRequest(name=game.name)
        listed = call(received, stub.ListLegalMoves, request, game.credential(seat))
        if seat is None:  # a spectator has no moves to list
            assert isinstance(listed, grpc.RpcError)
            assert listed.code() == grpc.StatusCode.UNAUTHENTICATED
            continue
        assert isinstance(listed, pb.ListLegalMovesResponse), listed
        wanted = [wrap_move(game.game_type, m) for m in engine.legal_moves(state, seat)]
        assert [encode(m) for m in listed.moves] == [encode(m) for m in wanted]
        assert (listed.etag, listed.seat) == (str(version), seat)
        FIGURES["legal_move_lists_checked"] += 1
    return views


def check_scrambled(game: Game, version: int, views: dict[int | None, pb.GameView]) -> None:
    """The view bytes each audience received do not depend on what it may not see."""
    stored_game = game.versions[version]
    engine = GAMES[game.game_type]
    state = state_of(stored_game)
    rnd = random.Random(version)
    for seat, view in views.items():
        for _ in range(2):
            other = scrambled_for(game.game_type, state, seat, rnd)
            assert encode(engine.view(other, seat)) == encode(getattr(view, game.game_type)), (
                f"seat {seat}'s view depends on what it may not see"
            )
            FIGURES["scrambled_views_checked"] += 1


def check_refusals(
    env: Env, game: Game, version: int, seat: int, move: pb.Move, received: Received,
    rng: random.Random,
) -> None:  # fmt: skip
    """Another seat sending the mover's move, and the spectator sending it: refused, the
    refusal is exactly the engine's (and independent of what that seat may not see), and the
    game is untouched."""
    stored_game = game.versions[version]
    engine = GAMES[game.game_type]
    state = state_of(stored_game)
    own_move = getattr(move, game.game_type)
    before = raw(env.client, game.name)
    others = [s for s in range(len(game.credentials)) if s != seat]
    for other in rng.sample(others, min(2, len(others))):
        if any(encode(m) == encode(own_move) for m in engine.legal_moves(state, other)):
            continue  # the same move is that seat's own legal move too
        request = pb.ApplyMoveRequest(name=game.name, move=move)
        stub = rng.choice(env.stubs)
        refused = call(received, stub.ApplyMove, request, game.credentials[other])
        assert isinstance(refused, grpc.RpcError), "a seat acted for another"
        wanted = expected_refusal(engine, state, other, own_move)
        assert wanted is not None
        assert encode(status_of(refused)) == encode(wanted)
        for _ in range(2):
            scrambled = scrambled_for(game.game_type, state, other, rng)
            assert expected_refusal(engine, scrambled, other, own_move) == wanted, (
                "the refusal depends on what the seat may not see"
            )
        FIGURES["acting_for_another_refused"] += 1
    spectator = call(
        received,
        rng.choice(env.stubs).ApplyMove,
        pb.ApplyMoveRequest(name=game.name, move=move),
        None,
    )
    assert isinstance(spectator, grpc.RpcError), "a spectator acted"
    assert spectator.code() == grpc.StatusCode.UNAUTHENTICATED
    FIGURES["spectator_moves_refused"] += 1
    assert raw(env.client, game.name) == before


def apply_and_check(
    env: Env, game: Game, version: int, seat: int, move: pb.Move, received: Received,
    rng: random.Random,
) -> int:  # fmt: skip
    """Apply the move; the response is the seat's documented view and its events, computed
    from the state before the move by the engine."""
    engine = GAMES[game.game_type]
    after = StoredGame()
    after.CopyFrom(game.versions[version])
    state = state_of(after)
    emitted = engine.apply(state, seat, getattr(move, game.game_type))
    pack_state(after, state)
    after.move_count += 1
    request = pb.ApplyMoveRequest(name=game.name, move=move)
    response = call(received, rng.choice(env.stubs).ApplyMove, request, game.credentials[seat])
    assert isinstance(response, pb.ApplyMoveResponse), response
    now, in_redis = stored(env.client, game.name)
    assert now == version + 1
    assert encode(in_redis) == encode(after), "the stored game is not the engine's next state"
    game.versions[now] = in_redis
    game.events[now] = {v: wrapped_events(game.game_type, emitted, v) for v in game.audiences}
    assert encode(response.view) == encode(expected_view(game.name, in_redis, now, seat))
    assert b"".join(encode(e) for e in response.events) == game.events[now][seat]
    FIGURES["moves_applied"] += 1
    FIGURES["events_checked"] += len(response.events)
    return now


def check_watchers(game: Game, watchers: list[Watcher], final: int) -> None:
    wait_for(
        lambda: all(w.last_etag() == str(final) or w.error for w in watchers),
        15,
        "every watcher to see the last move",
    )
    for watcher in watchers:
        assert watcher.error is None, watcher.error
        assert watcher.messages, "a watcher got nothing"
        first = watcher.messages[0]
        assert not first.events
        for message in watcher.messages:
            version = int(message.view.etag)
            wanted = expected_view(game.name, game.versions[version], version, watcher.seat)
            assert encode(message.view) == encode(wanted)
            got = b"".join(encode(e) for e in message.events)
            if message is not first and got:  # (a message read after a lost notification
                assert got == game.events[version][watcher.seat]  # carries no events)
            FIGURES["stream_messages_checked"] += 1
            FIGURES["events_checked"] += len(message.events)


def play(env: Env, game_type: str, seats: int, seed: int, max_moves: int) -> None:
    rng = random.Random(seed)
    received = Received()
    names = [f"Player {i} · {rng.randrange(100)}" for i in range(seats)]
    request = pb.CreateGameRequest(seats=seats, seed=seed, display_names=names)
    getattr(request, game_type).CopyFrom(options_for(game_type))
    created = env.stubs[0].CreateGame(request, timeout=10)
    CREDENTIALS.extend(created.seat_credentials)
    game = Game(created.name, game_type, list(created.seat_credentials))
    version, game.versions[1] = stored(env.client, game.name)
    assert version == 1
    assert encode(created.view) == encode(expected_view(game.name, game.versions[1], 1, None))
    FIGURES["games"] += 1
    watchers = [
        Watcher(env.stubs[(i + 1) % 2], game.name, seat, game.credential(seat))
        for i, seat in enumerate(game.audiences)
    ]
    try:
        wait_for(lambda: all(w.messages or w.error for w in watchers), 15, "the first views")
        engine = GAMES[game_type]
        for step in range(max_moves):
            state = state_of(game.versions[version])
            if engine.result(state) is not None:
                FIGURES["games_finished"] += 1
                break
            views = check_views(env, game, version, received, rng)
            if step % 4 == 0:
                check_scrambled(game, version, views)
            seat = rng.choice(engine.active_seats(state))
            move = wrap_move(game_type, rng.choice(engine.legal_moves(state, seat)))
            check_refusals(env, game, version, seat, move, received, rng)
            version = apply_and_check(env, game, version, seat, move, received, rng)
        check_views(env, game, version, received, rng)
        check_watchers(game, watchers, version)
    finally:
        for watcher in watchers:
            watcher.close()
    for watcher in watchers:
        for message in watcher.messages:
            received.add(message.SerializeToString())
    received.check_no_credential(list(game.credentials))
    FIGURES["watch_streams"] += len(watchers)


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_message_a_seat_receives_is_its_own(env: Env, game_type: str) -> None:
    engine = GAMES[game_type]

    @settings(
        max_examples=3,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        seed=st.integers(0, 2**63 - 1),
        seats=st.integers(engine.min_seats, min(engine.max_seats, 6)),
    )
    def run(seed: int, seats: int) -> None:
        play(env, game_type, seats, seed, max_moves=45)

    run()


@pytest.mark.slow
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_whole_games_every_seat_count(env: Env, game_type: str) -> None:
    engine = GAMES[game_type]
    for seats in range(engine.min_seats, engine.max_seats + 1):
        play(env, game_type, seats, seed=1000 + seats, max_moves=400)
