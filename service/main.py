"""`croupier-server`: choose the store, configure logging, serve."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import structlog

from service import config, logs
from service.embedded_redis import EmbeddedRedis, redis_server_binary
from service.memory_store import MemoryStore
from service.redis_store import RedisStore
from service.server import serve
from service.store import Store

log = structlog.get_logger("croupier.server")


@contextlib.contextmanager
def default_redis_url(settings: config.Settings) -> Iterator[str | None]:
    """The configured Redis, else a private redis-server child, else None (in-process)."""
    if settings.redis_url:
        yield settings.redis_url
        return
    if redis_server_binary() is None:
        log.warning(
            "in_memory_store",
            message="no Redis URL and no redis-server on the PATH: games are kept in this"
            " process only (single replica, lost on restart)",
        )
        yield None
        return
    with EmbeddedRedis() as embedded:
        log.info("embedded_redis", url=embedded.url, folder=str(embedded.folder))
        yield embedded.url


async def _run(settings: config.Settings, redis_url: str | None) -> None:
    store: Store = (
        RedisStore(redis_url, timeout=settings.store_timeout_seconds)
        if redis_url
        else MemoryStore()
    )
    try:
        await serve(settings, store)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> None:
    settings = config.parse(argv)
    logs.configure(settings.log_format, settings.log_level)
    with default_redis_url(settings) as redis_url:
        asyncio.run(_run(settings, redis_url))


if __name__ == "__main__":
    main()
