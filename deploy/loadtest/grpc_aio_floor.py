"""A probe, not a server to deploy: what grpc.aio alone costs on this machine, with no work
in the handlers at all (raw bytes, no protobuf, no log line, no Redis), to tell how much of a
Croupier call is the gRPC call path itself (issue 22; docs/performance.md, "The floor of
grpc.aio").

A server process on one core serves `Echo` (answers the request's bytes) and `Watch` (a
stream that sends a 300-byte message each time `Tick` is called); a client process on
another core measures the server's CPU per `Echo` at 32 calls in flight, and per `Tick` with
1 and with N streams open (each tick sends one message on every stream), so that the cost of
one more streamed message is (CPU per tick with N streams - with 1) / (N - 1), and the server's
memory per open stream.

With `--sync` the same three methods are served by the synchronous grpcio server instead, a
thread per call from a pool big enough for every stream (a stream waits on a condition that
`Tick` notifies): what the synchronous server style would cost WatchGame (docs/performance.md,
"Where the targets stand").

    .venv/bin/python deploy/loadtest/grpc_aio_floor.py --server-cpu 0 --client-cpu 1 [--sync]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent import futures
from multiprocessing.synchronize import Event
from typing import Any

import grpc
import uvloop

from croupier.service.embedded_redis import free_port

MESSAGE = b"x" * 300
REQUEST = b"y" * 80


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _handler(echo: Any, tick: Any, watch: Any) -> grpc.GenericRpcHandler:
    """The probe's service, from either server's handlers."""
    return grpc.method_handlers_generic_handler(
        "Floor",
        {
            "Echo": grpc.unary_unary_rpc_method_handler(echo),
            "Tick": grpc.unary_unary_rpc_method_handler(tick),
            "Watch": grpc.unary_stream_rpc_method_handler(watch),
        },
    )


def _serve_sync(port: int, cpu: int | None, ready: Event, threads: int) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    ticked = threading.Condition()
    ticks = [0]

    def echo(request: bytes, context: grpc.ServicerContext) -> bytes:
        return request

    def watch(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        sent = ticks[0]
        while context.is_active():
            with ticked:
                ticked.wait_for(lambda: ticks[0] > sent, timeout=1.0)  # noqa: B023 (read at once)
            if ticks[0] > sent:
                sent = ticks[0]
                yield MESSAGE

    def tick(request: bytes, context: grpc.ServicerContext) -> bytes:
        with ticked:
            ticks[0] += 1
            ticked.notify_all()
        return b""

    handler = _handler(echo, tick, watch)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    ready.set()
    server.wait_for_termination()


def _serve(port: int, cpu: int | None, ready: Event) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})

    async def main() -> None:
        ticked = asyncio.Condition()
        ticks = [0]

        async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            return request

        async def watch(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
            sent = ticks[0]
            while True:
                # One message per tick (ticks that come before the stream wakes share one).
                async with ticked:
                    await ticked.wait_for(lambda: ticks[0] > sent)  # noqa: B023 (read at once)
                sent = ticks[0]
                yield MESSAGE

        async def tick(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            async with ticked:
                ticks[0] += 1
                ticked.notify_all()
            return b""

        handler = _handler(echo, tick, watch)
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler,))
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        ready.set()
        await server.wait_for_termination()

    uvloop.run(main())


async def _measure(port: int, pid: int, args: argparse.Namespace) -> None:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    echo = channel.unary_unary("/Floor/Echo")
    tick = channel.unary_unary("/Floor/Tick")
    watch = channel.unary_stream("/Floor/Watch")

    async def caller(until: float) -> int:
        calls = 0
        while time.perf_counter() < until:
            await echo(REQUEST)
            calls += 1
        return calls

    for _ in range(args.repeats):
        await asyncio.gather(*(caller(time.perf_counter() + args.warmup) for _ in range(32)))
        before = _cpu_seconds(pid)
        until = time.perf_counter() + args.seconds
        calls = sum(await asyncio.gather(*(caller(until) for _ in range(32))))
        used = _cpu_seconds(pid) - before
        print(
            f"Echo, 32 in flight: {calls / args.seconds:,.0f} calls/s,"
            f" server {used / calls * 1e6:.1f} us per call",
            flush=True,
        )
    per_tick: dict[int, float] = {}
    for streams in [1, *args.streams] * args.repeats:
        received = [0]

        async def reader(received: list[int] = received) -> None:
            async for _ in watch(b""):
                received[0] += 1

        rss = _rss_kib(pid)
        readers = [asyncio.create_task(reader()) for _ in range(streams)]
        warm = time.perf_counter() + args.warmup
        while time.perf_counter() < warm:
            await tick(b"")
            await asyncio.sleep(1 / args.tick_rate)
        before, held, sent = _cpu_seconds(pid), received[0], 0
        until = time.perf_counter() + args.seconds
        while time.perf_counter() < until:
            await tick(b"")
            sent += 1
            await asyncio.sleep(1 / args.tick_rate)
        await asyncio.sleep(0.2)  # the last messages arrive
        used = _cpu_seconds(pid) - before
        per_tick[streams] = used / sent * 1e6
        print(
            f"{streams} stream(s): {sent} ticks, {received[0] - held} messages,"
            f" server {per_tick[streams]:.0f} us per tick",
            flush=True,
        )
        if streams > 1:
            extra = (per_tick[streams] - per_tick[1]) / (streams - 1)
            grown = (_rss_kib(pid) - rss) / streams
            print(f"  one more streamed message: {extra:.0f} us", flush=True)
            print(f"  server memory per open stream: {grown:.1f} KiB", flush=True)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    await channel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--server-cpu", type=int, help="pin the server to this core")
    parser.add_argument("--client-cpu", type=int, help="pin the client to this core")
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before")
    parser.add_argument("--repeats", type=int, default=2, help="times each figure is measured")
    parser.add_argument("--tick-rate", type=float, default=400.0, help="ticks per second")
    parser.add_argument(
        "--streams", type=int, nargs="+", default=[4, 64], help="stream counts besides 1"
    )
    parser.add_argument("--sync", action="store_true", help="the synchronous grpcio server")
    args = parser.parse_args()
    port = free_port()
    ready = multiprocessing.Event()
    server = (
        multiprocessing.Process(
            target=_serve_sync, args=(port, args.server_cpu, ready, max(args.streams) + 40)
        )
        if args.sync
        else multiprocessing.Process(target=_serve, args=(port, args.server_cpu, ready))
    )
    server.start()
    try:
        if not ready.wait(30):
            raise SystemExit("the server did not start")
        assert server.pid is not None
        if args.client_cpu is not None:
            os.sched_setaffinity(0, {args.client_cpu})
        uvloop.run(_measure(port, server.pid, args))
    finally:
        server.kill()
        server.join()


if __name__ == "__main__":
    main()
