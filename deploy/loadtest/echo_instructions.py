"""A probe, not a server to deploy: the instructions one Echo call costs Croupier's server,
counted by valgrind's callgrind, which counts the same on a loaded machine as on a quiet one
(CPU time does not: docs/performance.md, "Per-call cost: issue 22, this round").

A server process (the real one: `service.server.start` with the in-memory store, Echo on,
one JSON log line per call written to /dev/null, the garbage collector set as croupier-server
sets it) runs under callgrind; this process calls Echo at 32 in flight, `--calls` / 4 calls to
warm up, then zeroes the counters, makes `--calls` calls and has the counters dumped: every
thread of the server (the event loop, grpc.aio's poller, gRPC's own) counted over exactly
those calls. With --no-valgrind the server runs as is and the figure is its CPU time per
call, from /proc.

With --play the calls are game play instead, as croupier-bench's game-play phase makes them:
32 One Card games of 4 seats, one per caller, each move a ListLegalMoves of a seat that may
act and an ApplyMove (with a request id) of one of its listed moves at random, a new game
when one ends; the figure is per move (its two calls). Mixed methods matter: grpc.aio waits
for a new call of each registered method separately (docs/performance.md, "Registered
methods").

    .venv/bin/python deploy/loadtest/echo_instructions.py --calls 640 [--play]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import grpc
import uvloop

from croupier.service.embedded_redis import free_port
from croupier.v1 import benchmark_service_pb2 as pb
from croupier.v1 import game_service_pb2 as game_pb
from croupier.v1 import game_service_pb2_grpc as game_grpc

REQUEST = pb.EchoRequest(response_bytes=220, payload=b"y" * 70).SerializeToString()
IN_FLIGHT = 32


async def _serve(port: int) -> None:
    from croupier.service import config, logs, server
    from croupier.service.main import collect_less
    from croupier.service.memory_store import MemoryStore
    from croupier.service.metrics import MeasuredStore

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)  # the log lines, as croupier-bench's server writes them
    logs.configure("json", "info")
    flags = ["--host", "127.0.0.1", "--port", str(port), "--benchmark-service"]
    # No clock sweep (every 0.2 s by default): under callgrind a run lasts about a minute, and
    # the sweeps of that minute would be counted with the calls, more of them the slower the
    # machine is at the time.
    flags += ["--anonymous-rate-limit", "0", "--clock-tick", "3600"]
    settings = config.parse(flags, environ={})
    running = await server.start(settings, MeasuredStore(MemoryStore()))
    collect_less()  # as croupier-server does before it serves
    print("ready", flush=True)
    await running.server.wait_for_termination()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _calls(port: int, count: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        echo = channel.unary_unary("/croupier.v1.BenchmarkService/Echo")

        async def caller(calls: int) -> None:
            for _ in range(calls):
                await echo(REQUEST, timeout=600)

        share, left = divmod(count, IN_FLIGHT)
        await asyncio.gather(*(caller(share + (i < left)) for i in range(IN_FLIGHT)))


async def _moves(port: int, count: int) -> None:
    """`count` game-play moves, 32 games at a time (a ListLegalMoves and an ApplyMove each)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_grpc.GameServiceStub(channel)

        async def player(number: int, moves: int) -> None:
            chooser = random.Random(number)
            active: list[int] = []
            name, credentials = "", []
            for _ in range(moves):
                if not active:
                    request = game_pb.CreateGameRequest(seats=4, seed=chooser.getrandbits(63))
                    request.one_card.SetInParent()
                    created = await stub.CreateGame(request, timeout=600)
                    name, credentials = created.name, list(created.seat_credentials)
                    active = list(created.view.active_seats)
                metadata = (("authorization", f"Bearer {credentials[chooser.choice(active)]}"),)
                listed = await stub.ListLegalMoves(
                    game_pb.ListLegalMovesRequest(name=name), metadata=metadata, timeout=600
                )
                move = game_pb.ApplyMoveRequest(
                    name=name, move=chooser.choice(listed.moves), request_id=str(uuid.uuid4())
                )
                view = (await stub.ApplyMove(move, metadata=metadata, timeout=600)).view
                active = [] if view.HasField("result") else list(view.active_seats)

        share, left = divmod(count, IN_FLIGHT)
        await asyncio.gather(*(player(i, share + (i < left)) for i in range(IN_FLIGHT)))


def _summary(folder: Path) -> int:
    """The instructions of the dump made after the measured calls (the part-1 file)."""
    (dump,) = folder.glob("callgrind.out.*.1")
    for line in dump.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no summary in {dump}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=640, help="measured Echo calls (moves)")
    parser.add_argument("--play", action="store_true", help="game-play moves instead of Echo")
    parser.add_argument("--no-valgrind", action="store_true", help="CPU time, not instructions")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        uvloop.run(_serve(args.serve))
        return
    valgrind = None if args.no_valgrind else shutil.which("valgrind")
    if not args.no_valgrind and valgrind is None:
        raise SystemExit("valgrind is not on the PATH (or give --no-valgrind)")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, __file__, "--serve", str(port)]
        if valgrind is not None:
            out = f"--callgrind-out-file={folder}/callgrind.out.%p"
            command = [valgrind, "--tool=callgrind", "--quiet", out, *command]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            if server.stdout.readline().strip() != "ready":
                raise SystemExit("the server did not start")
            calls = _moves if args.play else _calls
            what = "Game play (ListLegalMoves + ApplyMove)" if args.play else "Echo"
            unit = "move" if args.play else "call"
            uvloop.run(calls(port, max(IN_FLIGHT, args.calls // 4)))
            time.sleep(0.5)  # the warm-up's log lines and metrics are done
            if valgrind is not None:
                subprocess.run(
                    ["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True
                )
            before = _cpu_seconds(server.pid)
            uvloop.run(calls(port, args.calls))
            time.sleep(0.5)
            if valgrind is None:
                used = (_cpu_seconds(server.pid) - before) / args.calls * 1e6
                print(f"{what}, {IN_FLIGHT} in flight: {args.calls} {unit}s, {used:.0f} us of"
                      f" server CPU per {unit}")  # fmt: skip
                return
            subprocess.run(
                ["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True
            )
            per_call = _summary(Path(folder)) / args.calls
            print(f"{what}, {IN_FLIGHT} in flight: {args.calls} {unit}s, {per_call:,.0f}"
                  f" instructions per {unit} (server, every thread)")  # fmt: skip
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
