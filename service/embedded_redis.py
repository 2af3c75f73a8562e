"""A private `redis-server` child on a free loopback port in a temporary folder: the default
store of `croupier-server` without a Redis URL, and the Redis of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from croupier.local import free_port

__all__ = ["EmbeddedRedis", "free_port", "redis_server_binary"]


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


class EmbeddedRedis:
    """`with EmbeddedRedis() as r: r.url` — a redis-server that lives as long as the block."""

    def __init__(
        self,
        port: int | None = None,
        extra_args: tuple[str, ...] = (),
        cluster_node: bool = False,
    ) -> None:
        binary = redis_server_binary()
        if binary is None:
            raise FileNotFoundError(
                "redis-server is not on the PATH (Debian: apt-get install redis-server)"
            )
        self.binary = binary
        # A port picked here may be taken before redis-server binds it (by another process, or
        # as the local end of an outgoing connection): the first start then tries fresh ones.
        self.port_given = port is not None
        self.port = port or free_port()
        self.cluster_node = cluster_node
        # The bus port is set explicitly: port + 10000 may exceed 65535.
        self.bus_port = free_port() if cluster_node else None
        self.extra_args = extra_args
        self.folder = Path(tempfile.mkdtemp(prefix="croupier-redis-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0, attempts: int = 5) -> EmbeddedRedis:
        """Start redis-server and wait until it answers. A restart keeps its ports; the first
        start of one whose ports were picked here tries fresh ones when they were taken."""
        tries = 1 if self.port_given or self.started else attempts
        for attempt in range(tries):
            if attempt:
                self.port = free_port()
                self.bus_port = free_port() if self.cluster_node else None
            if self._launch(timeout):
                self.started = True
                return self
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def _launch(self, timeout: float) -> bool:
        """True once this process answers on the port; False if it exited first (its port was
        taken). A process that neither answers nor exits in time is an error."""
        cluster_args: tuple[str, ...] = ()
        if self.cluster_node:
            cluster_args = (
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000", "--cluster-port", str(self.bus_port),
            )  # fmt: skip
        args = [
            self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.folder), "--save", "", "--appendonly", "no",
            "--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning",
            *cluster_args, *self.extra_args,
        ]  # fmt: skip
        process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.folder
        )
        self.process = process
        # A listener that is not a redis-server may never answer: every call has a timeout.
        # This loop is the retry: the client's own (with backoff) would only delay it.
        client = redis.Redis(
            host="127.0.0.1",
            port=self.port,
            socket_connect_timeout=0.2,
            socket_timeout=0.5,
            retry=Retry(NoBackoff(), 0),
        )
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    # Another redis-server may hold the port: only this one's answer counts.
                    if client.info("server").get("process_id") == process.pid:
                        return True
                except redis.RedisError:
                    pass
                if process.poll() is not None:
                    self.process = None
                    return False
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis-server did not start on port {self.port}")
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
