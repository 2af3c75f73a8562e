"""Nobody gets in where they don't belong: request ids are UUIDs kept per caller (a
CreateGame retry answers only the operator key that made it; a move's id is its seat's own),
calls without a credential are rate-limited per address, Echo is served only when asked, game
names are matched whole, and two `authorization` headers are refused. Each against real server
processes, over gRPC (and the web gateway where it has a form of its own)."""

from __future__ import annotations

import http.client
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.application.limits import peer_address
from croupier.service.store.embedded_redis import free_port
from croupier.v1 import benchmark_service_pb2 as bench
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.benchmark_service_pb2_grpc import BenchmarkServiceStub
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.service.helpers import create, status_of

BENCHMARK_SERVICE = "croupier.v1.BenchmarkService"


def refused(call: Callable[..., Any], *args: Any, **kwargs: Any) -> CroupierError:
    with pytest.raises(CroupierError) as caught:
        call(*args, **kwargs)
    return caught.value


def new_id() -> str:
    return str(uuid.uuid4())


# --- request ids are UUIDs (AIP-155) -------------------------------------------------------


NOT_UUIDS = [
    "new-table-17",
    "m-42",
    "1b4e28ba2fa141d2883f0016d3cca427",  # no hyphens
    "{1b4e28ba-2fa1-41d2-883f-0016d3cca427}",
    "1b4e28ba-2fa1-41d2-883f-0016d3cca427\n",
    "1b4e28ba-2fa1-41d2-883f-0016d3cca42g",
]


@pytest.mark.parametrize("request_id", NOT_UUIDS)
def test_a_request_id_that_is_not_a_uuid_is_refused(client: Croupier, request_id: str) -> None:
    """CreateGame and ApplyMove follow one rule: empty, or a UUID in its 8-4-4-4-12 form."""
    error = refused(client.create, VampireQueenOptions(), 3, request_id=request_id)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    assert "a UUID" in error.message
    assert error.field_violations[0][0] == "request_id"
    game = create(client, "vampire_queen", 3, seed=21)
    seat = game.view.active_seats[0]
    credential = game.seat_credentials[seat]
    move = client.legal_moves(game.name, credential)[0]
    error = refused(client.apply, game.name, credential, move, request_id=request_id)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    assert "a UUID" in error.message
    assert client.get(game.name).move_count == 0


def test_uuids_of_any_version_and_case_are_request_ids(client: Croupier) -> None:
    for request_id in (str(uuid.uuid4()), str(uuid.uuid1()), str(uuid.uuid4()).upper()):
        first = client.create(VampireQueenOptions(), 3, seed=22, request_id=request_id)
        again = client.create(VampireQueenOptions(), 3, seed=22, request_id=request_id)
        assert again == first


def test_create_records_belong_to_the_operator_key(store_url: str) -> None:
    """Two operator keys sending the same body with the same request id get two games, each
    its own seat credentials; each key's retry gets its own first response again."""
    keys = {"CROUPIER_OPERATOR_KEY": "op-key-one,op-key-two"}
    with (
        LocalServer(store_url, env=keys) as server,
        Croupier(server.target, operator_key="op-key-one") as one,
        Croupier(server.target, operator_key="op-key-two") as two,
    ):
        request_id = new_id()
        first = one.create(VampireQueenOptions(), 3, seed=23, request_id=request_id)
        other = two.create(VampireQueenOptions(), 3, seed=23, request_id=request_id)
        assert other.name != first.name
        assert not set(other.seat_credentials) & set(first.seat_credentials)
        assert one.create(VampireQueenOptions(), 3, seed=23, request_id=request_id) == first
        assert two.create(VampireQueenOptions(), 3, seed=23, request_id=request_id) == other
        # The other key's credentials are no seat of the first game.
        error = refused(one.get, first.name, other.seat_credentials[0])
        assert error.reason == "CREDENTIAL_REJECTED"


# --- a move's request id is its seat's -----------------------------------------------------


def test_a_seat_may_use_a_request_id_another_seat_used(client: Croupier) -> None:
    game = create(client, "vampire_queen", 3, seed=24)
    request_id = new_id()
    answers = {}
    for _ in range(2):  # two different seats in turn, the same request id
        seat = client.get(game.name).active_seats[0]
        credential = game.seat_credentials[seat]
        move = client.legal_moves(game.name, credential)[0]
        answers[seat] = (
            credential,
            move,
            client.apply(game.name, credential, move, request_id=request_id),
        )
    assert len(answers) == 2, "the turn passed to another seat"
    assert client.get(game.name).move_count == 2
    for credential, move, answer in answers.values():  # each seat's retry: its own answer
        assert client.apply(game.name, credential, move, request_id=request_id) == answer
    assert client.get(game.name).move_count == 2


# --- calls without a credential are rate-limited per address -------------------------------


@pytest.fixture(scope="module")
def limited(store_url: str) -> Iterator[LocalServer]:
    """A server allowing 2 calls/s without a credential per address, in bursts of 10; its web
    gateway too."""
    with LocalServer(
        store_url,
        extra_args=("--anonymous-rate-limit", "2", "--anonymous-rate-burst", "10",
                    "--web-port", str(free_port())),
    ) as server:  # fmt: skip
        yield server


def web_port(server: LocalServer) -> int:
    return int(server.args[server.args.index("--web-port") + 1])


def test_made_up_credentials_count_against_their_address(store_url: str) -> None:
    """Guessing seat credentials is no way around the per-address limit: each credential the
    server refuses counts against its address like a call without one, and past the limit
    the address's calls with a token are RATE_LIMITED (with RetryInfo) before any read. The
    limit refills at its rate: a real seat credential from that address works again."""
    with (
        LocalServer(
            store_url, extra_args=("--anonymous-rate-limit", "2", "--anonymous-rate-burst", "10")
        ) as server,
        Croupier(server.target) as client,
        grpc.insecure_channel(server.target) as channel,
    ):
        game = create(client, "vampire_queen", 3, seed=5)
        stub = GameServiceStub(channel)

        def get(credential: str) -> tuple[grpc.StatusCode, str, float | None]:
            metadata = [("authorization", f"Bearer {credential}")]
            try:
                stub.GetGame(pb.GetGameRequest(name=game.name), metadata=metadata, timeout=10)
            except grpc.RpcError as error:
                return status_of(error)
            return grpc.StatusCode.OK, "", None

        started = time.monotonic()
        outcomes = [get(f"cs_guess-{number}") for number in range(30)]
        elapsed = time.monotonic() - started
        rejected = [o for o in outcomes if o[:2] == (grpc.StatusCode.PERMISSION_DENIED,
                                                      "CREDENTIAL_REJECTED")]  # fmt: skip
        limited_out = [o for o in outcomes if o[:2] == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                         "RATE_LIMITED")]  # fmt: skip
        assert len(rejected) + len(limited_out) == len(outcomes), outcomes
        assert 10 <= len(rejected) <= 10 + 2 * elapsed + 1, (len(rejected), elapsed)
        assert limited_out
        assert all(delay is not None and 0 < delay <= 1.0 for _, _, delay in limited_out)
        time.sleep(1.0)  # two tokens at 2/s
        code, _, _ = get(game.seat_credentials[0])
        assert code == grpc.StatusCode.OK


def test_a_tokenless_flood_is_refused_with_retry_info(limited: LocalServer) -> None:
    """40 tokenless CreateGame calls at once from one address: at most the burst (plus what
    the rate refills meanwhile) are created, the rest are RESOURCE_EXHAUSTED / RATE_LIMITED
    with a RetryInfo; a made-up bearer token (no operator key is configured, so it is no
    credential) does not escape the address's limit."""
    request = pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions())
    with grpc.insecure_channel(limited.target) as channel:
        stub = GameServiceStub(channel)

        def one(number: int) -> tuple[grpc.StatusCode, str, float | None]:
            metadata = [("authorization", f"Bearer made-up-{number}")] if number % 2 else []
            try:
                stub.CreateGame(request, metadata=metadata, timeout=30)
                return grpc.StatusCode.OK, "", None
            except grpc.RpcError as error:
                return status_of(error)

        started = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            outcomes = list(pool.map(one, range(40)))
        elapsed = time.monotonic() - started
        assert_token_bucket(outcomes, burst=10, rate=2, elapsed=elapsed, max_delay=1.0)

        # Reads and watch streams without a credential count the same way; a seat's
        # credential has a bucket of its own.
        name = "games/" + "0" * 24

        def get(metadata: list[tuple[str, str]]) -> tuple[grpc.StatusCode, str]:
            try:
                stub.GetGame(pb.GetGameRequest(name=name), metadata=metadata, timeout=10)
            except grpc.RpcError as error:
                return status_of(error)[:2]
            return grpc.StatusCode.OK, ""

        limited_out = (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert limited_out in {get([]) for _ in range(20)}
        assert get([("authorization", "Bearer cs_a-seat-credential")]) == (
            grpc.StatusCode.NOT_FOUND,
            "GAME_NOT_FOUND",
        )
        with pytest.raises(grpc.RpcError) as caught:
            next(stub.WatchGame(pb.WatchGameRequest(name=name), timeout=10))
        assert status_of(caught.value)[:2] == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")


def test_create_game_is_limited_per_operator_key(store_url: str) -> None:
    """Calls are limited per peer address and per operator key. With operator keys,
    CreateGame counts against its key's own bucket (`--rate-limit`): beyond it,
    RESOURCE_EXHAUSTED / RATE_LIMITED with a RetryInfo, nothing created; another key calling
    from the same address at the same moment is not refused."""
    keys = {"CROUPIER_OPERATOR_KEY": "op-key-one,op-key-two"}
    with (
        LocalServer(store_url, env=keys, extra_args=("--rate-limit", "2", "--rate-burst", "5"))
        as server,
        Croupier(server.target, operator_key="op-key-two") as two,
        grpc.insecure_channel(server.target) as channel,
    ):  # fmt: skip
        stub = GameServiceStub(channel)
        request = pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions())
        metadata = [("authorization", "Bearer op-key-one")]

        def create_one() -> tuple[grpc.StatusCode, str, float | None]:
            try:
                stub.CreateGame(request, metadata=metadata, timeout=10)
            except grpc.RpcError as error:
                return status_of(error)
            return grpc.StatusCode.OK, "", None

        started = time.monotonic()
        outcomes = [create_one() for _ in range(15)]
        elapsed = time.monotonic() - started
        assert_token_bucket(outcomes, burst=5, rate=2, elapsed=elapsed, max_delay=0.5)
        assert two.create(VampireQueenOptions(), 3).name  # the other key's bucket is full


def test_the_web_gateway_counts_by_the_same_address(limited: LocalServer) -> None:
    """The web gateway's peers (`web:127.0.0.1:<port>`) are counted by their host as well: a
    flood of Connect calls, each on a new connection, is refused."""
    codes: Counter[str] = Counter()
    for _ in range(30):
        connection = http.client.HTTPConnection("127.0.0.1", web_port(limited), timeout=10)
        try:
            connection.request(
                "POST",
                "/croupier.v1.GameService/GetGame",
                body=json.dumps({"name": "games/" + "0" * 24}),
                headers={"Content-Type": "application/json"},
            )
            answer = connection.getresponse()
            codes[json.loads(answer.read() or b"{}").get("code", "ok")] += 1
        finally:
            connection.close()
    assert codes["resource_exhausted"] >= 1, codes


def test_peer_addresses_lose_their_port() -> None:
    """The forms gRPC and the web gateway give, to the host whose calls count together."""
    assert peer_address("ipv4:127.0.0.1:53422") == "127.0.0.1"
    assert peer_address("ipv6:[::1]:53422") == peer_address("ipv6:[::1]:1") == "::/64"
    assert peer_address("ipv6:%5B2001:db8::7%5D:53422") == "2001:db8::/64"
    assert peer_address("ipv6:[2001:db8::1]:1") == peer_address("ipv6:[2001:db8::ffff]:2")
    assert peer_address("ipv6:[::ffff:192.0.2.1]:80") == "192.0.2.1"
    assert peer_address("web:192.0.2.1:61000") == "192.0.2.1"
    assert peer_address("web:2001:db8::7:61000") == "2001:db8::/64"
    assert peer_address("unix:/run/croupier.sock") == "unix:/run/croupier.sock"


# --- Echo is served only when asked --------------------------------------------------------


def services_of(target: str) -> set[str]:
    with grpc.insecure_channel(target) as channel:
        return set(ProtoReflectionDescriptorDatabase(channel).get_services())


def test_echo_is_not_served_by_default(server_a: LocalServer) -> None:
    with grpc.insecure_channel(server_a.target) as channel, pytest.raises(grpc.RpcError) as caught:
        BenchmarkServiceStub(channel).Echo(bench.EchoRequest(response_bytes=65536), timeout=5)
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert BENCHMARK_SERVICE not in services_of(server_a.target)


def test_echo_is_served_with_the_flag(store_url: str) -> None:
    with LocalServer(store_url, extra_args=("--benchmark-service",)) as server:
        with grpc.insecure_channel(server.target) as channel:
            reply = BenchmarkServiceStub(channel).Echo(
                bench.EchoRequest(response_bytes=5), timeout=5
            )
        assert reply.payload == bytes(5)
        assert BENCHMARK_SERVICE in services_of(server.target)


# --- game names are matched whole ----------------------------------------------------------


@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\x00"])
def test_a_name_with_anything_after_the_id_is_invalid(client: Croupier, suffix: str) -> None:
    game = create(client, "vampire_queen", 3, seed=25)
    bad = game.name + suffix
    credential = game.seat_credentials[game.view.active_seats[0]]
    calls: list[Callable[[], object]] = [
        lambda: client.get(bad),
        lambda: client.legal_moves(bad, credential),
        lambda: client.apply(bad, credential, pb.Move(), request_id=new_id()),
        lambda: next(client.watch(bad)),
    ]
    for call in calls:
        error = refused(call)
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")
        # Nothing of the bad name is echoed, so no control character reaches a log or a terminal.
        assert game.name not in error.message and error.message.isprintable()


# --- one authorization header --------------------------------------------------------------


def test_two_authorization_headers_are_refused_on_every_rpc(client: Croupier) -> None:
    """Even when the first is a good seat credential: the call is not run as either."""
    game = create(client, "vampire_queen", 3, seed=26)
    seat = game.view.active_seats[0]
    good = f"Bearer {game.seat_credentials[seat]}"
    move = client.legal_moves(game.name, game.seat_credentials[seat])[0]
    stub = GameServiceStub(client.channel)
    calls: list[Callable[..., Any]] = [
        lambda md: stub.CreateGame(
            pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions()),
            metadata=md,
            timeout=10,
        ),
        lambda md: stub.GetGame(pb.GetGameRequest(name=game.name), metadata=md, timeout=10),
        lambda md: stub.ListLegalMoves(
            pb.ListLegalMovesRequest(name=game.name), metadata=md, timeout=10
        ),
        lambda md: stub.ApplyMove(
            pb.ApplyMoveRequest(name=game.name, move=move), metadata=md, timeout=10
        ),
        lambda md: next(
            stub.WatchGame(pb.WatchGameRequest(name=game.name), metadata=md, timeout=10)
        ),
    ]
    for second in (good, f"Bearer {game.seat_credentials[(seat + 1) % 3]}", "Bearer x"):
        for call in calls:
            with pytest.raises(grpc.RpcError) as caught:
                call([("authorization", good), ("authorization", second)])
            code, reason, _ = status_of(caught.value)
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_MALFORMED")
            assert "one 'authorization' header" in caught.value.details()
    assert client.get(game.name).move_count == 0


def test_two_authorization_headers_are_refused_by_the_web_gateway(limited: LocalServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", web_port(limited), timeout=10)
    try:
        body = json.dumps({"name": "games/" + "0" * 24}).encode()
        connection.putrequest("POST", "/croupier.v1.GameService/GetGame")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(len(body)))
        connection.putheader("Authorization", "Bearer cs_first")
        connection.putheader("Authorization", "Bearer cs_second")
        connection.endheaders(body)
        answer = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    assert answer["code"] == "unauthenticated", answer


def assert_token_bucket(
    outcomes: list[tuple[grpc.StatusCode, str, float | None]],
    *,
    burst: int,
    rate: float,
    elapsed: float,
    max_delay: float,
) -> None:
    """A token bucket lets at least one call through and never more than its burst plus its
    rate over the time; every other call is RESOURCE_EXHAUSTED / RATE_LIMITED with a RetryInfo
    delay of at most `max_delay` (one call's worth at the rate)."""
    created = sum(1 for code, _, _ in outcomes if code == grpc.StatusCode.OK)
    refusals = [o for o in outcomes if o[0] != grpc.StatusCode.OK]
    assert 1 <= created <= burst + rate * elapsed + 1, (created, elapsed)
    assert refusals
    for code, reason, delay in refusals:
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert delay is not None and 0 < delay <= max_delay
