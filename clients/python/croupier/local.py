"""Start a `croupier-server` process (this project's `service` package) on a free loopback
port, for tools and tests that are given no target.

The server is another distribution than this client (docs/decisions.md, "Packaging and
layers"): it is started as a process, never imported, so a client-only install still imports
this module and says what is missing when asked for a server."""

from __future__ import annotations

import importlib.util
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVER_MODULE = "croupier.service.main"


class ServerNotInstalled(RuntimeError):
    """No --target was given and the server's distribution is not installed here."""


# Where free_port looks first: below the kernel's range for the local ends of outgoing
# connections, which the port picked by binding port 0 is in (so any connection made before
# the port is bound again may take it).
_LOWEST_PORT = 10_000
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_CHOOSER = random.SystemRandom()  # not the `random` module's: a test may seed that one


def free_port() -> int:
    """A loopback TCP port that nothing uses now, for a process about to listen on it. It is
    free only until someone else binds it: who listens on it must cope with losing it (a
    first start that fails tries a fresh one: LocalServer, EmbeddedRedis)."""
    try:
        first_ephemeral = int(_EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        first_ephemeral = 0
    if first_ephemeral - _LOWEST_PORT >= 1_000:
        for _ in range(50):
            port = _CHOOSER.randrange(_LOWEST_PORT, first_ephemeral)
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                try:
                    sock.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        picked: int = sock.getsockname()[1]
        return picked


def server_installed() -> bool:
    """Whether this Python can run the server (found without importing it)."""
    return importlib.util.find_spec(SERVER_MODULE.rpartition(".")[0]) is not None


class ServerExited(RuntimeError):
    """The server process ended before it served (its port may have been taken)."""


def wait_serving(
    target: str,
    timeout: float = 60.0,
    tls_root: Path | None = None,
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Block until the server at `target` reports SERVING through the health protocol; raise
    ServerExited at once if `process` ends first."""
    deadline = time.monotonic() + timeout
    channel = (
        grpc.secure_channel(target, grpc.ssl_channel_credentials(tls_root.read_bytes()))
        if tls_root
        else grpc.insecure_channel(target)
    )
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if process is not None and process.poll() is not None:
                raise ServerExited(f"the server exited with {process.returncode} before serving")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no server became healthy at {target}")
            time.sleep(0.05)


class LocalServer:
    """`with LocalServer() as server: server.target` — a real server process for the block.

    Without `redis_url` the server picks its default store (a private redis-server child when
    the binary is installed, else memory), in a temporary folder that keeps nothing
    (`--ephemeral`): tools and tests never write into the user's own store. With `data_dir`,
    that redis-server keeps its games in that folder instead."""

    def __init__(
        self,
        redis_url: str | None = None,
        *,
        data_dir: Path | None = None,
        extra_args: tuple[str, ...] = (),
        log_level: str = "warning",
        env: dict[str, str] | None = None,
        stderr: int | None = subprocess.DEVNULL,
        tls_root: Path | None = None,
    ) -> None:
        self.pick_port()
        args = [sys.executable, "-m", SERVER_MODULE, "--host", "127.0.0.1"]
        if redis_url:
            args += ["--redis-url", redis_url]
        elif data_dir is not None:
            # --no-ephemeral too: CROUPIER_EPHEMERAL in the environment would win otherwise.
            args += ["--data-dir", str(data_dir), "--no-ephemeral"]
        else:
            args += ["--ephemeral"]
        args += ["--log-level", log_level, *extra_args]
        self.args = args
        self.env = {**os.environ, **(env or {})}
        self.stderr = stderr
        self.tls_root = tls_root
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False

    def pick_port(self) -> None:
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> LocalServer:
        if not server_installed():
            raise ServerNotInstalled(
                "no server here: give --target HOST:PORT, or install the server (croupier)"
            )
        # The port picked may be taken before the server binds it (by another process, or as
        # the local end of an outgoing connection): a first start that exits tries fresh ones.
        attempts = 1 if self.started else 3
        for attempt in range(attempts):
            if attempt:
                self.pick_port()
            self.process = subprocess.Popen(
                [*self.args, "--port", str(self.port)],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=self.stderr,
            )
            try:
                wait_serving(self.target, timeout, self.tls_root, self.process)
            except ServerExited:
                self.stop()
                if attempt + 1 == attempts:
                    raise
                continue
            except TimeoutError:
                self.stop()
                raise
            self.started = True
            return self
        raise AssertionError("unreachable")

    def stop(self, timeout: float = 15.0) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode
        self.process = None
        return code

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
