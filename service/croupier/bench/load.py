"""The calls of one phase in one client process: timing, errors, and what runs beside them
(CPU meters, Redis counters, the profiler) during the measured window."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Sequence
from typing import Any

import grpc
from google.protobuf.message import Message

from croupier.bench.cpu import context_switches, cpu_seconds, start_py_spy
from croupier.bench.spec import ClientSpec, Phase
from croupier.bench.stats import Sample
from croupier.v1.benchmark_service_pb2_grpc import BenchmarkServiceStub
from croupier.v1.game_service_pb2_grpc import GameServiceStub


def reason_of(error: grpc.RpcError) -> str:
    try:
        from croupier.errors import CroupierError

        return CroupierError.from_rpc_error(error).reason
    except Exception:
        code: Any = getattr(error, "code", lambda: None)()
        return getattr(code, "name", "ERROR")


async def sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))


class Load:
    """One phase in one client process: the stubs, the window, and what was recorded."""

    def __init__(
        self,
        spec: ClientSpec,
        phase: Phase,
        channels: Sequence[Any],
        start: float,
        earlier: Sequence[Sample] = (),
    ) -> None:
        self.spec, self.phase, self.sample = spec, phase, Sample()
        self.earlier = earlier  # this process's samples of the replay phases before this one
        self.window_start = start + phase.warmup
        self.window_end = self.window_start + phase.duration
        # Stubs of grpc.aio channels, or of blocking ones with spec.blocking (one call in flight).
        self.games = [GameServiceStub(c) for c in channels]
        self.benchmark = [BenchmarkServiceStub(c) for c in channels]

    def running(self) -> bool:
        return time.perf_counter() < self.window_end

    async def call(
        self, key: str, method: Any, request: Message, metadata: Any, game: str | None = None
    ) -> Any:
        """The response, or None after recording the error. Latencies and sizes count for
        calls that end within the window."""
        blocking = self.spec.blocking
        if blocking:
            # The call below holds the event loop: let the meter run between calls.
            await asyncio.sleep(0)
        started = time.perf_counter()
        try:
            if blocking:
                response = method(request, metadata=metadata, timeout=self.spec.timeout)
            else:
                response = await method(request, metadata=metadata, timeout=self.spec.timeout)
        except grpc.RpcError as error:
            self.fail(key, game, reason_of(error))
            return None
        ended = time.perf_counter()
        if self.window_start <= ended <= self.window_end:
            sample, sizes = self.sample, (request.ByteSize(), response.ByteSize())
            for name in (key,) if game is None else (key, f"{key}@{game}"):
                sample.latency_list(name).append(ended - started)
                sample.request_bytes[name] += sizes[0]
                sample.response_bytes[name] += sizes[1]
        return response

    def fail(self, key: str, game: str | None, reason: str) -> None:
        """Errors count during the whole phase, warm-up included."""
        self.sample.errors[key] += 1
        if game is not None:
            self.sample.errors[f"{key}@{game}"] += 1
        self.sample.reasons[f"{key}: {reason}"] += 1

    async def meter(self) -> None:
        """CPU use of this process (and of the monitored ones) during the window; with a
        Redis URL, its counters over a replay window."""
        redis_client, before = await self._redis_snapshot(None)
        await sleep_until(self.window_start)
        if redis_client is not None:
            _, before = await self._redis_snapshot(redis_client)
        wall, own = time.perf_counter(), time.process_time()
        others = {label: cpu_seconds(label, pid) for label, pid in self.spec.monitor.items()}
        server = self.spec.monitor.get("server")
        switches = context_switches(server) if server is not None else 0
        profiler = self._start_profiler()
        await sleep_until(self.window_end)
        elapsed = time.perf_counter() - wall
        self.sample.window_s = self.phase.duration
        self.sample.client_cpu = [(time.process_time() - own) / elapsed]
        for label, pid in self.spec.monitor.items():
            user, system = cpu_seconds(label, pid)
            self.sample.monitored[label] = (user + system - sum(others[label])) / elapsed
            self.sample.monitored[f"{label}_sys"] = (system - others[label][1]) / elapsed
        if server is not None:
            self.sample.monitored["server_switches"] = (
                context_switches(server) - switches
            ) / elapsed
        if redis_client is not None and before is not None:
            from croupier.bench.redis_stats import window_delta

            _, after = await self._redis_snapshot(redis_client)
            assert after is not None
            self.sample.redis = window_delta(before, after)
            await asyncio.to_thread(redis_client.close)
        if profiler is not None:
            await asyncio.to_thread(profiler.wait, self.phase.duration + 30)

    async def _redis_snapshot(self, client: Any) -> tuple[Any, dict[str, Any] | None]:
        if self.spec.redis_url is None or self.phase.kind != "replay":
            return None, None
        from croupier.bench.redis_stats import connect, info_snapshot

        if client is None:
            return await asyncio.to_thread(connect, self.spec.redis_url), None
        return client, await asyncio.to_thread(info_snapshot, client)

    def _start_profiler(self) -> subprocess.Popen[bytes] | None:
        spec = self.spec
        if spec.profile is None or spec.profile_pid is None or self.phase.kind != "replay":
            return None
        if self.phase is not next(p for p in spec.phases if p.kind == "replay"):
            return None
        return start_py_spy(spec.profile_pid, self.phase.duration, spec.profile)
