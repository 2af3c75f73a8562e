"""Every error code of the API, each with its reason; a refused call changes nothing."""

from __future__ import annotations

import signal
import time

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.one_card_pb2 import OneCardMove, OneCardOptions
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions
from tests.service.helpers import create, raw


def refused(call: object, *args: object, **kwargs: object) -> CroupierError:
    with pytest.raises(CroupierError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value


@pytest.fixture
def game(client: Croupier) -> pb.CreateGameResponse:
    return create(client, "vampire_queen", 3, seed=5)


def test_create_without_game_type_is_invalid_argument(client: Croupier) -> None:
    request = pb.CreateGameRequest(seats=3)
    stub_error = refused(client._call, "CreateGame", request, None)
    assert stub_error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert stub_error.reason == "GAME_TYPE_MISSING"
    assert stub_error.field_violations[0][0] == "options"


def test_create_with_bad_seat_count_is_invalid_argument(client: Croupier) -> None:
    error = refused(client.create, VampireQueenOptions(), 2)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS")
    assert error.field_violations[0][0] == "seats"


def test_seat_count_no_game_allows_is_invalid_options_not_seat_limit(client: Croupier) -> None:
    """One Card is played by 2 to 10: 13 seats is a bad request, like 11 and 12, although it is
    also above the server's seat limit (12 by default): SEAT_LIMIT would wrongly suggest that
    another server might accept it."""
    for seats in (11, 12, 13):
        error = refused(client.create, OneCardOptions(), seats)
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS")
        assert error.field_violations[0][0] == "seats"


def test_malformed_name_is_invalid_argument(client: Croupier) -> None:
    error = refused(client.get, "not-a-game")
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")


def test_unknown_game_is_not_found(client: Croupier) -> None:
    error = refused(client.get, "games/" + "0" * 24)
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


def _active_move(client: Croupier, game: pb.CreateGameResponse) -> tuple[int, pb.Move]:
    """A seat that may act now and one of its legal moves."""
    seat = client.get(game.name).active_seats[0]
    return seat, client.legal_moves(game.name, game.seat_credentials[seat])[0]


def test_missing_credential_is_unauthenticated(
    client: Croupier, game: pb.CreateGameResponse
) -> None:
    _, move = _active_move(client, game)
    error = refused(client.apply, game.name, "", move)
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_MISSING")
    error = refused(client.legal_moves, game.name, "")
    assert error.code == grpc.StatusCode.UNAUTHENTICATED


def test_malformed_credential_is_unauthenticated(
    client: Croupier, game: pb.CreateGameResponse
) -> None:
    error = refused(client.get, game.name, "not-a-credential")
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_MALFORMED")


def test_other_games_credential_is_permission_denied(
    client: Croupier, game: pb.CreateGameResponse
) -> None:
    other = create(client, "vampire_queen", 3, seed=6)
    _, move = _active_move(client, game)
    error = refused(client.apply, game.name, other.seat_credentials[0], move)
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "CREDENTIAL_REJECTED")


def test_illegal_move_is_failed_precondition_naming_the_rule(
    client: Croupier, game: pb.CreateGameResponse, redis_client: redis.Redis
) -> None:
    """C-5: a seat that may not act now is refused with the rule id; nothing changes."""
    seat, move = _active_move(client, game)
    before = raw(redis_client, game.name)
    other = (seat + 1) % 3
    error = refused(client.apply, game.name, game.seat_credentials[other], move)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE")
    assert error.rule_id
    assert error.message.startswith(error.rule_id)
    assert raw(redis_client, game.name) == before
    assert client.get(game.name).etag == game.etag


def test_move_of_another_game_is_invalid_argument(
    client: Croupier, game: pb.CreateGameResponse, redis_client: redis.Redis
) -> None:
    before = raw(redis_client, game.name)
    seat = game.view.active_seats[0]
    error = refused(client.apply, game.name, game.seat_credentials[seat], OneCardMove())
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MOVE_GAME_MISMATCH")
    error = refused(client.apply, game.name, game.seat_credentials[seat], VampireQueenMove())
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE")
    assert raw(redis_client, game.name) == before


def test_stale_etag_is_aborted(client: Croupier, game: pb.CreateGameResponse) -> None:
    seat, move = _active_move(client, game)
    applied = client.apply(game.name, game.seat_credentials[seat], move, etag=game.etag)
    nxt, move = _active_move(
        client,
        pb.CreateGameResponse(
            name=game.name, view=applied.view, seat_credentials=game.seat_credentials
        ),
    )
    error = refused(client.apply, game.name, game.seat_credentials[nxt], move, etag=game.etag)
    assert (error.code, error.reason) == (grpc.StatusCode.ABORTED, "ETAG_MISMATCH")
    assert client.get(game.name).etag == applied.etag


def test_store_unreachable_is_unavailable() -> None:
    """A server whose Redis has gone answers UNAVAILABLE and reports NOT_SERVING."""
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url) as server,
        Croupier(server.target, timeout=5) as client,
    ):
        game = create(client, "vampire_queen", 3, seed=1)
        store.stop()
        error = refused(client.get, game.name)
        assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")


def test_store_that_stops_answering_is_unavailable_within_the_store_timeout() -> None:
    """A Redis that hangs (SIGSTOP) costs a call the store timeout, then UNAVAILABLE; the same
    calls succeed again once it answers."""
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url, extra_args=("--store-timeout", "0.3")) as server,
        # One attempt: what one call costs (the client would retry UNAVAILABLE otherwise).
        Croupier(server.target, timeout=5, max_attempts=1) as client,
    ):
        game = create(client, "vampire_queen", 3, seed=1)
        assert store.process is not None
        store.process.send_signal(signal.SIGSTOP)
        try:
            started = time.monotonic()
            error = refused(client.get, game.name)
            waited = time.monotonic() - started
        finally:
            store.process.send_signal(signal.SIGCONT)
        assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
        assert 0.25 < waited < 2.0
        assert client.get(game.name).move_count == 0
