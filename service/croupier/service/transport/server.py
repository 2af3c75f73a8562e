"""Builds the gRPC server (GameService, health, reflection) and runs it until SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import structlog
from google.protobuf import message_factory
from google.protobuf.internal import api_implementation
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from croupier.service.application.config import Settings, cpus_allowed
from croupier.service.store.protocol import Store
from croupier.service.transport.benchmark import BenchmarkService
from croupier.service.transport.calls import lenient
from croupier.service.transport.servicer import GameService
from croupier.service.transport.web_gateway import WebGateway, start_web_gateway
from croupier.v1 import benchmark_service_pb2, game_service_pb2

log = structlog.get_logger("croupier.server")

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
# SERVING while the process runs, whatever the store does: for liveness probes, so that a Redis
# outage (which turns "" and GameService NOT_SERVING) does not restart every replica.
LIVENESS = "liveness"
MAX_SEND_BYTES = 4 * 1024 * 1024
# grpc-core queues the calls that arrive while a server has not yet asked for them (grpc.aio asks
# for one at a time per method) and, once 1,000 wait there, cancels new ones at random (every one
# beyond 3,000) before this code sees them: the client got CANCELLED, and nothing was logged or
# counted. Every call is handed over instead; the bounds of
# service/croupier/service/transport/overload.py answer the excess, cheaply, with OVERLOADED.
CORE_PENDING_CALLS = 2**31 - 1
# The methods served as grpc.aio's registered methods, the others by their service's generic
# handler. grpc.aio keeps a request for a new call pending per registered method, and one for
# every other method, and waits on all of them (asyncio.wait) for each call it takes: every
# registered method costs every call. Calls of different registered
# methods may be taken in one turn, though, which is what a table's moves need (a
# ListLegalMoves and an ApplyMove each). So the methods of every move are registered, and Echo,
# which is measured against them; the rest (CreateGame, WatchGame, health, reflection, ...) are
# called once per game, stream or probe. docs/decisions.md, "Only the methods of a move are
# registered".
REGISTERED = frozenset(
    {
        f"/{SERVICE_NAME}/ApplyMove",
        f"/{SERVICE_NAME}/ListLegalMoves",
        f"/{SERVICE_NAME}/GetGame",
        f"/{benchmark_service_pb2.DESCRIPTOR.services_by_name['BenchmarkService'].full_name}/Echo",
    }
)


class Health(HealthServicer):  # type: ignore[misc]  # grpcio-health-checking has no types
    """grpcio-health-checking's servicer, with the List RPC of grpc.health.v1 (its own answers
    UNIMPLEMENTED with Python's "Method not implemented!")."""

    async def List(
        self, request: health_pb2.HealthListRequest, context: grpc.aio.ServicerContext
    ) -> health_pb2.HealthListResponse:
        # A handful of services ("", liveness, GameService): never over the protocol's
        # suggested limit of 100, so no RESOURCE_EXHAUSTED.
        return health_pb2.HealthListResponse(
            statuses={
                service: health_pb2.HealthCheckResponse(status=status)
                for service, status in self._server_status.items()
            }
        )


@dataclass
class Running:
    """A started server and what belongs to it."""

    server: grpc.aio.Server
    port: int
    health: Health
    store: Store
    _monitor: asyncio.Task[None] | None = None
    _clocks: asyncio.Task[None] | None = None
    web: WebGateway | None = None

    async def stop(self, grace: float, delay: float = 0.0) -> None:
        """NOT_SERVING first, so balancers stop sending (for `delay` seconds new calls are still
        served while they notice); then let in-flight calls finish within `grace`."""
        await self.health.enter_graceful_shutdown()
        if delay > 0:
            await asyncio.sleep(delay)
        for task in (self._monitor, self._clocks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await asyncio.gather(
            self.server.stop(grace),
            *([self.web.stop(grace)] if self.web is not None else []),
        )


async def start(settings: Settings, store: Store, store_description: str | None = None) -> Running:
    """Start serving on settings.host:settings.port (port 0: a free port). `store_description`: what
    the `listening` line says of the store (service/croupier/service/main.py knows which one it
    chose)."""
    if api_implementation.Type() != "upb":
        log.warning("slow_protobuf", backend=api_implementation.Type(), expected="upb")
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", MAX_SEND_BYTES),
        ("grpc.so_reuseport", 1 if settings.reuse_port else 0),
        ("grpc.server.max_pending_requests", CORE_PENDING_CALLS),
        ("grpc.server.max_pending_requests_hard_limit", CORE_PENDING_CALLS),
    ]
    server = grpc.aio.server(options=options)
    servicer = GameService(store, settings)
    health = add_services(server, servicer, settings)
    address = f"{settings.host}:{settings.port}"
    tls = (
        _tls(settings.tls_cert, settings.tls_key)
        if settings.tls_cert and settings.tls_key
        else None
    )
    port = server.add_secure_port(address, tls) if tls else server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot bind {settings.host}:{settings.port}")
    await server.start()
    running = Running(server, port, health, store)
    if settings.web_port is not None:
        running.web = await start_web_gateway(
            servicer,
            settings.host,
            settings.web_port,
            cors_origins=[o.strip() for o in settings.web_origins.split(",") if o.strip()],
            grace=settings.grace_seconds,
            reuse_port=settings.reuse_port,
            tls=(settings.tls_cert, settings.tls_key)
            if settings.tls_cert and settings.tls_key
            else None,
            max_request_bytes=settings.max_message_bytes,
        )
    await health.set(LIVENESS, health_pb2.HealthCheckResponse.SERVING)
    await _set_health(health, await store.ping())
    running._monitor = asyncio.create_task(
        _monitor_store(health, store, settings.health_interval_seconds)
    )
    running._clocks = asyncio.create_task(servicer.run_clocks())
    reachable = _reachable_host(settings.host)
    log.info(
        "listening",
        # First, for a person reading the console format (`make run`): where to connect, and
        # whether the games outlive the server.
        grpc=f"{reachable}:{port}",
        table=f"{'https' if tls else 'http'}://{reachable}:{running.web.port}/"
        if running.web is not None
        else None,
        store=store_description,
        host=settings.host,
        port=port,
        # Every port this process answers on (null: off). The metrics are served by
        # service/croupier/service/main.py before the event loop starts, so they are up by now.
        web_port=running.web.port if running.web is not None else None,
        # What `--cpu-policy auto` went by: the CPUs this process may run on.
        cpus=cpus_allowed(),
        metrics_port=settings.metrics_port or None,
        tls=bool(settings.tls_cert),
        operator_key=bool(settings.operator_key),
        protobuf=api_implementation.Type(),
        event_loop=type(asyncio.get_running_loop()).__module__,
        # The policy in force (`--cpu-policy auto` resolved, or refused:
        # service/croupier/service/main.py).
        cpu_policy=_cpu_policy_in_force(),
    )
    return running


def _reachable_host(host: str) -> str:
    """How a client on this machine names `host` in an address: a wildcard listens on every
    interface, the loopback's included."""
    bare = host.strip("[]")
    if bare in ("", "::", "0.0.0.0"):
        return "localhost"
    return f"[{bare}]" if ":" in bare else bare


def _cpu_policy_in_force() -> str:
    policy = getattr(os, "sched_getscheduler", None)  # not on every system
    return "batch" if policy is not None and policy(0) == os.SCHED_BATCH else "normal"


def add_services(server: grpc.aio.Server, servicer: GameService, settings: Settings) -> Health:
    """Serve GameService from `servicer` on `server`, Echo when asked, health and reflection.
    Returns the health servicer."""
    add_game_service(servicer, server)
    services = [game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name]
    # Echo only when asked (croupier-bench's baseline): never on a production port by default.
    if settings.benchmark_service:
        _add_service(BenchmarkService(servicer), server, benchmark_service_pb2, "BenchmarkService")
        services.append(
            benchmark_service_pb2.DESCRIPTOR.services_by_name["BenchmarkService"].full_name
        )
    health = Health()
    # grpcio-health-checking's and grpcio-reflection's own functions register every method of
    # theirs: they get the generic handlers only (REGISTERED).
    health_pb2_grpc.add_HealthServicer_to_server(health, _GenericOnly(server))
    reflection.enable_server_reflection(
        [
            *services,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        _GenericOnly(server),
    )
    return health


def add_game_service(servicer: GameService, server: grpc.aio.Server) -> None:
    """Serve GameService from `servicer` on `server`. Not the generated
    add_GameServiceServicer_to_server: its WatchGame serializer takes messages only, where
    the servicer streams updates already serialized too (`_streamed`)."""
    _add_service(servicer, server, game_service_pb2, "GameService")


def _add_service(
    servicer: object, server: grpc.aio.Server, messages: ModuleType, name: str
) -> None:
    """What the generated add_<Service>Servicer_to_server does, with lenient request
    deserializers: a request that does not decode (not protobuf, invalid UTF-8 in a string
    field) gets INVALID_ARGUMENT / MALFORMED_REQUEST instead of gRPC's UNKNOWN."""
    service = messages.DESCRIPTOR.services_by_name[name]
    handlers = {}
    for method in service.methods:
        if method.client_streaming:
            make = grpc.stream_stream_rpc_method_handler
        elif method.server_streaming:
            make = grpc.unary_stream_rpc_method_handler
        else:
            make = grpc.unary_unary_rpc_method_handler
        serialize = message_factory.GetMessageClass(method.output_type).SerializeToString
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=lenient(message_factory.GetMessageClass(method.input_type)),
            response_serializer=_streamed(serialize) if method.server_streaming else serialize,
        )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),)
    )
    registered = {
        method: handler
        for method, handler in handlers.items()
        if f"/{service.full_name}/{method}" in REGISTERED
    }
    if registered:
        server.add_registered_method_handlers(service.full_name, registered)


class _GenericOnly:
    """`server` for a library's add_<Service>Servicer_to_server: its generic handlers are added,
    its registered methods left out (REGISTERED)."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        pass


def _streamed(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """A stream's serializer: a message, or bytes already serialized (a watch update that
    every stream of one seat sends alike: games.Published.update_for)."""

    def serialized(message: Any) -> bytes:
        return message if type(message) is bytes else serialize(message)

    return serialized


def _tls(cert: str, key: str) -> grpc.ServerCredentials:
    """Read once at start-up: the certificate chain and its private key."""
    return grpc.ssl_server_credentials([(Path(key).read_bytes(), Path(cert).read_bytes())])


async def _set_health(health: HealthServicer, serving: bool) -> None:
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if serving
        else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    await health.set("", status)
    await health.set(SERVICE_NAME, status)


async def _monitor_store(health: HealthServicer, store: Store, interval: float) -> None:
    """Health follows the store: NOT_SERVING while it cannot be reached."""
    serving = True
    while True:
        await asyncio.sleep(interval)
        ok = await store.ping()
        if ok != serving:
            serving = ok
            log.warning("store_health", serving=ok)
            await _set_health(health, ok)


async def serve(settings: Settings, store: Store, store_description: str | None = None) -> None:
    """Run until SIGTERM or SIGINT, then drain."""
    running = await start(settings, store, store_description)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("draining", grace_seconds=settings.grace_seconds)
    await running.stop(settings.grace_seconds, settings.shutdown_delay_seconds)
    log.info("stopped")
