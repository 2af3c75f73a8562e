"""The baseline: `croupier.v1.BenchmarkService/Echo`, a trivial call served by the same server
through the same call wrapper as GameService (log line, metrics, rate limit), carrying the mean
serialized sizes of the ApplyMove calls measured in the replay phase(s) before it, and a bearer
credential like theirs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from croupier.bench.load import Load
from croupier.bench.spec import Payload
from croupier.bench.stats import Sample
from croupier.v1.benchmark_service_pb2 import EchoRequest, EchoResponse

BASELINE = "baseline"
BASELINE_RPC = "croupier.v1.BenchmarkService/Echo"
# Credential-shaped tokens (the service's are "cs_" and 32 characters). The server keeps a rate
# bucket per credential (200 calls/s by default), so each worker takes turns on several, as
# the game calls do on the seats of their games.
CREDENTIALS_PER_WORKER = 32


def fake_credential(worker: int, number: int) -> str:
    return f"cs_{worker:016x}{number:016x}"


def payload_of(samples: Sequence[Sample]) -> Payload:
    """Mean serialized sizes of the ApplyMove calls in `samples` (0 without any)."""
    calls = sum(len(s.latencies.get("apply_move", [])) for s in samples)
    if not calls:
        return Payload(0, 0)
    return Payload(
        round(sum(s.request_bytes["apply_move"] for s in samples) / calls),
        round(sum(s.response_bytes["apply_move"] for s in samples) / calls),
    )


def _largest(size: int, serialized: Callable[[int], int]) -> int:
    """The largest n whose serialized(n) is at most `size` (n bytes plus a few of framing)."""
    return max(n for n in range(max(0, size - 12), size + 1) if n == 0 or serialized(n) <= size)


def echo_request(payload: Payload) -> EchoRequest:
    """An EchoRequest whose serialized size is `payload.request_bytes` and whose response's is
    `payload.response_bytes` (or the nearest protobuf's length prefixes allow)."""
    response_bytes = _largest(
        payload.response_bytes, lambda n: EchoResponse(payload=bytes(n)).ByteSize()
    )
    size = _largest(
        payload.request_bytes,
        lambda n: EchoRequest(payload=bytes(n), response_bytes=response_bytes).ByteSize(),
    )
    return EchoRequest(payload=bytes(size), response_bytes=response_bytes)


class Baseline:
    """Each worker loops on Echo until the window ends."""

    def __init__(self, load: Load) -> None:
        self.load = load
        self.request = echo_request(payload_of(load.earlier))

    async def worker(self, number: int) -> None:
        load = self.load
        echo = load.benchmark[number % len(load.benchmark)].Echo
        worker = load.spec.index * 100_000 + number
        metadata = [
            (("authorization", f"Bearer {fake_credential(worker, i)}"),)
            for i in range(CREDENTIALS_PER_WORKER)
        ]
        turn = 0
        while load.running():
            await load.call(BASELINE, echo, self.request, metadata[turn % len(metadata)])
            turn += 1
