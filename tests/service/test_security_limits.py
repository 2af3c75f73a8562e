"""Operator keys, TLS, limits and expiry, each on a server started with the setting."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1.one_card_pb2 import OneCardOptions
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.service.helpers import create, play_to_end


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as running:
        yield running


def test_operator_key_restricts_create_game(store: EmbeddedRedis) -> None:
    """With an operator key configured only its holders create games; seats still play with
    their own credentials, and the key never reaches the command line."""
    with LocalServer(store.url, env={"CROUPIER_OPERATOR_KEY": "op-secret-1,op-secret-2"}) as server:
        assert server.process is not None
        cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
        assert b"op-secret" not in cmdline
        with Croupier(server.target) as anonymous:
            with pytest.raises(CroupierError) as caught:
                anonymous.create(VampireQueenOptions(), 3)
            assert (caught.value.code, caught.value.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "OPERATOR_KEY_MISSING",
            )
        with Croupier(server.target, operator_key="wrong") as intruder:
            with pytest.raises(CroupierError) as caught:
                intruder.create(VampireQueenOptions(), 3)
            assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
            assert caught.value.reason == "OPERATOR_KEY_REJECTED"
        with Croupier(server.target, operator_key="op-secret-2") as operator:
            game = operator.create(VampireQueenOptions(), 3, seed=1)
            seat = game.view.active_seats[0]
            move = operator.legal_moves(game.name, game.seat_credentials[seat])[0]
            operator.apply(game.name, game.seat_credentials[seat], move)
            with pytest.raises(CroupierError) as caught:  # the operator key is no seat
                operator.legal_moves(game.name, "op-secret-2")
            assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED


def make_certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, and its key."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_tls_with_a_verifying_client(store: EmbeddedRedis, tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path, "server")
    other_cert, _ = make_certificate(tmp_path, "impostor")
    with LocalServer(
        store.url, extra_args=("--tls-cert", str(cert), "--tls-key", str(key)), tls_root=cert
    ) as server:
        trusted = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with Croupier(server.target, credentials=trusted) as client:
            game = create(client, "vampire_queen", 3, seed=4)
            assert client.get(game.name).name == game.name
        untrusted = grpc.ssl_channel_credentials(root_certificates=other_cert.read_bytes())
        with Croupier(server.target, credentials=untrusted, timeout=3) as client:
            with pytest.raises(CroupierError) as caught:
                client.get(game.name)
            assert caught.value.code == grpc.StatusCode.UNAVAILABLE
        with Croupier(server.target, timeout=3) as plaintext, pytest.raises(CroupierError):
            plaintext.get(game.name)


def test_limits_give_resource_exhausted(store: EmbeddedRedis) -> None:
    with LocalServer(
        store.url,
        extra_args=(
            "--max-seats", "4", "--max-watchers", "1", "--rate-limit", "5", "--rate-burst", "5",
            "--max-message-bytes", "2048",
        ),
    ) as server, Croupier(server.target) as client:  # fmt: skip
        with pytest.raises(CroupierError) as caught:
            client.create(VampireQueenOptions(), 5)
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "SEAT_LIMIT",
        )
        game = create(client, "vampire_queen", 3, seed=2)
        credential = game.seat_credentials[0]
        refused = []
        for _ in range(12):
            try:
                client.get(game.name, credential)
            except CroupierError as error:
                refused.append((error.code, error.reason))
        assert refused
        assert set(refused) == {(grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")}
        client.get(game.name)  # spectators are not limited by credential

        stream = client.watch(game.name)
        next(stream)
        with pytest.raises(CroupierError) as caught:
            next(client.watch(game.name))
        assert caught.value.reason == "WATCHER_LIMIT"
        stream.close()

        with pytest.raises(CroupierError) as caught:
            client.create(VampireQueenOptions(), 3, request_id="z" * 3000)
        assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_seat_limit_is_only_for_counts_the_game_allows(store: EmbeddedRedis) -> None:
    """With --max-seats 10: Vampire Queen with 12 seats (its rules allow 3 to 12) is the
    server's limit, RESOURCE_EXHAUSTED / SEAT_LIMIT; One Card with 13 (it allows 2 to 10) is
    INVALID_ARGUMENT / INVALID_OPTIONS whatever the limit; 10 seats of either are created."""
    with (
        LocalServer(store.url, extra_args=("--max-seats", "10")) as server,
        Croupier(server.target) as client,
    ):
        with pytest.raises(CroupierError) as caught:
            client.create(VampireQueenOptions(), 12)
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "SEAT_LIMIT",
        )
        with pytest.raises(CroupierError) as caught:
            client.create(OneCardOptions(), 13)
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_OPTIONS",
        )
        assert len(client.create(VampireQueenOptions(), 10).seat_credentials) == 10
        assert len(client.create(OneCardOptions(), 10).seat_credentials) == 10


def test_games_expire(store: EmbeddedRedis) -> None:
    """A game with no move for --game-ttl seconds, and a finished one after --finished-ttl,
    is gone (NOT_FOUND)."""
    with (
        LocalServer(store.url, extra_args=("--game-ttl", "1")) as server,
        Croupier(server.target) as client,
    ):
        game = create(client, "vampire_queen", 3, seed=3)
        assert client.get(game.name)
        time.sleep(2.2)
        with pytest.raises(CroupierError) as caught:
            client.get(game.name)
        assert caught.value.code == grpc.StatusCode.NOT_FOUND


def test_finished_games_expire_sooner(store: EmbeddedRedis) -> None:
    with (
        LocalServer(store.url, extra_args=("--finished-ttl", "1")) as server,
        Croupier(server.target) as client,
    ):
        game = create(client, "vampire_queen", 3, seed=3)
        view, _ = play_to_end([client], game, seed=3)
        assert view.HasField("result")
        time.sleep(2.2)
        with pytest.raises(CroupierError) as caught:
            client.get(game.name)
        assert caught.value.code == grpc.StatusCode.NOT_FOUND
