"""A launcher for the browser tests: ONE `GameService` servicer over a Redis store, served on a gRPC
port and on the web gateway (service/croupier/service/transport/web_gateway.py) at once, until
SIGTERM.

    python -m tests.e2e.web_server --redis-url redis://127.0.0.1:6379/0 --origin http://a:1

Prints one JSON line, `{"grpc_port": ..., "web_port": ...}`, once both accept calls. (What
`croupier-server --web-port` does, for as long as the gateway is not wired into
service/croupier/service/transport/server.py.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys

import grpc

from croupier.service.application.config import Settings
from croupier.service.store.redis_store import RedisStore
from croupier.service.transport.server import add_game_service
from croupier.service.transport.servicer import GameService
from croupier.service.transport.web_gateway import start_web_gateway


async def run(redis_url: str, origins: list[str]) -> None:
    settings = Settings()
    store = RedisStore(redis_url, timeout=settings.store_timeout_seconds)
    servicer = GameService(store, settings)
    server = grpc.aio.server()
    add_game_service(servicer, server)
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    gateway = await start_web_gateway(servicer, "127.0.0.1", 0, cors_origins=origins)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(json.dumps({"grpc_port": grpc_port, "web_port": gateway.port}), flush=True)
    await stop.wait()
    await gateway.stop(1.0)
    await server.stop(1.0)
    await store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--origin", action="append", default=[], help="a CORS origin")
    args = parser.parse_args(argv)
    asyncio.run(run(args.redis_url, args.origin))


if __name__ == "__main__":
    main(sys.argv[1:])
