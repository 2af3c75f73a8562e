"""A probe, not a server to deploy: what grpc.aio alone costs on this machine, with no work
in the handlers at all (raw bytes, no protobuf, no log line, no Redis), to tell how much of a
Croupier call is the gRPC call path itself (docs/performance.md, "Probes").

A server process on one core serves `Echo` (answers the request's bytes) and `Watch` (a
stream that sends a 300-byte message each time `Tick` is called); a client process on
another core measures the server's CPU per `Echo` at 32 calls in flight, and per `Tick` with
1 and with N streams open (each tick sends one message on every stream), so that the cost of
one more streamed message is (CPU per tick with N streams - with 1) / (N - 1), and the server's
memory per open stream.

With `--sync` the same three methods are served by the synchronous grpcio server instead, a
thread per call from a pool big enough for every stream (a stream waits on a condition that
`Tick` notifies): what the synchronous server style would cost WatchGame (docs/decisions.md,
"One port").

With `--instructions` the server runs under valgrind's callgrind instead, and the figures are
its instructions (every thread): per `Echo` over `--calls` calls at 32 in flight, and per tick
over `--ticks` ticks with 1 and with N streams open, each tick's message received by every
stream before the next tick, so that one more streamed message is the difference over the
difference in messages. Counts of the same code agree within a fraction of a per cent on a
quiet machine, where CPU time scatters by 10% and more; they compare with
`echo_instructions.py`'s counts of Croupier's own server.

    .venv/bin/python deploy/loadtest/grpc_aio_floor.py --server-cpu 0 --client-cpu 1 [--sync]
    .venv/bin/python deploy/loadtest/grpc_aio_floor.py --instructions [--sync]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any, TypeAlias

import grpc
import uvloop

from croupier.service.store.embedded_redis import free_port

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


def _serve_sync(port: int, cpu: int | None, ready: Callable[[], object], threads: int) -> None:
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
    ready()
    server.wait_for_termination()


def _serve(port: int, cpu: int | None, ready: Callable[[], object]) -> None:
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
        ready()
        await server.wait_for_termination()

    uvloop.run(main())


Unary: TypeAlias = "grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]"
Streamed: TypeAlias = "grpc.aio.UnaryStreamMultiCallable[bytes, bytes]"


def _methods(port: int) -> tuple[grpc.aio.Channel, Unary, Unary, Streamed]:
    """A channel to the probe's server, and its Echo, Tick and Watch."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    echo = channel.unary_unary("/Floor/Echo")
    tick = channel.unary_unary("/Floor/Tick")
    return channel, echo, tick, channel.unary_stream("/Floor/Watch")


def _print_ticks(
    per_tick: dict[int, float], streams: int, ticks: int, messages: int, unit: str
) -> None:
    """`streams`' figure per tick and, beyond one stream, one more streamed message's: (per
    tick with `streams` - with 1) / (streams - 1), in `unit`."""
    figure = per_tick[streams]
    line = f"{streams} stream(s): {ticks} ticks, {messages} messages, server {figure:,.0f} {unit}"
    print(f"{line} per tick", flush=True)
    if streams > 1:
        extra = (figure - per_tick[1]) / (streams - 1)
        print(f"  one more streamed message: {extra:,.0f} {unit}", flush=True)


async def _measure(port: int, pid: int, args: argparse.Namespace) -> None:
    channel, echo, tick, watch = _methods(port)

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
        _print_ticks(per_tick, streams, sent, received[0] - held, "us")
        if streams > 1:
            grown = (_rss_kib(pid) - rss) / streams
            print(f"  server memory per open stream: {grown:.1f} KiB", flush=True)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    await channel.close()


class _Counted:
    """The server under callgrind: its counters zeroed and dumped around what is measured."""

    def __init__(self, process: subprocess.Popen[str], folder: Path) -> None:
        self._process, self._folder, self._dumps = process, folder, 0

    def _control(self, flag: str) -> None:
        command = ["callgrind_control", flag, str(self._process.pid)]
        subprocess.run(command, check=True, capture_output=True)

    def zero(self) -> None:
        self._control("-z")

    def dumped(self) -> int:
        """Dump the counters: the instructions since the last zero, every thread."""
        self._control("-d")
        self._dumps += 1
        (dump,) = self._folder.glob(f"callgrind.out.*.{self._dumps}")
        for line in dump.read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
        raise ValueError(f"no summary in {dump}")


async def _count(port: int, counted: _Counted, args: argparse.Namespace) -> None:
    """The instruction figures: each measured part between a zero and a dump."""
    channel, echo, tick, watch = _methods(port)

    async def calls(count: int) -> None:
        async def caller(share: int) -> None:
            for _ in range(share):
                await echo(REQUEST, timeout=600)

        share, left = divmod(count, 32)
        await asyncio.gather(*(caller(share + (i < left)) for i in range(32)))

    await calls(max(32, args.calls // 4))
    await asyncio.sleep(0.5)
    counted.zero()
    await calls(args.calls)
    await asyncio.sleep(0.5)
    per_call = counted.dumped() / args.calls
    print(f"Echo, 32 in flight: {args.calls} calls, {per_call:,.0f} instructions per call")
    per_tick: dict[int, float] = {}
    for streams in [1, *args.streams]:
        per_tick[streams] = await _ticked(tick, watch, streams, args.ticks, counted)
        _print_ticks(per_tick, streams, args.ticks, args.ticks * streams, "instructions")
    await channel.close()


async def _ticked(
    tick: Unary, watch: Streamed, streams: int, ticks: int, counted: _Counted
) -> float:
    """Instructions per tick with `streams` streams open, each tick's message received by
    every stream before the next tick."""
    received, arrived, wanted = [0], asyncio.Event(), [0]

    async def reader() -> None:
        async for _ in watch(b"", timeout=600):
            received[0] += 1
            if received[0] >= wanted[0]:
                arrived.set()

    async def delivered(seconds: float) -> bool:
        """One tick; whether every stream received its message within `seconds`."""
        wanted[0] = received[0] + streams
        arrived.clear()
        await tick(b"", timeout=600)
        try:
            await asyncio.wait_for(arrived.wait(), seconds)
        except TimeoutError:
            return False
        return received[0] == wanted[0]

    async def every_stream_got(count: int) -> None:
        """`count` ticks, each received by every stream before the next: a tick sent before a
        stream took the last one would share its message (the server's way), so a tick whose
        messages do not all come ends the run rather than the next one's wait."""
        for _ in range(count):
            if not await delivered(60.0):
                raise SystemExit(f"a tick reached {received[0]} of {wanted[0]} messages in 60 s")

    readers = [asyncio.create_task(reader()) for _ in range(streams)]
    try:
        # Ticked until one reaches every stream (under callgrind a stream takes a while to
        # open), then a few more. After a tick that did not, its late messages settle before
        # the next one counts.
        for _ in range(60):
            if await delivered(1.0):
                break
            await asyncio.sleep(1.0)
        else:
            raise SystemExit(f"the streams did not all open ({received[0]} messages)")
        await every_stream_got(4)
        await asyncio.sleep(0.5)
        counted.zero()
        await every_stream_got(ticks)
        await asyncio.sleep(0.5)
        return counted.dumped() / ticks
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


def _instructions(args: argparse.Namespace) -> None:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not on the PATH (--instructions runs the server under it)")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        out = f"--callgrind-out-file={folder}/callgrind.out.%p"
        command = [valgrind, "--tool=callgrind", "--quiet", out, sys.executable, __file__]
        command += ["--serve", str(port), "--threads", str(max(args.streams) + 40)]
        command += ["--sync"] if args.sync else []
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            if server.stdout.readline().strip() != "ready":
                raise SystemExit("the server did not start")
            uvloop.run(_count(port, _Counted(server, Path(folder)), args))
        finally:
            server.kill()
            server.wait()


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
    parser.add_argument(
        "--instructions", action="store_true", help="callgrind's instruction counts, not CPU time"
    )
    parser.add_argument("--calls", type=int, default=640, help="--instructions: Echo calls")
    parser.add_argument("--ticks", type=int, default=100, help="--instructions: ticks per figure")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=104, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        say_ready = functools.partial(print, "ready", flush=True)
        if args.sync:
            _serve_sync(args.serve, None, say_ready, args.threads)
        else:
            _serve(args.serve, None, say_ready)
        return
    if args.instructions:
        _instructions(args)
        return
    port = free_port()
    ready = multiprocessing.Event()
    server = (
        multiprocessing.Process(
            target=_serve_sync, args=(port, args.server_cpu, ready.set, max(args.streams) + 40)
        )
        if args.sync
        else multiprocessing.Process(target=_serve, args=(port, args.server_cpu, ready.set))
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
