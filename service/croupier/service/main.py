"""`croupier-server`: choose the store, configure logging, serve (in one process, or in
--workers processes sharing the port through SO_REUSEPORT)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator

import structlog

from croupier.service.application import config
from croupier.service.observability import logs, metrics
from croupier.service.observability.metrics import MeasuredStore
from croupier.service.store import durability
from croupier.service.store.embedded_redis import (
    EmbeddedRedis,
    FolderInUse,
    free_port,
    hold_folder,
    redis_server_binary,
)
from croupier.service.store.memory_store import MemoryStore
from croupier.service.store.protocol import Store
from croupier.service.store.redis_store import RedisStore
from croupier.service.transport.server import serve

log = structlog.get_logger("croupier.server")


@contextlib.contextmanager
def default_redis_url(settings: config.Settings) -> Iterator[str | None]:
    """The configured Redis, else a private redis-server child (keeping its games in the data
    folder, or in a temporary one with --ephemeral), else None (in-process)."""
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
    with contextlib.ExitStack() as stack:
        folder = None
        try:
            if not settings.ephemeral:
                folder = config.data_dir_of(settings)
                stack.enter_context(hold_folder(folder))
            # Tied to this process: a server killed outright takes its redis-server along.
            embedded = stack.enter_context(EmbeddedRedis(folder=folder, die_with_parent=True))
        except (FolderInUse, OSError, RuntimeError) as exc:
            # Said as it is (another server holds the folder, no home directory, a folder
            # that cannot be written): no traceback.
            raise SystemExit(f"croupier-server: {exc}") from exc
        log.info(
            "embedded_redis",
            url=embedded.url,
            folder=str(embedded.folder),
            # Whether the folder is kept (games survive a restart) or removed at the end.
            kept=embedded.kept,
            # A redis-server left running in the folder by a server that died, stopped first.
            stopped_leftover=embedded.stopped_leftover,
        )
        yield embedded.url


def store_description(settings: config.Settings, redis_url: str | None) -> str:
    """What the start-up lines say of the store `default_redis_url` chose: which one, and
    whether the games outlive the server."""
    if settings.redis_url:
        # Without its user and password, and the query, which may hold them too.
        parts = urllib.parse.urlsplit(settings.redis_url)
        shown = parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="")
        return f"{shown.geturl()} (games kept in that Redis)"
    if redis_url is not None and settings.ephemeral:
        return "embedded (games are lost when the server stops)"
    if redis_url is not None:
        folder = config.data_dir_of(settings).resolve()
        return f"embedded in {folder} (games kept from one start to the next)"
    return "in this process (games are lost when the server stops)"


async def _run(settings: config.Settings, redis_url: str | None) -> None:
    store: Store = MeasuredStore(
        RedisStore(
            redis_url, timeout=settings.store_timeout_seconds, durability=settings.durability
        )
        if redis_url
        else MemoryStore()
    )
    try:
        await serve(settings, store, store_description(settings, redis_url))
    finally:
        await store.close()


def check_durability(settings: config.Settings, redis_url: str | None) -> None:
    """Stop here, saying what to change, when the store cannot honour --durability: a server
    that started would answer every write UNAVAILABLE. Checked before --workers starts its
    processes, which it would otherwise restart as each stopped."""
    if not settings.durability.waits:
        return
    try:
        facts = asyncio.run(
            durability.check(redis_url, settings.durability, settings.store_timeout_seconds)
        )
    except durability.Refused as exc:
        raise SystemExit(f"croupier-server: {exc}") from None
    log.info("durability_checked", durability=str(settings.durability), **facts)


def worker_cpus(settings: config.Settings) -> list[int] | None:
    """The CPUs the server's processes are pinned to, one each in turn (`--pin-workers`:
    those this process may use), or None (not pinned)."""
    if not settings.pin_workers:
        return None
    cpus = config.allowed_cpus()
    if cpus is None:
        raise SystemExit("--pin-workers needs Linux (CPU affinity)")
    return cpus


def run_workers(settings: config.Settings, redis_url: str) -> int:
    """Start `settings.workers` server processes on one port; forward SIGTERM/SIGINT to them
    and restart any that dies unexpectedly."""
    port = settings.port or free_port()
    cpus = worker_cpus(settings)
    pinned = None if cpus is None else [cpus[i % len(cpus)] for i in range(settings.workers)]

    def spawn(index: int) -> subprocess.Popen[bytes]:
        child = dataclasses.replace(
            settings,
            workers=1,
            pin_workers=False,
            port=port,
            redis_url=redis_url,
            reuse_port=True,
            metrics_port=settings.metrics_port + index if settings.metrics_port else 0,
        )
        args, secrets = config.to_args(child)
        command = [sys.executable, "-m", "croupier.service.main", *args]
        # Pinned before it runs a line: the worker reads its affinity as it starts (`auto`).
        pin = (
            None if pinned is None else functools.partial(os.sched_setaffinity, 0, {pinned[index]})
        )
        return subprocess.Popen(command, env={**os.environ, **secrets}, preexec_fn=pin)

    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)

    processes = [spawn(index) for index in range(settings.workers)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "workers",
        count=settings.workers,
        host=settings.host,
        port=port,
        # Each worker's own line names the Redis it was given; only this process knows
        # whether that Redis is its private child.
        store=store_description(settings, redis_url),
        cpus=pinned,
        # The workers share the web port (SO_REUSEPORT); each serves its own metrics.
        web_port=settings.web_port,
        metrics_ports=[settings.metrics_port + i for i in range(settings.workers)]
        if settings.metrics_port
        else None,
    )
    while not stopping:
        time.sleep(0.2)
        for index, process in enumerate(processes):
            if process.poll() is not None and not stopping:
                log.error("worker_died", pid=process.pid, code=process.returncode)
                processes[index] = spawn(index)
    codes = [process.wait() for process in processes]
    return max(codes, default=0)


def _event_loop_policy() -> None:
    """uvloop when installed (a faster event loop for the same code), else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def set_cpu_policy(setting: str) -> None:
    """Put this process's thread under the policy of `setting` (config.Settings.cpu_policy,
    `auto` resolved by config.cpu_policy_of) before it starts any other: the threads gRPC, the
    metrics server and --workers start inherit it. Under SCHED_BATCH a thread that wakes does
    not preempt the one running, so gRPC's helper threads wait for the event loop to block or
    its time slice to end instead of interrupting it several times per call
    (docs/decisions.md, "CPU policy"). Asked for and refused: the
    server stops; chosen by `auto` and refused: it warns and keeps the normal policy."""
    if config.cpu_policy_of(setting) == "normal":
        return
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError) as exc:  # not Linux, or refused
        if setting == "auto":
            log.warning("cpu_policy_refused", policy="batch", error=str(exc))
            return
        raise SystemExit(f"--cpu-policy {setting}: cannot set SCHED_BATCH here ({exc})") from exc


# By default Python collects its youngest generation whenever 700 more container objects
# have been allocated than freed. The calls in flight (their tasks, futures, messages) and the
# states kept between calls reach that many times a second; every collection traverses them
# and moves them on to older generations, traversed again there (docs/decisions.md, "The
# server collects garbage less often").
GC_THRESHOLD = 20_000


def collect_less() -> None:
    """Freeze what start-up made (modules, descriptors, the configuration: never garbage, so
    never traversed again) and collect the youngest generation at GC_THRESHOLD objects.
    Cycles are still collected, a little later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def main(argv: list[str] | None = None) -> None:
    settings = config.parse(argv)
    logs.configure(settings.log_format, settings.log_level)
    with default_redis_url(settings) as redis_url:
        check_durability(settings, redis_url)
        if settings.workers == 1 and (cpus := worker_cpus(settings)):
            # After the embedded redis-server started, which keeps every CPU; before
            # `--cpu-policy auto` reads the CPUs.
            os.sched_setaffinity(0, {cpus[0]})
        # After the embedded redis-server started: it keeps the normal policy.
        set_cpu_policy(settings.cpu_policy)
        if settings.workers > 1:
            if redis_url is None:
                raise SystemExit("--workers needs Redis: give --redis-url or install redis-server")
            raise SystemExit(run_workers(settings, redis_url))
        if settings.metrics_port:
            metrics.serve(settings.metrics_port, settings.host)
        _event_loop_policy()
        collect_less()
        asyncio.run(_run(settings, redis_url))


if __name__ == "__main__":
    main()
