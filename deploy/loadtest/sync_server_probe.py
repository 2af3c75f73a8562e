"""A probe, not a server to deploy: the synchronous grpcio server style for the calls of
croupier-bench's replay phase (CreateGame, ApplyMove, Echo and health), to measure it against
the grpc.aio server on the real workload (docs/decisions.md, "One port").

It runs the same engines, request checks, credentials, call wrapper work (log line, metrics,
rate limit) and the same Redis keys and commit script as `croupier-server`, through the
servicer's own `moves.play`; Redis is reached with a blocking connection per thread. It has no
GetGame, ListLegalMoves or WatchGame: run croupier-bench with --replay-only.

    redis-server --port 6390 --save '' &
    taskset -c 0 .venv/bin/python deploy/loadtest/sync_server_probe.py --port 50060 \\
        --redis-url redis://127.0.0.1:6390/0 &
    taskset -c 1 .venv/bin/croupier-bench --target 127.0.0.1:50060 --server-pid $! \\
        --redis-url redis://127.0.0.1:6390/0 --replay-only

With --bridged it keeps every part of `croupier-server` instead (its servicer, store,
remembered states and call wrapper, every unary RPC) and changes only who takes the call from
gRPC: a pool thread submits the handler's coroutine to an event loop
(`asyncio.run_coroutine_threadsafe`) and waits for its result. It measures what the cheaper
call path of the synchronous server is worth once each call also crosses between threads.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent import futures
from typing import Any, NoReturn

import grpc
import hiredis
import uvloop
from google.protobuf import message_factory
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from redis.connection import parse_url

from croupier.engines.core import rng
from croupier.engines.registry import GAMES
from croupier.service.application import auth, callers, errors, moves
from croupier.service.application.callers import CallLog
from croupier.service.application.config import Settings
from croupier.service.application.games import LoadedGame, game_name
from croupier.service.observability import logs
from croupier.service.observability.metrics import MeasuredStore
from croupier.service.store import keys
from croupier.service.store.protocol import Commit
from croupier.service.store.redis_store import (
    COMMIT_SCRIPT,
    CREATE_SCRIPT,
    RedisStore,
    commit_arguments,
    commit_result,
)
from croupier.service.transport.benchmark import BenchmarkService
from croupier.service.transport.calls import Undecodable, _to_service_error, bearer, lenient
from croupier.service.transport.servicer import GameService, _check_request_id, _game_id
from croupier.v1 import benchmark_service_pb2 as bpb
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import IdempotencyRecord, StoredGame


class BlockingRedis:
    """One blocking connection per thread; replies parsed by hiredis."""

    def __init__(self, url: str, timeout: float) -> None:
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        self._address = (options.get("host", "127.0.0.1"), int(options.get("port", 6379)))
        self._timeout = timeout
        self._local = threading.local()

    def execute(self, *commands: Sequence[Any]) -> list[Any]:
        connection: tuple[socket.socket, hiredis.Reader] | None = getattr(
            self._local, "connection", None
        )
        if connection is None:
            sock = socket.create_connection(self._address, timeout=self._timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            connection = self._local.connection = (sock, hiredis.Reader())
        sock, reader = connection
        sock.sendall(b"".join(hiredis.pack_command(tuple(c)) for c in commands))
        replies: list[Any] = []
        while len(replies) < len(commands):
            reply = reader.gets()
            if reply is False:
                reader.feed(sock.recv(65536))
            elif isinstance(reply, hiredis.ReplyError):
                raise RuntimeError(str(reply))
            else:
                replies.append(reply)
        return replies


class ProbeStore:
    def __init__(self, url: str, timeout: float) -> None:
        self._redis = BlockingRedis(url, timeout)
        self._commit = hashlib.sha1(COMMIT_SCRIPT.encode()).hexdigest()
        self._create = hashlib.sha1(CREATE_SCRIPT.encode()).hexdigest()
        self._redis.execute(("SCRIPT", "LOAD", COMMIT_SCRIPT), ("SCRIPT", "LOAD", CREATE_SCRIPT))

    def load(self, game_id: str, request_id: str | None) -> tuple[int, bytes, bytes | None] | None:
        commands: list[tuple[Any, ...]] = [("HMGET", keys.game(game_id), "v", "s")]
        if request_id:
            commands.append(("GET", keys.request(game_id, request_id)))
        replies = self._redis.execute(*commands)
        version, data = replies[0]
        if version is None:
            return None
        return int(version), data, replies[1] if request_id else None

    def create(self, game_id: str, data: bytes, ttl: int) -> None:
        game_keys = (keys.game(game_id), keys.log(game_id))
        self._redis.execute(("EVALSHA", self._create, 2, *game_keys, data, ttl))

    def commit(self, commit: Commit) -> bool:
        # With the move's due-index and feed entries, as the server's store on one Redis.
        script_keys, args = commit_arguments(commit, secrets.token_hex(8), entries=True)
        command = ("EVALSHA", self._commit, len(script_keys), *script_keys, *args)
        return commit_result(self._redis.execute(command)[0]).written


Handler = Callable[[Any, Any, grpc.ServicerContext, CallLog], Any]


def unary(handler: Handler) -> Callable[[Any, Any, grpc.ServicerContext], Any]:
    """croupier.service.transport.calls.unary for a synchronous handler."""

    def wrapper(self: SyncProbe, request: Any, context: grpc.ServicerContext) -> Any:
        call = CallLog(handler.__name__)
        started = time.perf_counter()
        try:
            call.token = bearer(context.invocation_metadata())
            self.games.admission.admit(call, context)
            if isinstance(request, Undecodable):
                raise errors.malformed_request(request.type_name)
            response = handler(self, request, context, call)
            call.outcome = "OK"
            return response
        except Exception as exc:
            error = _to_service_error(exc)
            call.fail(error)
            context.abort_with_status(error.to_status())
        finally:
            call.emit(time.perf_counter() - started)

    return wrapper


class SyncProbe:
    def __init__(self, store: ProbeStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.games = GameService(store, settings)  # type: ignore[arg-type]  # its sync parts

    @unary
    def CreateGame(
        self, request: pb.CreateGameRequest, context: grpc.ServicerContext, call: CallLog
    ) -> pb.CreateGameResponse:
        game_type = request.WhichOneof("options")
        if game_type is None:
            raise errors.invalid_argument(errors.Reason.GAME_TYPE_MISSING, "options", "no game")
        engine = GAMES[game_type]
        seed = request.seed if request.HasField("seed") else rng.new_seed()
        state, _ = engine.new_game(getattr(request, game_type), request.seats, seed)
        credentials = [auth.new_credential() for _ in range(request.seats)]
        stored = StoredGame(
            game_type=game_type,
            display_names=list(request.display_names) or [""] * request.seats,
            credential_hashes=[auth.credential_hash(c) for c in credentials],
        )
        call.game = game_id = secrets.token_hex(12)
        game = LoadedGame(game_id, 1, stored, engine, state)
        self.store.create(game_id, game.encode(), self.settings.game_ttl_seconds)
        return pb.CreateGameResponse(
            name=game_name(game_id),
            etag=game.etag,
            seat_credentials=credentials,
            view=game.view(None),
        )

    @unary
    def ApplyMove(
        self, request: pb.ApplyMoveRequest, context: grpc.ServicerContext, call: CallLog
    ) -> pb.ApplyMoveResponse:
        call.game = game_id = _game_id(request.name)
        _check_request_id(request.request_id)
        request_id = (
            auth.scoped_request_id(call.token, request.request_id)
            if request.request_id and call.token is not None
            else None
        )
        for _ in range(self.settings.max_commit_attempts):
            snapshot = self.store.load(game_id, request_id)
            if snapshot is None:
                raise errors.game_not_found(game_name(game_id))
            version, data, kept = snapshot
            game = LoadedGame.decode(game_id, version, data)
            call.game_type = game.engine.game_type
            seat = callers.seat(game, call, required=True)
            assert seat is not None
            digest = moves.digest_of(
                seat.to_bytes(2, "big"), request.move.SerializeToString(deterministic=True)
            )
            if kept is not None:
                record = IdempotencyRecord.FromString(kept)
                if record.request_digest != digest:
                    raise errors.request_id_reused()
                return pb.ApplyMoveResponse.FromString(record.response)
            response, commit = moves.play(
                self.settings, game, seat, request, request_id, digest, 0, call
            )
            if self.store.commit(commit):
                return response
        raise errors.contention()

    @unary
    def Echo(
        self, request: bpb.EchoRequest, context: grpc.ServicerContext, call: CallLog
    ) -> bpb.EchoResponse:
        return bpb.EchoResponse(payload=bytes(request.response_bytes))


class Aborted(Exception):
    def __init__(self, status: Any) -> None:
        self.status = status


class BridgeContext:
    """What the servicer uses of grpc.aio's context, read from the synchronous one in the pool
    thread before the coroutine is handed over."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._context = context
        self._metadata = context.invocation_metadata()
        self._peer: str = context.peer()
        remaining = context.time_remaining()
        self._deadline = None if remaining is None else time.monotonic() + remaining

    def invocation_metadata(self) -> Any:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(self._deadline - time.monotonic(), 0.0)

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        self._context.set_trailing_metadata(tuple(metadata))

    async def send_initial_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        self._context.send_initial_metadata(tuple(metadata))

    async def abort_with_status(self, status: Any) -> NoReturn:
        raise Aborted(status)


def bridged(
    method: Callable[[Any, Any], Any], loop: asyncio.AbstractEventLoop
) -> Callable[[Any, grpc.ServicerContext], Any]:
    def handle(request: Any, context: grpc.ServicerContext) -> Any:
        bridge = BridgeContext(context)
        try:
            return asyncio.run_coroutine_threadsafe(method(request, bridge), loop).result()
        except Aborted as aborted:
            context.abort_with_status(aborted.status)

    return handle


def _handlers(probe: SyncProbe, messages: Any, service: str) -> grpc.GenericRpcHandler:
    descriptor = messages.DESCRIPTOR.services_by_name[service]
    handlers = {}
    for method in descriptor.methods:
        if hasattr(probe, method.name):
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                getattr(probe, method.name),
                request_deserializer=lenient(getattr(messages, method.input_type.name)),
                response_serializer=getattr(messages, method.output_type.name).SerializeToString,
            )
    return grpc.method_handlers_generic_handler(descriptor.full_name, handlers)


def _bridged_handlers(
    servicer: object, messages: Any, service: str, loop: asyncio.AbstractEventLoop
) -> grpc.GenericRpcHandler:
    descriptor = messages.DESCRIPTOR.services_by_name[service]
    handlers = {}
    for method in descriptor.methods:
        if method.server_streaming:
            continue
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(
            bridged(getattr(servicer, method.name), loop),
            request_deserializer=lenient(message_factory.GetMessageClass(method.input_type)),
            response_serializer=message_factory.GetMessageClass(
                method.output_type
            ).SerializeToString,
        )
    return grpc.method_handlers_generic_handler(descriptor.full_name, handlers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--threads", type=int, default=8, help="handler threads")
    parser.add_argument("--log-level", default="info")
    parser.add_argument(
        "--bridged", action="store_true", help="hand each call to croupier-server's servicer"
    )
    args = parser.parse_args()
    logs.configure("json", args.log_level)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.threads))
    if args.bridged:
        settings = Settings(anonymous_rate_limit=0, benchmark_service=True)
        loop = uvloop.new_event_loop()
        asyncio.set_event_loop(loop)
        store = MeasuredStore(RedisStore(args.redis_url, timeout=settings.store_timeout_seconds))
        games = GameService(store, settings)
        server.add_generic_rpc_handlers(
            (
                _bridged_handlers(games, pb, "GameService", loop),
                _bridged_handlers(BenchmarkService(games), bpb, "BenchmarkService", loop),
            )
        )
    else:
        settings = Settings()
        probe = SyncProbe(ProbeStore(args.redis_url, settings.store_timeout_seconds), settings)
        server.add_generic_rpc_handlers(
            (_handlers(probe, pb, "GameService"), _handlers(probe, bpb, "BenchmarkService"))
        )
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    for name in ("", "croupier.v1.GameService"):
        checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    if args.bridged:
        loop.run_forever()
    else:
        server.wait_for_termination()


if __name__ == "__main__":
    main()
