"""Server settings, from command-line flags with environment variables as defaults."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "[::]"
    port: int = 50051
    redis_url: str | None = None  # None: a private redis-server child, else in-process
    log_format: str = "json"  # "json" or "console"
    log_level: str = "info"
    game_ttl_seconds: int = 7 * 24 * 3600  # a game with no move for this long expires
    finished_ttl_seconds: int = 24 * 3600  # a finished game is kept this long
    request_ttl_seconds: int = 24 * 3600  # how long a move's request id is remembered
    # A CreateGame retry returns the seat credentials again, so its record is kept briefly.
    create_request_ttl_seconds: int = 600
    store_timeout_seconds: float = 2.0
    max_commit_attempts: int = 32  # re-validations of one move under contention
    grace_seconds: float = 10.0  # how long SIGTERM waits for in-flight calls


def _env(name: str, default: str | None) -> str | None:
    return os.environ.get(name, default)


def parse(argv: list[str] | None = None) -> Settings:
    d = Settings()
    p = argparse.ArgumentParser(prog="croupier-server", description="Run the Croupier gRPC server.")
    p.add_argument("--host", default=_env("CROUPIER_HOST", d.host), help="address to bind")
    p.add_argument(
        "--port",
        type=int,
        default=int(_env("CROUPIER_PORT", str(d.port)) or d.port),
        help="port to bind (0: any free port); env CROUPIER_PORT",
    )
    p.add_argument(
        "--redis-url",
        default=_env("CROUPIER_REDIS_URL", None),
        help="Redis URL (redis://host:port/0); env CROUPIER_REDIS_URL. Without it the server"
        " starts a private redis-server child, or keeps games in memory when none is installed",
    )
    p.add_argument(
        "--log-format",
        choices=["json", "console"],
        default=_env("CROUPIER_LOG_FORMAT", d.log_format),
        help="env CROUPIER_LOG_FORMAT",
    )
    p.add_argument(
        "--log-level",
        default=_env("CROUPIER_LOG_LEVEL", d.log_level),
        help="env CROUPIER_LOG_LEVEL",
    )
    p.add_argument(
        "--game-ttl",
        type=int,
        default=int(_env("CROUPIER_GAME_TTL", str(d.game_ttl_seconds)) or 0),
        help="seconds a game without moves is kept; env CROUPIER_GAME_TTL",
    )
    p.add_argument(
        "--finished-ttl",
        type=int,
        default=int(_env("CROUPIER_FINISHED_TTL", str(d.finished_ttl_seconds)) or 0),
        help="seconds a finished game is kept; env CROUPIER_FINISHED_TTL",
    )
    a = p.parse_args(argv)
    return Settings(
        host=a.host,
        port=a.port,
        redis_url=a.redis_url or None,
        log_format=a.log_format,
        log_level=a.log_level,
        game_ttl_seconds=a.game_ttl,
        finished_ttl_seconds=a.finished_ttl,
    )
