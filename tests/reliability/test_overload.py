"""Overload: 5,000 calls fired at once at one server process, and every one accounted for.

Before the fix, 2,000 GetGame fired at once at a default server came back with about 150 CANCELLED
that the server never logged nor counted: grpc-core cancels calls that wait unasked for beyond its
pending-request limit (service/croupier/service/transport/server.py). Now every call reaches the
service, whose bounds (--max-calls-in-flight, --max-watch-streams, set low here) answer the excess
at once with UNAVAILABLE / OVERLOADED and a RetryInfo, count it and log it sampled.

The burst mixes GetGame, CreateGame and WatchGame opens (each stream is held open until every
call has been answered, so the streams pile up against their bound) over several channels,
while Redis stops answering for a moment (SIGSTOP until the server has refused short calls),
as in a failover or a slow disk: the short calls pile up waiting for it, against theirs.
Checked: each of the 5,000 is answered (OK) or refused with the reason and a retry delay; none
is CANCELLED, UNKNOWN or DEADLINE_EXCEEDED; the server's metrics and its log count exactly the
refusals the clients saw.
"""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from croupier.client import MAX_ATTEMPTS, Croupier
from croupier.local import LocalServer
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.reliability.figures import record
from tests.reliability.overloaded import call_slot_held, watch_slot_held
from tests.reliability.support import game_id
from tests.scrape import metric, wait_metric
from tests.service.helpers import status_of

FIRED = 5_000
CHANNELS = 4
GAMES_WATCHED = 10
MAX_CALLS = 64
MAX_WATCH_STREAMS = 300
# Redis answers again once the server has refused short calls, or after this long at most.
REDIS_STOPPED_AT_MOST = 15.0
# A call that got no answer at all in this long would fail the test as DEADLINE_EXCEEDED; the
# whole burst takes a few seconds on a busy 2-core machine.
CALL_TIMEOUT = 60.0
# Retries are off in these channels: the test counts what the server answered to each call.
NO_RETRIES = [("grpc.enable_retries", 0)]


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as running:
        yield running


def _refusal(error: grpc.aio.AioRpcError) -> tuple[str, str, float | None, str | None]:
    """The code, ErrorInfo reason, RetryInfo delay and retry pushback trailer of a refusal."""
    code, reason, delay = status_of(error)
    trailers = dict(error.trailing_metadata() or ())
    pushback = trailers.get("grpc-retry-pushback-ms")
    return code.name, reason, delay, pushback if isinstance(pushback, str) else None


async def _burst(
    target: str, store: EmbeddedRedis, metrics_port: int
) -> tuple[Counter[tuple[str, str, str]], float]:
    """Fire FIRED calls at once; the outcome of each, by (rpc, code, reason)."""
    channels = [grpc.aio.insecure_channel(target, options=NO_RETRIES) for _ in range(CHANNELS)]
    stubs = [GameServiceStub(channel) for channel in channels]
    create = pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions())
    games = [(await stubs[0].CreateGame(create, timeout=10)).name for _ in range(GAMES_WATCHED)]
    outcomes: Counter[tuple[str, str, str]] = Counter()
    answered = asyncio.Event()  # every short call answered: the streams may close
    pending_short = 0

    def refused(rpc: str, error: grpc.aio.AioRpcError) -> None:
        code, reason, delay, pushback = _refusal(error)
        if reason in ("OVERLOADED", "RATE_LIMITED"):
            assert delay is not None and delay > 0, f"{rpc} {reason} without a RetryInfo delay"
        if reason == "OVERLOADED":
            assert pushback is not None and int(pushback) > 0, "no grpc-retry-pushback-ms"
        outcomes[(rpc, code, reason)] += 1

    async def short(i: int, rpc: str) -> None:
        nonlocal pending_short
        stub = stubs[i % CHANNELS]
        try:
            if rpc == "GetGame":
                await stub.GetGame(
                    pb.GetGameRequest(name=games[i % len(games)]), timeout=CALL_TIMEOUT
                )
            else:
                await stub.CreateGame(create, timeout=CALL_TIMEOUT)
            outcomes[(rpc, "OK", "")] += 1
        except grpc.aio.AioRpcError as error:
            refused(rpc, error)
        finally:
            pending_short -= 1
            if pending_short == 0:
                answered.set()

    async def watch(i: int) -> None:
        stream = stubs[i % CHANNELS].WatchGame(
            pb.WatchGameRequest(name=games[i % len(games)]), timeout=CALL_TIMEOUT
        )
        try:
            await stream.read()
            outcomes[("WatchGame", "OK", "")] += 1
            await answered.wait()  # held open: the streams pile up against their bound
        except grpc.aio.AioRpcError as error:
            refused("WatchGame", error)
        finally:
            stream.cancel()

    calls = []
    for i in range(FIRED):
        kind = i % 10
        if kind < 4:
            pending_short += 1
            calls.append(short(i, "GetGame"))
        elif kind < 7:
            pending_short += 1
            calls.append(short(i, "CreateGame"))
        else:
            calls.append(watch(i))
    assert store.process is not None
    redis_process = store.process

    async def redis_answers_again() -> None:
        try:
            await asyncio.to_thread(
                wait_metric,
                metrics_port,
                "croupier_overloaded_calls_total",
                1,
                REDIS_STOPPED_AT_MOST,
                kind="calls",
            )
        finally:
            redis_process.send_signal(signal.SIGCONT)

    redis_process.send_signal(signal.SIGSTOP)
    started = time.monotonic()
    try:
        await asyncio.gather(redis_answers_again(), *calls)
    finally:
        redis_process.send_signal(signal.SIGCONT)
    elapsed = time.monotonic() - started
    for channel in channels:
        await channel.close()
    return outcomes, elapsed


def _metrics(port: int) -> dict[str, list[tuple[dict[str, str], float]]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def test_every_call_of_a_burst_is_answered_or_refused_with_a_reason(
    store: EmbeddedRedis, tmp_path: Path
) -> None:
    metrics_port = free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = LocalServer(
            store.url,
            extra_args=(
                "--max-calls-in-flight", str(MAX_CALLS),
                # The burst's streams are spectators': their bound is the one under test.
                "--max-spectator-streams", str(MAX_WATCH_STREAMS),
                "--max-streams-per-address", "0",
                "--max-watchers", "0",  # per game: not the bound under test
                "--rate-limit", "0",
                "--store-timeout", "60",  # Redis is stopped for a while, on purpose
                "--metrics-port", str(metrics_port),
            ),
            # Calls without a credential are limited per client address where that limit
            # exists; this test's calls all come from one address and are not about it.
            env={"CROUPIER_ANONYMOUS_RATE_LIMIT": "0"},
            log_level="info",
            stderr=log.fileno(),
        )  # fmt: skip
        with server:
            outcomes, elapsed = asyncio.run(_burst(server.target, store, metrics_port))
            time.sleep(1.5)  # the last sampled log line is due within a second
            metrics = _metrics(metrics_port)
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]

    # Every call answered or refused with a reason that says when to retry; nothing else.
    assert sum(outcomes.values()) == FIRED
    allowed = {("OK", ""), ("UNAVAILABLE", "OVERLOADED"), ("RESOURCE_EXHAUSTED", "RATE_LIMITED")}
    unexpected = {k: n for k, n in outcomes.items() if (k[1], k[2]) not in allowed}
    assert not unexpected, f"calls neither answered nor refused with a reason: {unexpected}"
    overloaded = Counter(
        {rpc: n for (rpc, _, reason), n in outcomes.items() if reason == "OVERLOADED"}
    )
    ok = Counter({rpc: n for (rpc, code, _), n in outcomes.items() if code == "OK"})
    # Both bounds were reached: short calls while Redis was paused, streams as they piled up.
    assert overloaded["WatchGame"] > 0
    assert overloaded["GetGame"] + overloaded["CreateGame"] > 0
    assert ok["WatchGame"] >= MAX_WATCH_STREAMS  # the bound is what it says, not less

    # The server counted exactly the refusals the clients saw, by kind and RPC...
    counted = Counter(
        {labels["rpc"]: value for labels, value in metrics["croupier_overloaded_calls_total"]}
    )
    assert counted == overloaded
    unavailable: Counter[str] = Counter()
    for labels, value in metrics["croupier_rpc_calls_total"]:
        if labels["code"] == "UNAVAILABLE":
            unavailable[labels["rpc"]] += int(value)
    assert unavailable == overloaded
    # ...and logged them sampled: at most one line a second per bound, with the counts.
    sampled = [line for line in lines if line["event"] == "overloaded"]
    assert sum(line["refused"] for line in sampled) == sum(overloaded.values())
    for kind in ("calls", "spectator streams"):
        of_kind = [line for line in sampled if line["kind"] == kind]
        assert 1 <= len(of_kind) <= elapsed + 2, f"{len(of_kind)} {kind} lines in {elapsed:.1f} s"
    rpc_lines = [line for line in lines if line["event"] == "rpc"]
    assert not [line for line in rpc_lines if line.get("reason") == "OVERLOADED"]
    # Every answered short call has its own line (the setup's games are 10 more CreateGames).
    logged_ok = Counter(line["rpc"] for line in rpc_lines if line["outcome"] == "OK")
    assert logged_ok["GetGame"] == ok["GetGame"]
    assert logged_ok["CreateGame"] == ok["CreateGame"] + GAMES_WATCHED

    refused = sum(n for (_, code, _), n in outcomes.items() if code != "OK")
    record(
        "overload",
        fired=FIRED,
        answered=sum(ok.values()),
        refused_overloaded=sum(overloaded.values()),
        refused_rate_limited=sum(n for k, n in outcomes.items() if k[2] == "RATE_LIMITED"),
        refused=refused,
        cancelled=0,
        by_rpc={f"{rpc} {code} {reason}".strip(): n for (rpc, code, reason), n in outcomes.items()},
        seconds=round(elapsed, 2),
        log_lines_of_refusals=len(sampled),
    )


def test_a_default_server_answers_2000_get_game_fired_at_once() -> None:
    """The figure of the issue: 2,000 GetGame at once at a server with every default (its own
    Redis child); before, 157-195 of them came back CANCELLED, unlogged."""

    async def burst(target: str) -> Counter[tuple[str, str]]:
        async with grpc.aio.insecure_channel(target, options=NO_RETRIES) as channel:
            stub = GameServiceStub(channel)
            create = pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions())
            name = (await stub.CreateGame(create, timeout=10)).name
            outcomes: Counter[tuple[str, str]] = Counter()

            async def get() -> None:
                try:
                    await stub.GetGame(pb.GetGameRequest(name=name), timeout=CALL_TIMEOUT)
                    outcomes[("OK", "")] += 1
                except grpc.aio.AioRpcError as error:
                    code, reason, _, _ = _refusal(error)
                    outcomes[(code, reason)] += 1

            await asyncio.gather(*(get() for _ in range(2_000)))
            return outcomes

    with LocalServer(env={"CROUPIER_ANONYMOUS_RATE_LIMIT": "0"}) as server:
        outcomes = asyncio.run(burst(server.target))
    assert sum(outcomes.values()) == 2_000
    assert set(outcomes) <= {("OK", ""), ("UNAVAILABLE", "OVERLOADED")}, outcomes
    record(
        "overload_default_server",
        fired=2_000,
        **{" ".join(k).strip(): n for k, n in outcomes.items()},
    )


def _held_server(store: EmbeddedRedis, metrics_port: int) -> LocalServer:
    """One call and one watch stream at a time, and a store that may be stopped for long."""
    return LocalServer(
        store.url,
        extra_args=(
            "--max-calls-in-flight", "1",
            "--max-watch-streams", "1",
            "--max-spectator-streams", "1",
            "--store-timeout", "60",
            "--rate-limit", "0",
            "--metrics-port", str(metrics_port),
        ),
        env={"CROUPIER_ANONYMOUS_RATE_LIMIT": "0"},
    )  # fmt: skip


def test_python_client_retries_overloaded_apply_move_once_applied(
    store: EmbeddedRedis,
) -> None:
    """ApplyMove without a request id, refused OVERLOADED while the server's one call slot is
    held: gRPC's retry policy tries again after the pushback the server asked for, the move is
    applied once, under the request id the client made up (a UUID)."""
    metrics_port = free_port()
    with _held_server(store, metrics_port) as server, Croupier(server.target) as client:
        game = client.create(VampireQueenOptions(), 3, seed=8)
        seat = game.view.active_seats[0]
        credential = game.seat_credentials[seat]
        move = client.legal_moves(game.name, credential)[0]
        applied: list[pb.ApplyMoveResponse] = []
        with call_slot_held(store, server.target, game.name, metrics_port):
            mover = threading.Thread(
                target=lambda: applied.append(client.apply(game.name, credential, move))
            )
            mover.start()
            wait_metric(metrics_port, "croupier_overloaded_calls_total", 1, rpc="ApplyMove")
        mover.join(timeout=30)
        refusals = metric(metrics_port, "croupier_overloaded_calls_total", rpc="ApplyMove")
        assert applied, "the retried ApplyMove did not succeed"
        assert applied[0].etag == "2"
        assert client.get(game.name).move_count == 1
    with redis.Redis.from_url(store.url) as direct:
        records = list(direct.scan_iter(keys.request(game_id(game.name), "*")))
    assert len(records) == 1
    # The key ends with the scope of the credential, then the request id (auth.scoped_request_id).
    request_id = records[0].decode().rsplit(":", 1)[1]
    assert str(uuid.UUID(request_id)) == request_id.lower()
    assert 1 <= refusals < MAX_ATTEMPTS
    record("overload_python_client", apply_move_refused_then_applied=int(refusals))


def test_python_client_retries_an_overloaded_watch(store: EmbeddedRedis) -> None:
    """A WatchGame refused OVERLOADED (the process holds as many streams as it allows) is
    opened again once a stream closes, after the delay the server asked for."""
    metrics_port = free_port()
    with _held_server(store, metrics_port) as server, Croupier(server.target) as client:
        game = client.create(VampireQueenOptions(), 3, seed=9)
        views: list[pb.WatchGameResponse] = []
        with watch_slot_held(server.target, game.name, metrics_port):
            watcher = threading.Thread(target=lambda: views.append(next(client.watch(game.name))))
            watcher.start()
            wait_metric(metrics_port, "croupier_overloaded_calls_total", 1, rpc="WatchGame")
        watcher.join(timeout=30)
        refusals = metric(metrics_port, "croupier_overloaded_calls_total", rpc="WatchGame")
    assert views and views[0].view.move_count == 0
    assert 1 <= refusals < MAX_ATTEMPTS
