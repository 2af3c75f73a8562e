"""BenchmarkService: the trivial call croupier-bench uses as its baseline, handled by the same
call wrapper (log line, metrics, rate limit, error mapping) as every GameService call.

Served only with --benchmark-service (service/croupier/service/transport/server.py): it needs no
credential and answers a few bytes with up to 64 KiB, which a production port has no reason to
offer."""

from __future__ import annotations

import grpc

from croupier.service.application import errors
from croupier.service.application.callers import CallLog
from croupier.service.transport.calls import unary
from croupier.service.transport.servicer import GameService
from croupier.v1 import benchmark_service_pb2 as pb
from croupier.v1 import benchmark_service_pb2_grpc

MAX_RESPONSE_BYTES = 65536


class BenchmarkService(benchmark_service_pb2_grpc.BenchmarkServiceServicer):
    def __init__(self, games: GameService) -> None:
        # One bound and one set of rate limits for every call of the process.
        self.admission = games.admission

    @unary
    async def Echo(
        self, request: pb.EchoRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.EchoResponse:
        if not 0 <= request.response_bytes <= MAX_RESPONSE_BYTES:
            raise errors.invalid_argument(
                errors.Reason.INVALID_RESPONSE_SIZE,
                "response_bytes",
                f"response_bytes is 0..{MAX_RESPONSE_BYTES}",
            )
        return pb.EchoResponse(payload=bytes(request.response_bytes))
