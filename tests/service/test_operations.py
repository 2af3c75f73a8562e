"""Health, reflection, logs, credentials and graceful shutdown of a real server process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from croupier.bench.cpu import children_of
from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.observability import logs
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.scrape import metrics_text, wait_metric
from tests.service.helpers import create, game_id


def test_health_reports_serving(server_a: LocalServer) -> None:
    with grpc.insecure_channel(server_a.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "croupier.v1.GameService"):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_health_list_gives_every_status(server_a: LocalServer) -> None:
    """grpc.health.v1.Health/List answers with the statuses Check gives, not UNIMPLEMENTED."""
    with grpc.insecure_channel(server_a.target) as channel:
        reply = health_pb2_grpc.HealthStub(channel).List(health_pb2.HealthListRequest(), timeout=5)
    serving = health_pb2.HealthCheckResponse.SERVING
    assert {name: s.status for name, s in reply.statuses.items()} == {
        "": serving,
        "liveness": serving,
        "croupier.v1.GameService": serving,
    }


def test_reflection_lists_the_services(server_a: LocalServer) -> None:
    with grpc.insecure_channel(server_a.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
    assert {"croupier.v1.GameService", "grpc.health.v1.Health"} <= services


def test_credentials_are_random_and_never_shown_again(
    client: Croupier, redis_client: redis.Redis
) -> None:
    game = create(client, "vampire_queen", 5, seed=3)
    credentials = list(game.seat_credentials)
    assert len(set(credentials)) == 5
    assert all(len(c) >= 32 for c in credentials)  # 192 random bits, base64url
    stored = redis_client.hget(keys.game(game_id(game.name)), "s") or b""
    for seat, credential in enumerate(credentials):
        view = client.get(game.name, credential)
        assert view.viewer_seat == seat
        assert credential.encode() not in view.SerializeToString()
        assert credential.encode() not in stored


def test_one_json_log_line_per_request_without_credentials(
    client: Croupier, server_log: Path
) -> None:
    game = create(client, "vampire_queen", 3, seed=4)
    seat = game.view.active_seats[0]
    move = client.legal_moves(game.name, game.seat_credentials[seat])[0]
    client.apply(game.name, game.seat_credentials[seat], move)
    # The line is written in the turn of the server's loop after the answer.
    deadline = time.monotonic() + 10
    while True:
        applied = [
            line for line in _log_events(server_log)
            if line.get("rpc") == "ApplyMove" and line.get("game") == game_id(game.name)
        ]  # fmt: skip
        if applied or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    text = server_log.read_text()
    for credential in game.seat_credentials:
        assert credential not in text
    assert len(applied) == 1
    (line,) = applied
    assert line["outcome"] == "OK"
    assert line["seat"] == seat
    assert line["game_type"] == "vampire_queen"
    assert line["move"]
    assert isinstance(line["latency_ms"], float)


def test_sigterm_drains_and_exits_cleanly(tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with EmbeddedRedis() as store, log_path.open("wb") as log:
        server = LocalServer(store.url, log_level="info", stderr=log.fileno()).start()
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.stop()
            raise
    assert code == 0
    events = [
        json.loads(line).get("event")
        for line in log_path.read_text().splitlines()
        if line.startswith("{")
    ]
    assert events.index("draining") < events.index("stopped")


def test_sigterm_reports_not_serving_before_refusing_calls(tmp_path: Path) -> None:
    """On SIGTERM health turns NOT_SERVING at once, while calls are still served for the
    shutdown delay, then the process drains and exits 0."""
    with EmbeddedRedis() as store:
        server = LocalServer(store.url, extra_args=("--shutdown-delay", "3")).start()
        assert server.process is not None
        with grpc.insecure_channel(server.target) as channel, Croupier(server.target) as client:
            stub = health_pb2_grpc.HealthStub(channel)
            game = create(client, "vampire_queen", 3, seed=2)
            server.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 2.5
            status = health_pb2.HealthCheckResponse.SERVING
            while status == health_pb2.HealthCheckResponse.SERVING and time.monotonic() < deadline:
                status = stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status
                time.sleep(0.05)
            assert status == health_pb2.HealthCheckResponse.NOT_SERVING
            assert client.get(game.name).name == game.name  # still served during the delay
        assert server.process.wait(timeout=20) == 0


def test_a_log_line_is_written_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes share stderr, unbuffered in the image (PYTHONUNBUFFERED=1): a line and
    its newline written apart could interleave with another process's line."""
    writes: list[str] = []

    class Recorder(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return len(text)

    monkeypatch.setattr(sys, "stderr", Recorder())
    try:
        logs.configure("json", "info")
        structlog.get_logger("test").info("event", key="value")
    finally:
        monkeypatch.undo()
        logs.configure("json", "info")
    assert len(writes) == 1
    assert writes[0].endswith("\n") and writes[0].count("\n") == 1
    assert json.loads(writes[0])["key"] == "value"


def _listening_pids(log_path: Path) -> set[int]:
    """Pids of the processes that logged "listening" (complete lines only: the log may be
    being written)."""
    complete = log_path.read_text().rpartition("\n")[0]
    lines = [line for line in complete.splitlines() if line.startswith("{")]
    return {e["pid"] for e in map(json.loads, lines) if e.get("event") == "listening"}


@contextlib.contextmanager
def _two_workers(log_path: Path, *flags: str, cpu: int | None = None) -> Iterator[LocalServer]:
    """`croupier-server --workers 2` on a Redis of its own (with `cpu`, started on that CPU
    alone by taskset), its log in `log_path`, once both workers logged "listening" (the first
    one alone already answers); at the end SIGTERM, and a clean exit."""
    with EmbeddedRedis() as store, log_path.open("wb") as log:
        server = LocalServer(
            store.url,
            extra_args=("--workers", "2", *flags),
            log_level="info",
            env={"PYTHONUNBUFFERED": "1"},  # as the image runs it
            stderr=log.fileno(),
        )
        if cpu is not None:
            server.args[:0] = ["taskset", "--cpu-list", str(cpu)]
        server.start()
        try:
            deadline = time.monotonic() + 30
            while len(_listening_pids(log_path)) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(_listening_pids(log_path)) == 2, "the second worker did not start"
            yield server
        except BaseException:
            server.stop(timeout=30)
            raise
        assert server.stop(timeout=30) == 0


def _one_game_over_new_connections(target: str, seed: int) -> str:
    """A game created and read over 24 new connections to `target`; its id."""
    game = None
    for _ in range(24):
        with Croupier(target) as client:
            if game is None:
                game = create(client, "vampire_queen", 3, seed=seed)
            client.get(game.name)
    assert game is not None
    return game_id(game.name)


def test_workers_share_one_port(tmp_path: Path) -> None:
    """--workers 2 runs two processes on one port (SO_REUSEPORT); connections to it reach
    both."""
    log_path = tmp_path / "workers.log"
    with _two_workers(log_path) as server:
        game = _one_game_over_new_connections(server.target, seed=12)
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    serving = {
        line["pid"] for line in lines if (line.get("rpc"), line.get("game")) == ("GetGame", game)
    }
    assert len(serving) == 2, f"GetGame calls reached {len(serving)} process(es)"


def test_liveness_stays_serving_while_the_store_is_down() -> None:
    with EmbeddedRedis() as store, LocalServer(store.url) as server:
        store.stop()
        with grpc.insecure_channel(server.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 10
            while stub.Check(health_pb2.HealthCheckRequest(), timeout=2).status == (
                health_pb2.HealthCheckResponse.SERVING
            ):
                assert time.monotonic() < deadline, "health did not follow the store"
                time.sleep(0.1)
            liveness = stub.Check(health_pb2.HealthCheckRequest(service="liveness"), timeout=2)
            assert liveness.status == health_pb2.HealthCheckResponse.SERVING


def test_health_interval_sets_how_often_the_store_is_pinged() -> None:
    """--health-interval: the seconds between the pings that set health's status."""

    def pings(store: EmbeddedRedis) -> int:
        client = redis.Redis.from_url(store.url)
        try:
            stats: dict[str, Any] = client.info("commandstats")
            return int(stats.get("cmdstat_ping", {}).get("calls", 0))
        finally:
            client.close()

    counted = {}
    for interval in ("0.1", "3600"):
        with (
            EmbeddedRedis() as store,
            LocalServer(
                store.url, extra_args=("--health-interval", interval, "--clock-tick", "3600")
            ),
        ):
            before = pings(store)
            time.sleep(1.5)
            counted[interval] = pings(store) - before
    # About 15 and none; the margin is for a busy machine.
    assert counted["0.1"] >= 5
    assert counted["3600"] == 0


def test_prometheus_metrics_are_served(tmp_path: Path) -> None:
    port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url, extra_args=("--metrics-port", str(port))) as server,
        Croupier(server.target) as client,
    ):
        game = create(client, "vampire_queen", 3, seed=6)
        seat = game.view.active_seats[0]
        move = client.legal_moves(game.name, game.seat_credentials[seat])[0]
        with pytest.raises(CroupierError):
            client.apply(game.name, game.seat_credentials[(seat + 1) % 3], move)
        client.apply(game.name, game.seat_credentials[seat], move)
        stream = client.watch(game.name)
        next(stream)
        text = metrics_text(port)
        stream.close()
    applied = 'code="OK",game_type="vampire_queen",reason="",rpc="ApplyMove"'
    assert f"croupier_rpc_calls_total{{{applied}}} 1.0" in text
    refused = (
        'code="FAILED_PRECONDITION",game_type="vampire_queen",reason="ILLEGAL_MOVE",rpc="ApplyMove"'
    )
    assert f"croupier_rpc_calls_total{{{refused}}} 1.0" in text
    assert 'croupier_illegal_moves_total{game_type="vampire_queen",rule_id="C-5"} 1.0' in text
    assert 'croupier_rpc_latency_seconds_bucket{le="0.5",rpc="ApplyMove"}' in text
    assert 'croupier_store_latency_seconds_count{operation="commit"} 1.0' in text
    assert "croupier_store_errors_total" in text
    assert "croupier_watch_streams 1.0" in text
    # The server remembered the game it created: the refusal was checked by a read, the move
    # then went straight to its write.
    assert 'croupier_remembered_states_total{state="rechecked"} 1.0' in text
    assert 'croupier_remembered_states_total{state="current"} 1.0' in text


def test_benchmark_echo_runs_through_the_same_call_handling(store_url: str, tmp_path: Path) -> None:
    """With --benchmark-service (only then: tests/service/test_request_scope.py), Echo goes
    through the same call handling as GameService: its log line, its INVALID_ARGUMENT."""
    from croupier.v1 import benchmark_service_pb2 as bench
    from croupier.v1.benchmark_service_pb2_grpc import BenchmarkServiceStub

    server_log = tmp_path / "server.log"
    with (
        server_log.open("wb") as sink,
        LocalServer(
            store_url, log_level="info", stderr=sink.fileno(), extra_args=("--benchmark-service",)
        ) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        stub = BenchmarkServiceStub(channel)
        reply = stub.Echo(bench.EchoRequest(payload=b"x" * 50, response_bytes=300), timeout=5)
        assert reply.payload == bytes(300)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Echo(bench.EchoRequest(response_bytes=10**6), timeout=5)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        time.sleep(0.2)
    assert '"rpc": "Echo"' in server_log.read_text()


def test_metrics_count_refusals_by_reason_without_created_series() -> None:
    """RATE_LIMITED and SEAT_LIMIT are both RESOURCE_EXHAUSTED: the reason label tells them
    apart. No `_created` series are exported."""
    port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(
            store.url,
            extra_args=("--metrics-port", str(port), "--max-seats", "4", "--rate-limit", "2",
                        "--rate-burst", "2"),
        ) as server,
        Croupier(server.target) as client,
    ):  # fmt: skip
        with pytest.raises(CroupierError):
            client.create(VampireQueenOptions(), 5)
        game = create(client, "vampire_queen", 3, seed=2)
        reasons = []
        for _ in range(6):
            try:
                client.get(game.name, game.seat_credentials[0])
            except CroupierError as error:
                reasons.append(error.reason)
        assert reasons
        assert set(reasons) == {"RATE_LIMITED"}
        limited = len(reasons)
        # The last refusal is counted in the turn of the server's loop after its answer.
        wait_metric(port, "croupier_rpc_calls_total", limited, rpc="GetGame", reason="RATE_LIMITED")
        text = metrics_text(port)
    assert "_created" not in text
    seat_limit = (
        'code="RESOURCE_EXHAUSTED",game_type="vampire_queen",reason="SEAT_LIMIT",rpc="CreateGame"'
    )
    assert f"croupier_rpc_calls_total{{{seat_limit}}} 1.0" in text
    # Refused before the game is read: no game type.
    rate_limited = 'code="RESOURCE_EXHAUSTED",game_type="",reason="RATE_LIMITED",rpc="GetGame"'
    assert f"croupier_rpc_calls_total{{{rate_limited}}} {float(limited)}" in text


def test_metrics_port_binds_the_server_host() -> None:
    """--host 127.0.0.1 keeps the metrics on that address (they bound every address before);
    the default host, [::], serves them on IPv4 too."""
    port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url, extra_args=("--metrics-port", str(port))),
    ):
        assert "croupier_rpc_calls" in metrics_text(port)
        # 127.0.0.2 is on the loopback interface too, but not the address given.
        with pytest.raises(urllib.error.URLError) as caught:
            metrics_text(port, "127.0.0.2")
        assert isinstance(caught.value.reason, ConnectionRefusedError)
    port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url, extra_args=("--host", "[::]", "--metrics-port", str(port))),
    ):
        assert "croupier_rpc_calls" in metrics_text(port)
        assert "croupier_rpc_calls" in metrics_text(port, "[::1]")


def _log_events(path: Path) -> list[dict[str, object]]:
    complete = path.read_text().rpartition("\n")[0]
    return [json.loads(line) for line in complete.splitlines() if line.startswith("{")]


def test_listening_line_names_every_port(tmp_path: Path) -> None:
    web_port, metrics_port = free_port(), free_port()
    log_path = tmp_path / "server.log"
    with (
        EmbeddedRedis() as store,
        log_path.open("wb") as log,
        LocalServer(
            store.url,
            extra_args=("--web-port", str(web_port), "--metrics-port", str(metrics_port)),
            log_level="info",
            stderr=log.fileno(),
        ) as server,
    ):
        deadline = time.monotonic() + 10
        while not any(e.get("event") == "listening" for e in _log_events(log_path)):
            assert time.monotonic() < deadline, "no listening line"
            time.sleep(0.05)
    (line,) = [e for e in _log_events(log_path) if e.get("event") == "listening"]
    assert (line["host"], line["port"]) == ("127.0.0.1", server.port)
    assert (line["web_port"], line["metrics_port"]) == (web_port, metrics_port)


def _consecutive_free_ports(count: int) -> int:
    """The first of `count` consecutive free ports: worker i of --workers serves its metrics
    on --metrics-port + i (a port taken by another test's server would make it fail to start)."""
    while True:
        first = free_port()
        with contextlib.ExitStack() as held:
            try:
                for offset in range(count):
                    held.enter_context(socket.socket()).bind(("127.0.0.1", first + offset))
            except OSError:
                continue
            return first


def test_workers_line_names_every_port(tmp_path: Path) -> None:
    web_port, metrics_port = free_port(), _consecutive_free_ports(2)
    log_path = tmp_path / "workers.log"
    flags = ("--web-port", str(web_port), "--metrics-port", str(metrics_port))
    with _two_workers(log_path, *flags) as server:
        pass
    events = _log_events(log_path)
    (workers,) = [e for e in events if e.get("event") == "workers"]
    assert (workers["port"], workers["web_port"]) == (server.port, web_port)
    assert workers["metrics_ports"] == [metrics_port, metrics_port + 1]
    listening = [e for e in events if e.get("event") == "listening"]
    assert len(listening) == 2
    assert {e["web_port"] for e in listening} == {web_port}
    assert {e["metrics_port"] for e in listening} == {metrics_port, metrics_port + 1}


def test_workers_on_one_cpu_take_the_batch_policy(tmp_path: Path) -> None:
    """By default (`--cpu-policy auto`) the workers read the CPUs they may run on, which they
    inherit from the parent: on one CPU their threads are SCHED_BATCH."""
    log_path = tmp_path / "workers.log"
    with _two_workers(log_path, cpu=max(os.sched_getaffinity(0))) as server:
        for seed in (17, 18):  # over new connections, to either worker
            with Croupier(server.target) as client:
                create(client, "one_card", 2, seed=seed)
        pids = _listening_pids(log_path)
        assert {policy for pid in pids for policy in _thread_policies(pid)} == {os.SCHED_BATCH}
    listening = [e for e in _log_events(log_path) if e.get("event") == "listening"]
    assert {(e["cpus"], e["cpu_policy"]) for e in listening} == {(1, "batch")}


def test_pinned_workers_each_take_a_cpu_and_the_one_cpu_settings(tmp_path: Path) -> None:
    """--pin-workers: each worker runs on one CPU of the server's, in turn (two CPUs: one
    each), so `auto` puts their threads under SCHED_BATCH on a machine where the unpinned
    default is the normal policy; the parent keeps every CPU."""
    log_path = tmp_path / "workers.log"
    allowed = sorted(os.sched_getaffinity(0))
    with _two_workers(log_path, "--pin-workers") as server:
        (workers,) = [e for e in _log_events(log_path) if e.get("event") == "workers"]
        expected = [allowed[i % len(allowed)] for i in range(2)]
        assert workers["cpus"] == expected
        pids = _listening_pids(log_path)
        assert sorted(cpu for pid in pids for cpu in os.sched_getaffinity(pid)) == expected
        assert {policy for pid in pids for policy in _thread_policies(pid)} == {os.SCHED_BATCH}
        assert server.process is not None
        assert sorted(os.sched_getaffinity(server.process.pid)) == allowed
        for seed in (19, 20):  # over new connections, to either worker
            with Croupier(server.target) as client:
                game = create(client, "one_card", 2, seed=seed)
                seat = game.view.active_seats[0]
                move = client.legal_moves(game.name, game.seat_credentials[seat])[0]
                played = client.apply(game.name, game.seat_credentials[seat], move)
                assert played.view.move_count == 1
    listening = [e for e in _log_events(log_path) if e.get("event") == "listening"]
    assert {(e["cpus"], e["cpu_policy"]) for e in listening} == {(1, "batch")}


def test_one_pinned_process_takes_the_first_cpu_its_redis_keeps_them_all(tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    allowed = sorted(os.sched_getaffinity(0))
    with (
        log_path.open("wb") as log,
        LocalServer(extra_args=("--pin-workers",), log_level="info", stderr=log.fileno()) as server,
        Croupier(server.target) as client,
    ):
        create(client, "trinity", 3, seed=21)
        assert server.process is not None
        assert os.sched_getaffinity(server.process.pid) == {allowed[0]}
        (redis_pid,) = children_of(server.process.pid)
        assert sorted(os.sched_getaffinity(redis_pid)) == allowed
    (line,) = [e for e in _log_events(log_path) if e.get("event") == "listening"]
    assert (line["cpus"], line["cpu_policy"]) == (1, "batch")


NORMAL = ("--cpu-policy", "normal")


def _thread_policies(pid: int) -> set[int]:
    """The scheduling policy of every thread of `pid` (field 41 of /proc/PID/task/TID/stat)."""
    policies = set()
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        fields = stat.read_text().rsplit(")", 1)[1].split()
        policies.add(int(fields[38]))
    return policies


def test_cpu_policy_batch_puts_every_server_thread_under_sched_batch(tmp_path: Path) -> None:
    """--cpu-policy batch: every thread of the server (the event loop's, gRPC's, the metrics
    server's) is SCHED_BATCH and the server plays as before; its private redis-server, started
    first, keeps the normal policy. The default leaves every thread normal."""
    log_path = tmp_path / "server.log"
    extra = ("--cpu-policy", "batch", "--metrics-port", str(free_port()))
    with (
        log_path.open("wb") as log,
        LocalServer(extra_args=extra, log_level="info", stderr=log.fileno()) as server,
        Croupier(server.target) as client,
    ):
        game = create(client, "one_card", 2, seed=8)
        seat = game.view.active_seats[0]
        move = client.legal_moves(game.name, game.seat_credentials[seat])[0]
        assert client.apply(game.name, game.seat_credentials[seat], move).view.move_count == 1
        assert server.process is not None
        assert _thread_policies(server.process.pid) == {os.SCHED_BATCH}
        (redis_pid,) = children_of(server.process.pid)
        assert _thread_policies(redis_pid) == {os.SCHED_OTHER}
    (line,) = [e for e in _log_events(log_path) if e.get("event") == "listening"]
    assert line["cpu_policy"] == "batch"
    with EmbeddedRedis() as store, LocalServer(store.url, extra_args=NORMAL) as server:
        assert server.process is not None
        assert _thread_policies(server.process.pid) == {os.SCHED_OTHER}
    if len(os.sched_getaffinity(0)) > 1:  # by default (auto) too, on more than one CPU
        with EmbeddedRedis() as store, LocalServer(store.url) as server:
            assert server.process is not None
            assert _thread_policies(server.process.pid) == {os.SCHED_OTHER}


def test_cpu_policy_reaches_every_worker(tmp_path: Path) -> None:
    with _two_workers(tmp_path / "workers.log", "--cpu-policy", "batch"):
        pids = _listening_pids(tmp_path / "workers.log")
        assert {policy for pid in pids for policy in _thread_policies(pid)} == {os.SCHED_BATCH}
