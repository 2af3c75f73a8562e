"""A probe, not a server to deploy: the unary calls taken by grpcio's synchronous server and
handed to the real asynchronous servicer on an event loop (issue 22; docs/performance.md).

`deploy/loadtest/sync_server_probe.py` measured the synchronous server with a blocking store of
its own. This one keeps every part of `croupier-server` as it is (the servicer, its store, the
remembered states, the call wrapper) and changes only who takes the call from gRPC: a pool
thread of `grpc.server` submits the handler's coroutine to the event loop
(`asyncio.run_coroutine_threadsafe`) and waits for its result. It measures what the cheaper
call path of the synchronous server is worth once each call also crosses between threads.

    redis-server --port 6390 --save '' &
    taskset -c 0 .venv/bin/python deploy/loadtest/sync_bridge_probe.py --port 50060 \\
        --redis-url redis://127.0.0.1:6390/0 &
    taskset -c 1 .venv/bin/croupier-bench --target 127.0.0.1:50060 --server-pid $! \\
        --redis-url redis://127.0.0.1:6390/0 --replay-only
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable, Iterable
from concurrent import futures
from typing import Any, NoReturn

import grpc
import uvloop
from google.protobuf import message_factory
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from croupier.service import logs
from croupier.service.benchmark import BenchmarkService
from croupier.service.calls import lenient
from croupier.service.config import Settings
from croupier.service.metrics import MeasuredStore
from croupier.service.redis_store import RedisStore
from croupier.service.servicer import GameService
from croupier.v1 import benchmark_service_pb2 as bpb
from croupier.v1 import game_service_pb2 as pb


class Aborted(Exception):
    def __init__(self, status: Any) -> None:
        self.status = status


class BridgeContext:
    """What the servicer uses of grpc.aio's context, read from the synchronous one in the pool
    thread before the coroutine is handed over."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._context = context
        self._metadata = context.invocation_metadata()
        self._peer = context.peer()
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


def _handlers(
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
    args = parser.parse_args()
    logs.configure("json", args.log_level)
    settings = Settings(anonymous_rate_limit=0, benchmark_service=True)
    loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)
    store = MeasuredStore(RedisStore(args.redis_url, timeout=settings.store_timeout_seconds))
    games = GameService(store, settings)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.threads))
    server.add_generic_rpc_handlers(
        (
            _handlers(games, pb, "GameService", loop),
            _handlers(BenchmarkService(games), bpb, "BenchmarkService", loop),
        )
    )
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    for name in ("", "croupier.v1.GameService"):
        checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    loop.run_forever()


if __name__ == "__main__":
    main()
