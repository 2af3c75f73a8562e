"""Shared pieces of the reliability tests: a restartable persistent Redis, an asyncio client,
health probes and the expected view of a seat built from the stored state alone."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from redis.backoff import NoBackoff
from redis.retry import Retry

from croupier.engines.core.engine import Emitted
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.application import auth
from croupier.service.application.games import state_of
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.storage_pb2 import LoggedMove, StoredGame
from tests.service.helpers import assert_replays, game_id, raw, stored

__all__ = ["assert_replays", "game_id", "raw", "stored"]

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
GAME_TYPES = sorted(GAMES)


# --- Redis ---------------------------------------------------------------------------------

PERSISTENT = ("--appendonly", "yes", "--appendfsync", "always")


class PersistentRedis(EmbeddedRedis):
    """A redis-server that writes every acknowledged write to its append-only file before
    answering, and can be killed and started again on the same port and folder."""

    def __init__(self, extra_args: tuple[str, ...] = ()) -> None:
        super().__init__(extra_args=(*PERSISTENT, *extra_args))

    def __enter__(self) -> PersistentRedis:
        self.start()
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final save; only what was fsynced survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        """Start again on the same port, in the same folder (it reloads its AOF)."""
        assert self.process is None, "stop or kill it first"
        self.start(timeout=20)


def redis_client(url: str, timeout: float = 5.0, *, retries: int = 3) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), retries),
    )


def logged_moves(client: redis.Redis, name: str) -> list[LoggedMove]:
    entries = cast(list[bytes], client.lrange(keys.log(game_id(name)), 0, -1))
    return [LoggedMove.FromString(entry) for entry in entries]


def record_key(name: str, credential: str, request_id: str) -> str:
    """The key of a move's idempotency record: its request id as sent by that seat's
    credential (records are per seat, docs/api.md)."""
    return keys.request(game_id(name), auth.scoped_request_id(credential, request_id))


def has_record(client: redis.Redis, name: str, credential: str, request_id: str) -> bool:
    return bool(client.exists(record_key(name, credential, request_id)))


def new_request_id() -> str:
    return str(uuid.uuid4())


# --- servers -------------------------------------------------------------------------------


def health(target: str, timeout: float = 1.0) -> int | None:
    """The server's overall health status, None when it does not answer."""
    with grpc.insecure_channel(target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
        except grpc.RpcError:
            return None
    status: int = reply.status
    return status


def wait_health(target: str, status: int, timeout: float = 10.0) -> float:
    """Seconds until the server reports `status`; fails after `timeout`."""
    started = time.monotonic()
    while True:
        if health(target) == status:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{target} did not report {status} within {timeout} s")
        time.sleep(0.05)


def alive(server: LocalServer) -> bool:
    return server.process is not None and server.process.poll() is None


@contextmanager
def servers(
    redis_url: str, count: int, *extra_args: str, **kwargs: Any
) -> Iterator[list[LocalServer]]:
    """`count` croupier-server processes sharing one Redis. The per-address limit of calls
    without a credential is off: these tests load the servers with many players' spectator
    reads from one loopback address, which in play would come from many addresses (the limit
    is tested in tests/service/test_access.py)."""
    started: list[LocalServer] = []
    args = ("--anonymous-rate-limit", "0", *extra_args)
    try:
        for _ in range(count):
            started.append(LocalServer(redis_url, extra_args=args, **kwargs).start())
        yield started
    finally:
        for server in started:
            server.stop()


# --- clients -------------------------------------------------------------------------------


def metadata(credential: str | None) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")] if credential else []


class AsyncApi:
    """A grpc.aio client of one server; errors are raised as CroupierError."""

    def __init__(self, target: str, timeout: float = 30.0) -> None:
        self.target = target
        self.timeout = timeout
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = GameServiceStub(self.channel)

    async def _call(
        self, method: Any, request: Any, credential: str | None, deadline: float | None
    ) -> Any:
        try:
            return await method(
                request, metadata=metadata(credential), timeout=deadline or self.timeout
            )
        except grpc.aio.AioRpcError as error:
            raise CroupierError.from_rpc_error(error) from None

    async def create(self, game: str, seats: int, seed: int) -> pb.CreateGameResponse:
        request = pb.CreateGameRequest(seats=seats, seed=seed)
        getattr(request, game).CopyFrom(options_for(game))
        response: pb.CreateGameResponse = await self._call(
            self.stub.CreateGame, request, None, None
        )
        return response

    async def get(self, name: str, credential: str | None = None) -> pb.GameView:
        response: pb.GetGameResponse = await self._call(
            self.stub.GetGame, pb.GetGameRequest(name=name), credential, None
        )
        return response.view

    async def legal_moves(self, name: str, credential: str) -> list[pb.Move]:
        response: pb.ListLegalMovesResponse = await self._call(
            self.stub.ListLegalMoves, pb.ListLegalMovesRequest(name=name), credential, None
        )
        return list(response.moves)

    async def apply(
        self,
        name: str,
        credential: str,
        move: pb.Move,
        *,
        request_id: str = "",
        etag: str = "",
        deadline: float | None = None,
    ) -> pb.ApplyMoveResponse:
        request = pb.ApplyMoveRequest(name=name, move=move, request_id=request_id, etag=etag)
        response: pb.ApplyMoveResponse = await self._call(
            self.stub.ApplyMove, request, credential, deadline
        )
        return response

    async def close(self) -> None:
        await self.channel.close()


class LossyProxy:
    """A loopback TCP forwarder in front of a server that can lose answers: while
    `drop_answers` is set, every byte the server sends back is dropped, so requests arrive and
    are served but their responses never reach the client (its call runs into its deadline)."""

    def __init__(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        self._upstream = (host, int(port))
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []
        self.drop_answers = False
        self.dropped_bytes = 0

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        self._writers += [writer, up_writer]
        for task in (
            asyncio.create_task(self._pump(reader, up_writer, answers=False)),
            asyncio.create_task(self._pump(up_reader, writer, answers=True)),
        ):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, answers: bool
    ) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await source.read(65536):
                if answers and self.drop_answers:
                    self.dropped_bytes += len(data)
                    continue
                sink.write(data)
                await sink.drain()
        sink.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def status_of(error: grpc.RpcError) -> bytes:
    """Everything a refused call tells its caller: the status proto (code, message, details)."""
    status = rpc_status.from_call(cast(grpc.Call, error))
    call = cast(grpc.Call, error)
    text = (call.details() or "").encode()
    return text + (status.SerializeToString() if status is not None else b"")


# --- what a seat may receive ---------------------------------------------------------------


def expected_view(name: str, game: StoredGame, version: int, seat: int | None) -> pb.GameView:
    """The GameView the API documents for `seat`, built from the stored game and the engine's
    own `view` only (game_service.proto: GameView)."""
    engine = GAMES[game.game_type]
    state = state_of(game)
    # Open seats: an empty credential hash; while any is open, nobody may act (GAME_WAITING).
    open_seats = [seat for seat, digest in enumerate(game.credential_hashes) if not digest]
    result = engine.result(state)
    if result is not None:
        status = pb.GameStatus.GAME_STATUS_FINISHED
    elif open_seats:
        status = pb.GameStatus.GAME_STATUS_WAITING
    else:
        status = pb.GameStatus.GAME_STATUS_ACTIVE
    view = pb.GameView(
        name=name,
        game_type=game.game_type,
        etag=str(version),
        seats=state.seats,
        display_names=game.display_names,
        active_seats=[] if open_seats else engine.active_seats(state),
        move_count=game.move_count,
        player_ids=list(game.player_ids) or [""] * state.seats,
        status=status,
        open_seats=open_seats,
        rematch=f"games/{game.rematch}" if game.rematch else "",
    )
    if seat is not None:
        view.viewer_seat = seat
        # Its legal moves, when it may act (none while the game waits for players).
        if seat in view.active_seats:
            for move in engine.legal_moves(state, seat):
                getattr(view.legal_moves.add(), game.game_type).CopyFrom(move)
    if result is not None:
        view.result.CopyFrom(result)
    getattr(view, game.game_type).CopyFrom(engine.view(state, seat))
    return view


def wrapped_events(game_type: str, emitted: Sequence[Emitted[Any]], seat: int | None) -> bytes:
    """The events of a move as `seat` must receive them (Emitted.for_seat), serialized."""
    out = b""
    for item in emitted:
        event = item.for_seat(seat)
        if event is not None:
            wrapper = pb.Event()
            getattr(wrapper, game_type).CopyFrom(event)
            out += encode(wrapper)
    return out


def received_events(events: Sequence[pb.Event]) -> bytes:
    return b"".join(encode(event) for event in events)


def encode(message: Any) -> bytes:
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def wrap_move(game_type: str, move: Any) -> pb.Move:
    wrapper = pb.Move()
    getattr(wrapper, game_type).CopyFrom(move)
    return wrapper
