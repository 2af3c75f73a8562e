"""Idempotency: a move retried with the same request_id, after the client gave up on its first
try and against another server process, returns the first response and is applied once; the
same request_id with a different move is refused with ALREADY_EXISTS / REQUEST_ID_REUSED and
applies nothing; from another seat it is that seat's own request id (request ids are per seat),
judged as its own move and never answered with the first response. For every game type.

The first try is lost three ways: its answer dropped on the way back (a proxy that loses the
server's bytes: the move is certainly applied), a ~1 ms client deadline (applied or not, the
retry tells which), and a Redis asleep past the deadline (certainly not applied)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest
import redis

from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import IdempotencyRecord
from tests.reliability.figures import record
from tests.reliability.support import (
    GAME_TYPES,
    AsyncApi,
    LossyProxy,
    assert_replays,
    expected_view,
    logged_moves,
    new_request_id,
    raw,
    record_key,
    redis_client,
    servers,
    stored,
)

OUTCOMES: Counter[str] = Counter()
# First tries with deadlines of a millisecond or so: some are answered, some time out after
# the write, some before it (grpc enforces such deadlines only roughly).
TINY_DEADLINES = (0.0005, 0.001, 0.001, 0.0015, 0.002, 0.001)


@pytest.fixture(scope="module")
def store() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(extra_args=("--enable-debug-command", "yes")) as running:
        yield running


@pytest.fixture(scope="module")
def two_servers(store: EmbeddedRedis) -> Iterator[list[LocalServer]]:
    with servers(store.url, 2) as started:
        yield started


@pytest.fixture(scope="module")
def client(store: EmbeddedRedis) -> Iterator[redis.Redis]:
    connection = redis_client(store.url)
    yield connection
    connection.close()


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    record("idempotency", **dict(OUTCOMES), applied_twice=0)


def recorded(
    client: redis.Redis, name: str, credential: str, request_id: str
) -> pb.ApplyMoveResponse:
    """The response kept with the move that `credential` sent with `request_id` (written in the
    same atomic step as the move itself)."""
    data = client.get(record_key(name, credential, request_id))
    assert isinstance(data, bytes), f"no record of {request_id}"
    return pb.ApplyMoveResponse.FromString(IdempotencyRecord.FromString(data).response)


async def new_game(api: AsyncApi, game_type: str, seed: int) -> pb.CreateGameResponse:
    engine = GAMES[game_type]
    return await api.create(game_type, max(engine.min_seats, 3), seed=seed)


async def turn(api: AsyncApi, game: pb.CreateGameResponse) -> tuple[int, str, list[pb.Move]]:
    """A seat that may act, its credential and its legal moves."""
    view = await api.get(game.name)
    assert not view.HasField("result")
    seat = view.active_seats[0]
    credential = game.seat_credentials[seat]
    return seat, credential, await api.legal_moves(game.name, credential)


async def wait_version(client: redis.Redis, name: str, version: int) -> None:
    deadline = time.monotonic() + 5
    while stored(client, name)[0] < version:
        assert time.monotonic() < deadline, f"{name} never reached version {version}"
        await asyncio.sleep(0.02)


async def check_retries(
    client: redis.Redis,
    apis: list[AsyncApi],
    game: pb.CreateGameResponse,
    seat: int,
    move: pb.Move,
    request_id: str,
    version: int,
) -> pb.ApplyMoveResponse:
    """Retry through every process: each returns the recorded response, the game holds the
    move exactly once, and that response is the seat's documented view right after it."""
    credential = game.seat_credentials[seat]
    answers = [await api.apply(game.name, credential, move, request_id=request_id) for api in apis]
    first = recorded(client, game.name, credential, request_id)
    assert all(answer == first for answer in answers)
    now, state = stored(client, game.name)
    assert now == version + 1, "the move is applied exactly once"
    assert first.etag == str(now)
    assert first.view == expected_view(game.name, state, now, seat)
    assert assert_replays(client, game.name) == version
    last = logged_moves(client, game.name)[-1]
    assert (last.seat, last.move) == (seat, move)
    return first


async def check_reuse_refused(
    client: redis.Redis,
    api: AsyncApi,
    game: pb.CreateGameResponse,
    seat: int,
    moves: list[pb.Move],
    request_id: str,
) -> None:
    """The used request id with a different move applies nothing and returns nothing of the
    first response; sent by another seat it is that seat's own request id (docs/api.md: request
    ids are per seat), judged as that seat's move, and never answered with the first response."""
    before = raw(client, game.name)
    game_type = game.view.game_type
    others: list[tuple[int, pb.Move]] = [(seat, m) for m in moves[1:2]]
    others.append((seat, pb.Move(**{game_type: GAMES[game_type].move_type()})))
    for who, move in others:
        with pytest.raises(CroupierError) as caught:
            await api.apply(game.name, game.seat_credentials[who], move, request_id=request_id)
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.ALREADY_EXISTS,
            "REQUEST_ID_REUSED",
        )
        OUTCOMES["reuse_refused"] += 1
    assert raw(client, game.name) == before
    other = (seat + 1) % len(game.seat_credentials)
    first = recorded(client, game.name, game.seat_credentials[seat], request_id)
    answer: pb.ApplyMoveResponse | CroupierError
    try:
        answer = await api.apply(
            game.name, game.seat_credentials[other], moves[0], request_id=request_id
        )
    except CroupierError as error:
        answer = error
    if isinstance(answer, CroupierError):
        assert answer.reason != "REQUEST_ID_REUSED"
        assert raw(client, game.name) == before
        OUTCOMES["other_seat_judged_on_its_own_refused"] += 1
    else:
        assert answer != first
        last = logged_moves(client, game.name)[-1]
        assert (last.seat, last.move) == (other, moves[0])
        OUTCOMES["other_seat_judged_on_its_own_applied"] += 1


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_retry_after_a_lost_answer_returns_the_first_response(
    game_type: str, two_servers: list[LocalServer], client: redis.Redis
) -> None:
    async def run() -> None:
        a, b = (AsyncApi(server.target) for server in two_servers)
        proxy = LossyProxy(two_servers[0].target)
        lossy = AsyncApi(await proxy.start())
        try:
            game = await new_game(a, game_type, seed=71)
            await lossy.get(game.name)  # the connection through the proxy is up
            for _ in range(2):
                seat, credential, moves = await turn(a, game)
                version, _ = stored(client, game.name)
                request_id = new_request_id()
                proxy.drop_answers = True
                with pytest.raises(CroupierError) as caught:
                    await lossy.apply(
                        game.name, credential, moves[0], request_id=request_id, deadline=1.0
                    )
                assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
                await wait_version(client, game.name, version + 1)  # yet it was applied
                proxy.drop_answers = False
                assert proxy.dropped_bytes > 0
                await check_retries(client, [b, a], game, seat, moves[0], request_id, version)
                OUTCOMES["answer_lost_then_retried"] += 1
                await check_reuse_refused(client, b, game, seat, moves, request_id)
        finally:
            for api in (a, b, lossy):
                await api.close()
            await proxy.close()

    asyncio.run(run())


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_retry_after_a_tiny_deadline_applies_once(
    game_type: str, two_servers: list[LocalServer], client: redis.Redis
) -> None:
    async def run() -> None:
        a, b = (AsyncApi(server.target) for server in two_servers)
        try:
            game = await new_game(a, game_type, seed=72)
            for deadline in TINY_DEADLINES:
                seat, credential, moves = await turn(a, game)
                version, _ = stored(client, game.name)
                request_id = new_request_id()
                answered: pb.ApplyMoveResponse | None = None
                try:
                    answered = await a.apply(
                        game.name, credential, moves[0], request_id=request_id, deadline=deadline
                    )
                except CroupierError as error:
                    if error.code != grpc.StatusCode.DEADLINE_EXCEEDED:
                        raise
                await asyncio.sleep(0.05)
                applied_first = stored(client, game.name)[0] == version + 1
                OUTCOMES[
                    "tiny_deadline_answered"
                    if answered is not None
                    else "tiny_deadline_applied_then_retried"
                    if applied_first
                    else "tiny_deadline_not_applied_then_retried"
                ] += 1
                first = await check_retries(
                    client, [b, a], game, seat, moves[0], request_id, version
                )
                if answered is not None:
                    assert answered == first
                await check_reuse_refused(client, a, game, seat, moves, request_id)
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def redis_asleep(url: str, seconds: float) -> threading.Thread:
    """Block the whole Redis for `seconds` (DEBUG SLEEP) from a connection of its own."""

    def sleep() -> None:
        connection = redis_client(url, timeout=seconds + 5)
        try:
            connection.execute_command("DEBUG", "SLEEP", str(seconds))
        finally:
            connection.close()

    thread = threading.Thread(target=sleep)
    thread.start()
    probe = redis_client(url, timeout=0.05, retries=0)
    try:  # Redis is asleep before the move is sent: a PING gets no answer
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                probe.ping()
            except redis.TimeoutError:
                return thread
            time.sleep(0.005)
        raise AssertionError("DEBUG SLEEP did not start")
    finally:
        probe.close()


def test_retry_after_a_write_refused_past_the_deadline_applies_once(
    store: EmbeddedRedis, two_servers: list[LocalServer], client: redis.Redis
) -> None:
    """Redis answers only after the client's deadline: the server writes nothing (it checks
    the deadline before writing), and the retry applies the move once."""

    async def run() -> None:
        a, b = (AsyncApi(server.target) for server in two_servers)
        try:
            for index, game_type in enumerate(GAME_TYPES):
                game = await new_game(a, game_type, seed=73)
                seat, credential, moves = await turn(a, game)
                version, _ = stored(client, game.name)
                before = raw(client, game.name)
                request_id = new_request_id()
                asleep = await asyncio.to_thread(redis_asleep, store.url, 1.0)
                with pytest.raises(CroupierError) as caught:
                    await [a, b][index % 2].apply(
                        game.name, credential, moves[0], request_id=request_id, deadline=0.3
                    )
                assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
                await asyncio.to_thread(asleep.join)
                await asyncio.sleep(0.1)
                assert raw(client, game.name) == before, "nothing was written"
                assert not client.exists(record_key(game.name, credential, request_id))
                await check_retries(client, [b, a], game, seat, moves[0], request_id, version)
                OUTCOMES["redis_asleep_not_applied_then_retried"] += 1
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())
