"""One load-generator process: its channels, and its part of every phase in turn."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import time
from collections.abc import Callable
from typing import Any, Protocol

import grpc

from croupier.bench.baseline import Baseline
from croupier.bench.cpu import pin
from croupier.bench.load import Load, sleep_until
from croupier.bench.play import GamePlay
from croupier.bench.replay import Replay
from croupier.bench.spec import ClientSpec
from croupier.bench.stats import Sample


class Workload(Protocol):
    async def worker(self, number: int) -> None: ...


WORKLOADS: dict[str, Callable[[Load], Workload]] = {
    "baseline": Baseline,
    "replay": Replay,
    "game_play": GamePlay,
}


async def _run_phases(spec: ClientSpec) -> list[Sample]:
    options = [("grpc.use_local_subchannel_pool", 1)]  # one connection per channel
    connect = grpc.insecure_channel if spec.blocking else grpc.aio.insecure_channel
    channels: list[Any] = [connect(spec.target, options=options) for _ in range(spec.channels)]
    try:
        for channel in channels:
            if spec.blocking:
                await asyncio.to_thread(grpc.channel_ready_future(channel).result, 20)
            else:
                await asyncio.wait_for(channel.channel_ready(), 20)
        wall_to_perf = time.perf_counter() - time.time()
        samples: list[Sample] = []
        for phase in spec.phases:
            start = phase.start + wall_to_perf
            await sleep_until(start)
            replayed = [s for p, s in zip(spec.phases, samples, strict=False) if p.kind == "replay"]
            load = Load(spec, phase, channels, start, replayed)
            workload = WORKLOADS[phase.kind](load)
            meter = asyncio.create_task(load.meter())
            await asyncio.gather(*(workload.worker(n) for n in range(spec.concurrency)))
            await meter
            samples.append(load.sample)
        return samples
    finally:
        for channel in channels:
            closed = channel.close()
            if not spec.blocking:
                await closed


def run_client(spec: ClientSpec) -> list[Sample]:
    """One client process's whole run (also the entry point of --client-processes workers)."""
    if spec.cpus:
        pin(os.getpid(), spec.cpus)
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if spec.uvloop:
        with contextlib.suppress(ImportError):
            factory = importlib.import_module("uvloop").new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(_run_phases(spec))
