"""grpc.aio is given as registered methods only the calls of every move and Echo; every other method
(CreateGame, WatchGame, health, reflection, ...) is served by its generic handler, because each
registered method costs every call (service/croupier/service/transport/server.py: REGISTERED;
docs/decisions.md, "Only the methods of a move are registered")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from croupier.service.application import config
from croupier.service.store.memory_store import MemoryStore
from croupier.service.transport import server
from croupier.service.transport.servicer import GameService
from croupier.v1 import benchmark_service_pb2, game_service_pb2, game_service_pb2_grpc


@dataclass
class CallDetails:
    """grpc.HandlerCallDetails as a generic handler reads it."""

    method: str
    invocation_metadata: tuple[tuple[str, str], ...] = ()


class RecordingServer:
    """What add_services gives a grpc.aio server, recorded."""

    def __init__(self) -> None:
        self.generic: list[grpc.GenericRpcHandler] = []
        self.registered: set[str] = set()

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self.generic.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.registered.update(f"/{service}/{method}" for method in handlers)

    def serves(self, method: str) -> bool:
        details = CallDetails(method)
        return any(handler.service(details) is not None for handler in self.generic)


def every_method(settings: config.Settings) -> list[str]:
    files = [game_service_pb2.DESCRIPTOR, health_pb2.DESCRIPTOR, reflection_pb2.DESCRIPTOR]
    if settings.benchmark_service:
        files.append(benchmark_service_pb2.DESCRIPTOR)
    return [
        f"/{service.full_name}/{method.name}"
        for file in files
        for service in file.services_by_name.values()
        for method in service.methods
    ]


@pytest.mark.parametrize("flags", [[], ["--benchmark-service"]])
def test_only_the_methods_of_every_move_and_echo_are_registered(flags: list[str]) -> None:
    settings = config.parse(flags, {})
    recording = RecordingServer()
    server.add_services(recording, GameService(MemoryStore(), settings), settings)
    expected = {
        "/croupier.v1.GameService/ApplyMove",
        "/croupier.v1.GameService/ListLegalMoves",
        "/croupier.v1.GameService/GetGame",
    }
    if settings.benchmark_service:
        expected.add("/croupier.v1.BenchmarkService/Echo")
    assert recording.registered == expected
    # Every method is served by a generic handler, registered or not.
    methods = every_method(settings)
    assert len(methods) >= 14
    for method in methods:
        assert recording.serves(method), method


def test_every_registered_name_is_a_method_served() -> None:
    """A renamed method cannot drop out of REGISTERED unnoticed."""
    served = set(every_method(config.parse(["--benchmark-service"], {})))
    assert served >= server.REGISTERED


def test_registered_and_generic_methods_answer_on_a_real_server() -> None:
    asyncio.run(serve_and_call())


async def serve_and_call() -> None:
    settings = config.parse(["--host", "127.0.0.1", "--port", "0"], {})
    aio = grpc.aio.server()
    server.add_services(aio, GameService(MemoryStore(), settings), settings)
    port = aio.add_insecure_port("127.0.0.1:0")
    await aio.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            games = game_service_pb2_grpc.GameServiceStub(channel)
            # Generic: a game made; registered: the game read back.
            request = game_service_pb2.CreateGameRequest(seats=2, seed=1)
            request.one_card.SetInParent()
            created = await games.CreateGame(request)
            got = await games.GetGame(game_service_pb2.GetGameRequest(name=created.name))
            assert got.view.name == created.name
            # Generic: health and reflection.
            health = health_pb2_grpc.HealthStub(channel)
            answer = await health.Check(health_pb2.HealthCheckRequest(service=""))
            assert answer.status in (
                health_pb2.HealthCheckResponse.SERVING,
                health_pb2.HealthCheckResponse.SERVICE_UNKNOWN,
            )
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            listed = stub.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            )
            names = {
                service.name
                async for response in listed
                for service in response.list_services_response.service
            }
            assert "croupier.v1.GameService" in names
    finally:
        await aio.stop(None)
