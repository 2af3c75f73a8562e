"""The unary port (`--unary-port`, service/unary_port.py): grpcio's synchronous server takes
the unary calls and hands them to the same servicer as the grpc.aio port. On real servers and
a real redis-server: a game played through it reaches a watcher on the main port and its store
replays; each call is logged; a refusal is the same status on both ports; WatchGame is not
served there; a burst beyond --max-calls-in-flight is refused at once with OVERLOADED, counted
and logged as the main port's refusals are, and the server still drains on SIGTERM. The Python
client learns the port from GetServerInfo and keeps to the gRPC port when it cannot reach it
(servers reached through real TCP forwarders on 127.0.0.2)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.client import Croupier, host_of
from croupier.errors import CroupierError
from croupier.local import LocalServer, wait_serving
from croupier.service.embedded_redis import EmbeddedRedis, free_port
from croupier.service.unary_port import THREADS
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from tests.forwarder import Forwarder
from tests.scrape import fallen, metric, wait_metric
from tests.service.conftest import UNLIMITED
from tests.service.helpers import assert_replays, create, game_id, play_to_end, status_of


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as running:
        yield running


class Ports:
    def __init__(self, server: LocalServer, unary: str, log: Path) -> None:
        self.server, self.unary, self.log = server, unary, log

    def rpc_lines(self) -> list[dict[str, object]]:
        lines = [json.loads(line) for line in self.log.read_text().splitlines() if line[:1] == "{"]
        return [line for line in lines if line["event"] == "rpc"]


@pytest.fixture(scope="module")
def ports(store: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ports]:
    unary = free_port()
    log = tmp_path_factory.mktemp("unary-port") / "server.log"
    with (
        log.open("wb") as out,
        LocalServer(
            store.url,
            extra_args=("--unary-port", str(unary), *UNLIMITED),
            log_level="info",
            stderr=out.fileno(),
        ) as server,
    ):
        target = f"127.0.0.1:{unary}"
        wait_serving(target)  # health's Check is served on the unary port too
        yield Ports(server, target, log)


def test_a_game_played_on_the_unary_port_reaches_a_watcher_on_the_main_port(
    ports: Ports, store: EmbeddedRedis
) -> None:
    with Croupier(ports.unary) as unary, Croupier(ports.server.target) as main:
        created = create(unary, "trinity", 3, seed=22)
        updates: list[pb.WatchGameResponse] = []
        watcher = threading.Thread(
            target=lambda: updates.extend(main.watch(created.name, created.seat_credentials[0]))
        )
        watcher.start()
        subscribed_by = time.monotonic() + 30
        while not updates:  # the stream's first message: it is subscribed
            assert watcher.is_alive() and time.monotonic() < subscribed_by, "no first message"
            time.sleep(0.01)
        final, moves = play_to_end([unary], created, seed=22)
        watcher.join(timeout=30)
        assert not watcher.is_alive(), "the stream did not end with the game"
        seen = main.get(created.name, created.seat_credentials[0])

    # Every move reached the watcher, in order, ending on the view the main port shows.
    assert [u.view.move_count for u in updates] == list(range(moves + 1))
    assert updates[-1].view == seen
    assert final.HasField("result")
    client = redis.Redis.from_url(store.url)
    assert assert_replays(client, created.name) == moves
    client.close()
    # One line per call, as on the main port (written just after each answer).
    deadline = time.monotonic() + 10
    applied = 0
    while applied < moves and time.monotonic() < deadline:
        applied = sum(
            1
            for line in ports.rpc_lines()
            if (line["rpc"], line.get("game")) == ("ApplyMove", game_id(created.name))
        )
        time.sleep(0.05)
    assert applied == moves


def test_the_python_client_sends_its_unary_calls_to_unary_target(ports: Ports) -> None:
    with Croupier(ports.server.target, unary_target=ports.unary) as croupier:
        created = create(croupier, "trinity", 3, seed=23)
        assert next(croupier.watch(created.name)).view.name == created.name
    # Where each call goes: unary calls to `unary_target` (here nothing listens)...
    nowhere = f"127.0.0.1:{free_port()}"
    with Croupier(ports.server.target, unary_target=nowhere, timeout=2, max_attempts=1) as lost:
        with pytest.raises(CroupierError) as unreachable:
            lost.get(created.name)
        assert unreachable.value.code == grpc.StatusCode.UNAVAILABLE
    # ...and `watch` to `target` (here the unary port, which does not serve it).
    with Croupier(ports.unary, unary_target=ports.server.target) as swapped:
        assert swapped.get(created.name).name == created.name
        with pytest.raises(CroupierError) as refused:
            next(swapped.watch(created.name))
        assert refused.value.code == grpc.StatusCode.UNIMPLEMENTED


ELSEWHERE = "127.0.0.2"  # the servers listen on 127.0.0.1; forwarders reach them here


def _port(target: str) -> int:
    return int(target.rpartition(":")[2])


def test_server_info_names_the_unary_port_on_both_ports(ports: Ports, store: EmbeddedRedis) -> None:
    for target in (ports.server.target, ports.unary):
        with Croupier(target) as croupier:
            assert croupier.server_info().unary_port == _port(ports.unary)
    off = ("--unary-port", "off")
    with LocalServer(store.url, extra_args=off) as without, Croupier(without.target) as croupier:
        assert croupier.server_info().unary_port == 0
        create(croupier, "one_card", 2, seed=8)
        assert croupier.unary_target is None


def test_by_default_the_port_opens_only_for_a_server_on_one_cpu(
    store: EmbeddedRedis, tmp_path: Path
) -> None:
    """`--unary-port auto`, the default: a server started on one CPU (by taskset) opens the
    port and the client learns it; one that may run on more opens none. Its log says what it
    went by."""
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        pinned = LocalServer(store.url, log_level="info", stderr=out.fileno())
        pinned.args[:0] = ["taskset", "--cpu-list", str(max(os.sched_getaffinity(0)))]
        pinned.start()
        try:
            with Croupier(pinned.target) as croupier:
                port = croupier.server_info().unary_port
                assert port != 0
                create(croupier, "one_card", 2, seed=8)
                assert croupier.unary_target == f"127.0.0.1:{port}"
        finally:
            pinned.stop()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line[:1] == "{"]
    (listening,) = [line for line in lines if line["event"] == "listening"]
    assert (listening["cpus"], listening["unary_port"]) == (1, port)
    assert listening["cpu_policy"] == "batch"  # `--cpu-policy auto` goes by the same rule
    if len(os.sched_getaffinity(0)) > 1:
        with LocalServer(store.url) as floating, Croupier(floating.target) as croupier:
            assert croupier.server_info().unary_port == 0


def test_the_python_client_learns_the_unary_port_and_uses_it(ports: Ports) -> None:
    """Reached through 127.0.0.2, the client learns the unary port there; once it has, a
    whole game is played with the gRPC port cut off, and only `watch` needs that port."""
    main_port, unary_port = _port(ports.server.target), _port(ports.unary)
    with (
        Forwarder((ELSEWHERE, main_port), ("127.0.0.1", main_port)) as main,
        Forwarder((ELSEWHERE, unary_port), ("127.0.0.1", unary_port)),
        Croupier(f"{ELSEWHERE}:{main_port}", max_attempts=1) as croupier,
    ):
        assert croupier.unary_target is None  # asked for at the first call, not before
        created = create(croupier, "trinity", 3, seed=24)
        assert croupier.unary_target == f"{ELSEWHERE}:{unary_port}"
        assert next(croupier.watch(created.name)).view.name == created.name
        main.close()
        final, moves = play_to_end([croupier], created, seed=24)
        assert final.HasField("result") and moves > 0
        with pytest.raises(CroupierError) as cut:
            next(croupier.watch(created.name))
        assert cut.value.code == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("unary_port_is", ["refused", "silent", "another server's"])
def test_a_learned_port_the_client_cannot_reach_leaves_it_on_the_grpc_port(
    ports: Ports, unary_port_is: str
) -> None:
    """The unary port named by the server, seen from 127.0.0.2: nothing listens there
    (connections refused), a listener that never answers (the client waits CONNECT_TIMEOUT
    for it), or another gRPC server (which does not name that port). Either way the first call
    and every later one are served on the gRPC port."""
    main_port, unary_port = _port(ports.server.target), _port(ports.unary)
    with contextlib.ExitStack() as stack:
        stack.enter_context(Forwarder((ELSEWHERE, main_port), ("127.0.0.1", main_port)))
        if unary_port_is == "silent":
            stack.enter_context(socket.create_server((ELSEWHERE, unary_port)))
        if unary_port_is == "another server's":
            other = grpc.server(futures.ThreadPoolExecutor(1))
            other_port = other.add_insecure_port("127.0.0.1:0")
            other.start()
            stack.callback(other.stop, None)
            stack.enter_context(Forwarder((ELSEWHERE, unary_port), ("127.0.0.1", other_port)))
        croupier = stack.enter_context(Croupier(f"{ELSEWHERE}:{main_port}", max_attempts=1))
        created = create(croupier, "one_card", 2, seed=9)
        assert croupier.unary_target is None
        final, _ = play_to_end([croupier], created, seed=9)
        assert final.HasField("result")


def test_a_learned_port_that_goes_away_is_given_up_and_the_call_sent_again(
    ports: Ports,
) -> None:
    main_port, unary_port = _port(ports.server.target), _port(ports.unary)
    with (
        Forwarder((ELSEWHERE, main_port), ("127.0.0.1", main_port)),
        Forwarder((ELSEWHERE, unary_port), ("127.0.0.1", unary_port)) as unary,
        Croupier(f"{ELSEWHERE}:{main_port}") as croupier,
    ):
        created = create(croupier, "one_card", 2, seed=10)
        assert croupier.unary_target == f"{ELSEWHERE}:{unary_port}"
        unary.close()
        assert croupier.get(created.name).name == created.name  # sent again on the gRPC port
        assert croupier.unary_target is None
        final, _ = play_to_end([croupier], created, seed=10)
        assert final.HasField("result")


@pytest.mark.parametrize(
    ("answer", "asked_again"),
    [
        (grpc.StatusCode.UNIMPLEMENTED, False),  # a server that predates GetServerInfo
        (grpc.StatusCode.UNAVAILABLE, True),  # not there yet
        (grpc.StatusCode.RESOURCE_EXHAUSTED, True),  # over its rate
    ],
)
def test_how_a_refused_server_info_is_asked_again(
    answer: grpc.StatusCode, asked_again: bool
) -> None:
    """GetServerInfo refused (a gRPC server whose only method refuses it so; every other call
    is UNIMPLEMENTED): the client keeps to its port for the call, and asks again at its next
    call only when the refusal may pass."""
    asked: list[str] = []

    def refuse(request: bytes, context: grpc.ServicerContext) -> bytes:
        context.abort(answer, "refused")
        raise AssertionError("not reached: abort raises")

    class OnlyServerInfo(grpc.GenericRpcHandler):  # type: ignore[misc]  # grpc is untyped here
        def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
            rpc = details.method.rpartition("/")[2]
            asked.append(rpc)
            return grpc.unary_unary_rpc_method_handler(refuse) if rpc == "GetServerInfo" else None

    older = grpc.server(futures.ThreadPoolExecutor(2), handlers=(OnlyServerInfo(),))
    port = older.add_insecure_port("127.0.0.1:0")
    older.start()
    try:
        with Croupier(f"127.0.0.1:{port}", max_attempts=1) as croupier:
            for _ in range(2):
                with pytest.raises(CroupierError) as refused:
                    croupier.get("games/" + "0" * 24)
                assert refused.value.code == grpc.StatusCode.UNIMPLEMENTED
                assert croupier.unary_target is None
    finally:
        older.stop(None)
    once = ["GetServerInfo", "GetGame"]
    assert asked == (once * 2 if asked_again else [*once, "GetGame"])


def test_a_client_given_the_unary_port_as_its_target_keeps_to_it(ports: Ports) -> None:
    with Croupier(ports.unary) as croupier:
        create(croupier, "one_card", 2, seed=11)
        assert croupier.unary_target is None
        assert croupier.server_info().unary_port == _port(ports.unary)


@pytest.mark.parametrize(
    ("target", "host"),
    [
        ("localhost:50051", "localhost"),
        ("10.0.0.7:50051", "10.0.0.7"),
        ("[::1]:50051", "[::1]"),
        ("dns:///croupier.games.svc:50051", "croupier.games.svc"),
        ("unix:/run/croupier.sock", None),
        ("ipv4:10.0.0.1:50051,10.0.0.2:50051", None),
        ("localhost", None),
        ("::1:50051", None),
    ],
)
def test_the_host_a_learned_port_is_reached_on(target: str, host: str | None) -> None:
    assert host_of(target) == host


def _refusals(target: str, name: str, credentials: list[str]) -> list[CroupierError]:
    """The same three refused calls: a move out of turn, a bad credential, bytes that are not
    an ApplyMoveRequest."""
    found = []
    with Croupier(target, max_attempts=1, learn_unary_port=False) as croupier:
        view = croupier.get(name)
        waiting = next(s for s in range(view.seats) if s not in view.active_seats)
        active = view.active_seats[0]
        move = croupier.legal_moves(name, credentials[active])[0]
        for credential in (credentials[waiting], "not-a-credential"):
            with pytest.raises(CroupierError) as refused:
                croupier.apply(name, credential, move)
            found.append(refused.value)
        malformed = croupier.channel.unary_unary(
            "/croupier.v1.GameService/ApplyMove",
            request_serializer=None,
            response_deserializer=pb.ApplyMoveResponse.FromString,
        )
        with pytest.raises(grpc.RpcError) as error:
            malformed(b"\xff\xff\xff", timeout=10)
        found.append(CroupierError.from_rpc_error(error.value))
    return found


def test_a_refusal_is_the_same_status_on_both_ports(ports: Ports) -> None:
    with Croupier(ports.server.target) as main:
        created = create(main, "one_card", 3, seed=5)
    credentials = list(created.seat_credentials)
    on_main = _refusals(ports.server.target, created.name, credentials)
    on_unary = _refusals(ports.unary, created.name, credentials)
    assert on_unary == on_main
    assert [(e.code.name, e.reason, e.rule_id) for e in on_unary] == [
        ("FAILED_PRECONDITION", "ILLEGAL_MOVE", "C-5"),  # One Card: play only on your turn
        ("UNAUTHENTICATED", "CREDENTIAL_MALFORMED", None),
        ("INVALID_ARGUMENT", "MALFORMED_REQUEST", None),
    ]


def test_watch_game_is_served_on_the_main_port_only(ports: Ports) -> None:
    with Croupier(ports.server.target) as main:
        created = create(main, "one_card", 2, seed=6)
    with grpc.insecure_channel(ports.unary) as channel:
        stream = GameServiceStub(channel).WatchGame(
            pb.WatchGameRequest(name=created.name), timeout=10
        )
        with pytest.raises(grpc.RpcError) as error:
            next(stream)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_health_answers_the_same_on_both_ports(ports: Ports) -> None:
    answers = []
    for target in (ports.server.target, ports.unary):
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            status = stub.Check(health_pb2.HealthCheckRequest(service="croupier.v1.GameService"))
            with pytest.raises(grpc.RpcError) as unknown:
                stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
            answers.append((status.status, unknown.value.code()))
    assert answers == [(health_pb2.HealthCheckResponse.SERVING, grpc.StatusCode.NOT_FOUND)] * 2


# More than the port's threads: some admitted calls wait for one, and must leave the bound too.
CALL_BOUND = THREADS + 16
STOPPED_AT_MOST = 30.0
# More than grpc-core's default 1,000 calls waiting to be asked for, which it would cancel
# (service/server.py, CORE_PENDING_CALLS).
FIRED = 1_500


async def _burst(target: str, name: str, refused_all: Callable[[], None]) -> Counter[str]:
    """FIRED GetGame at once on one channel: the outcome of each ("OK" or the code and reason
    of its refusal, which must carry a retry delay). `refused_all` is called once every call
    but CALL_BOUND has its answer."""
    answered = 0
    async with grpc.aio.insecure_channel(target, options=[("grpc.enable_retries", 0)]) as channel:
        stub = GameServiceStub(channel)

        async def one() -> str:
            nonlocal answered
            try:
                await stub.GetGame(pb.GetGameRequest(name=name), timeout=60)
                return "OK"
            except grpc.aio.AioRpcError as error:
                code, reason, delay = status_of(error)
                assert delay is not None and delay > 0, (code, reason)
                return f"{code.name} {reason}"
            finally:
                answered += 1
                if answered == FIRED - CALL_BOUND:
                    refused_all()

        return Counter(await asyncio.gather(*(one() for _ in range(FIRED))))


async def _given_up(target: str, name: str) -> Counter[str]:
    """2 * CALL_BOUND GetGame with a short deadline: the outcome of each."""
    async with grpc.aio.insecure_channel(target, options=[("grpc.enable_retries", 0)]) as channel:
        stub = GameServiceStub(channel)

        async def one() -> str:
            try:
                await stub.GetGame(pb.GetGameRequest(name=name), timeout=1.0)
                return "OK"
            except grpc.aio.AioRpcError as error:
                code, reason, _ = status_of(error)
                return f"{code.name} {reason}"

        return Counter(await asyncio.gather(*(one() for _ in range(2 * CALL_BOUND))))


def test_a_burst_beyond_the_bound_is_refused_without_waiting_for_the_calls_admitted(
    tmp_path: Path,
) -> None:
    """Redis stops answering, so the CALL_BOUND calls admitted first wait for it; it answers
    again only once every other call has come back refused (or, failing that, after
    STOPPED_AT_MOST): refusals do not queue behind the admitted calls."""
    unary, metrics_port = free_port(), free_port()
    log = tmp_path / "server.log"
    with EmbeddedRedis() as store, log.open("wb") as out:
        server = LocalServer(
            store.url,
            extra_args=(
                "--unary-port", str(unary),
                "--max-calls-in-flight", str(CALL_BOUND),
                "--store-timeout", "60",  # Redis is stopped for a while, on purpose
                "--metrics-port", str(metrics_port),
                *UNLIMITED,
            ),
            log_level="info",
            stderr=out.fileno(),
        )  # fmt: skip
        with server:
            target = f"127.0.0.1:{unary}"
            wait_serving(target)
            with Croupier(target) as croupier:
                name = create(croupier, "one_card", 2, seed=7).name
            redis_process = store.process
            assert redis_process is not None
            # First, calls whose clients give up while they wait for a thread (Redis stopped):
            # they must leave the bound all the same, or the burst below finds less room.
            redis_process.send_signal(signal.SIGSTOP)
            try:
                given_up = asyncio.run(_given_up(target, name))
            finally:
                redis_process.send_signal(signal.SIGCONT)
            assert given_up["DEADLINE_EXCEEDED "] >= CALL_BOUND
            # Every call the first burst admitted leaves the bound: the queued ones too.
            assert fallen(metrics_port, "croupier_unary_port_calls", 0) == 0
            # The refusals so far, as the server counted them (a client may have seen its
            # deadline pass first).
            early = metric(metrics_port, "croupier_overloaded_calls_total", rpc="GetGame")
            early_unavailable = metric(
                metrics_port, "croupier_rpc_calls_total", rpc="GetGame", code="UNAVAILABLE"
            )
            resumed_by: list[str] = []

            def resume(by: str) -> None:
                resumed_by.append(by)
                redis_process.send_signal(signal.SIGCONT)

            redis_process.send_signal(signal.SIGSTOP)
            timer = threading.Timer(STOPPED_AT_MOST, resume, ("timer",))
            try:
                timer.start()
                outcomes = asyncio.run(_burst(target, name, lambda: resume("refusals")))
            finally:
                timer.cancel()
                redis_process.send_signal(signal.SIGCONT)
            refused = outcomes["UNAVAILABLE OVERLOADED"]
            wait_metric(
                metrics_port, "croupier_overloaded_calls_total", early + refused, rpc="GetGame"
            )
            counted = metric(metrics_port, "croupier_overloaded_calls_total", rpc="GetGame")
            unavailable = metric(
                metrics_port, "croupier_rpc_calls_total", rpc="GetGame", code="UNAVAILABLE"
            )
            time.sleep(1.5)  # the last sampled line is due within a second
            code = server.stop()

    assert resumed_by[0] == "refusals"
    assert outcomes == {"OK": CALL_BOUND, "UNAVAILABLE OVERLOADED": FIRED - CALL_BOUND}
    assert counted - early == unavailable - early_unavailable == refused
    lines = [json.loads(line) for line in log.read_text().splitlines() if line[:1] == "{"]
    sampled = [line for line in lines if line["event"] == "overloaded"]
    assert sum(line["refused"] for line in sampled) == counted
    assert code == 0  # drained and stopped on SIGTERM
