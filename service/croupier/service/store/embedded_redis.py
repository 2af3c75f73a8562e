"""A private `redis-server` child on a free loopback port: the default store of
`croupier-server` without a Redis URL, and the Redis of the test suite.

By default it runs in a temporary folder, removed when it stops. Given a folder (the server's
`--data-dir`), it keeps its data there in an append-only file from one start to the next:
`hold_folder` keeps a second server out of that folder, and a redis-server that a server which
died left running there is stopped before a new one starts on the same files."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from croupier.local import free_port

__all__ = [
    "EmbeddedRedis",
    "FolderInUse",
    "free_port",
    "hold_folder",
    "redis_server_binary",
    "self_signed_certificate",
]

# A kept folder's append-only file is fsynced once a second, not after every write: it is a
# developer's store (`make run`), where waiting for the disk on every move costs milliseconds
# and guards only against a crash of the machine or of redis-server itself. A crash of
# croupier-server loses nothing: its redis-server gets SIGTERM and writes everything
# (docs/decisions.md, "The embedded store keeps games").
KEPT = ("--appendonly", "yes", "--appendfsync", "everysec")
THROWAWAY = ("--appendonly", "no")

# A kept folder's own files, beside Redis's appendonlydir/.
LOCK_FILE = "croupier-server.lock"  # locked by the server whose store the folder is
CHILD_FILE = "redis-server.json"  # the pid and port of the redis-server running in it
LOG_FILE = "redis-server.log"

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


def self_signed_certificate(folder: Path, name: str = "redis") -> tuple[Path, Path]:
    """A throwaway certificate for 127.0.0.1 and localhost, its own authority, and its key,
    made by `openssl` in `folder`: for a private Redis over TLS (`EmbeddedRedis(tls=...)`),
    as the tests and the benchmark start one."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


class FolderInUse(RuntimeError):
    """Another croupier-server, still running, keeps its store in the folder."""


@contextlib.contextmanager
def hold_folder(folder: Path) -> Iterator[None]:
    """Hold `folder` as this process's store for the block, or raise FolderInUse: two
    redis-servers writing the same append-only file would corrupt it. The lock is flock's,
    which the kernel releases however the process ends (SIGKILL too), so a lock file left by a
    crash locks nobody out; and Python's descriptors are not inherited, so the redis-server
    child never holds it."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip() or "unknown"
            raise FolderInUse(
                f"{folder} is the store of another croupier-server, still running (pid"
                f" {holder}): stop it first, or start this one with another --data-dir or"
                " with --ephemeral"
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(descriptor)


def _die_with_parent() -> Callable[[], None] | None:
    """A preexec function (Linux) that has the kernel send the child SIGTERM when its parent
    ends, SIGKILL included: redis-server then writes its data and exits instead of running on
    orphaned. The signal comes when the *thread* that started the child ends, so the child
    must be started from a thread that lives as long as the process (the server's main
    thread). None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    sigterm = int(signal.SIGTERM)

    def tie() -> None:  # in the child, between fork and exec: only calls looked up above
        prctl(PR_SET_PDEATHSIG, sigterm, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before the signal was asked for
            os._exit(1)

    return tie


def _alive(pid: int) -> bool:
    """Whether process `pid` runs; a zombie (ended, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return not Path("/proc/self/stat").exists()  # gone just now, or no /proc here
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _redis_of(pid: int, port: int, folder: Path) -> bool:
    """Whether `pid` is a redis-server of `folder`, and not a process that got the pid of one
    since it ended: its name and working folder (Linux), else its answer on `port`."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().startswith("redis-server") and (
            Path(os.readlink(f"/proc/{pid}/cwd")).resolve() == folder.resolve()
        )
    except (FileNotFoundError, PermissionError):
        pass
    client = redis.Redis(
        host="127.0.0.1",
        port=port,
        socket_connect_timeout=1.0,
        socket_timeout=1.0,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        if client.info("server").get("process_id") != pid:
            return False
        directory = client.config_get("dir").get("dir")
        return directory is not None and Path(directory).resolve() == folder.resolve()
    except redis.RedisError:
        return False
    finally:
        client.close()


class EmbeddedRedis:
    """`with EmbeddedRedis() as r: r.url` — a redis-server that lives as long as the block.

    With `folder`, its data is kept there (append-only file) for the next one started there;
    whoever starts it holds the folder (`hold_folder`). With `die_with_parent`, it never
    outlives this process (Linux), and runs in a session of its own, so that a terminal's
    Ctrl-C reaches only this process, which stops it once its own calls are done.

    With `tls` (a certificate and its key: `self_signed_certificate`), it also listens for TLS
    on `tls_port` (`tls_url`, which trusts that certificate); with `unix_socket`, on a socket in
    its folder (`unix_url`). `url`, plain TCP, always works."""

    def __init__(
        self,
        port: int | None = None,
        extra_args: tuple[str, ...] = (),
        cluster_node: bool = False,
        folder: Path | None = None,
        die_with_parent: bool = False,
        tls: tuple[Path, Path] | None = None,
        unix_socket: bool = False,
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
        self.tls = tls
        self.tls_port = free_port() if tls is not None else None
        self.unix_socket = unix_socket
        self.kept = folder is not None
        if folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="croupier-redis-"))
        else:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.folder = folder.resolve()
        self.die_with_parent = die_with_parent
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False
        # The pid of a redis-server found running in the kept folder and stopped, if any.
        self.stopped_leftover: int | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def tls_url(self) -> str:
        """The same Redis over TLS, trusting its certificate (`tls`)."""
        if self.tls is None:
            raise ValueError("this Redis was started without tls")
        return f"rediss://127.0.0.1:{self.tls_port}/0?ssl_ca_certs={quote(str(self.tls[0]))}"

    @property
    def socket_path(self) -> Path:
        return self.folder / "redis.sock"

    @property
    def unix_url(self) -> str:
        """The same Redis through its Unix socket (`unix_socket`)."""
        if not self.unix_socket:
            raise ValueError("this Redis was started without unix_socket")
        return f"unix://{self.socket_path}?db=0"

    def start(self, timeout: float = 10.0, attempts: int = 5) -> EmbeddedRedis:
        """Start redis-server and wait until it answers. A restart keeps its ports; the first
        start of one whose ports were picked here tries fresh ones when they were taken."""
        if self.kept:
            self._stop_leftover()
        tries = 1 if self.port_given or self.started else attempts
        for attempt in range(tries):
            if attempt:
                self.port = free_port()
                self.bus_port = free_port() if self.cluster_node else None
                self.tls_port = free_port() if self.tls is not None else None
            if self._launch(timeout):
                self.started = True
                return self
        raise RuntimeError(f"redis-server did not start on port {self.port}{self._log_tail()}")

    def _stop_leftover(self) -> None:
        """Stop the redis-server a server that died left running in the kept folder (where
        the parent-death signal is not there, or came too late): a second one on the same
        files would corrupt them. SIGTERM, so that it writes what it holds first."""
        record = self.folder / CHILD_FILE
        try:
            left = json.loads(record.read_text())
            pid, port = int(left["pid"]), int(left["port"])
        except FileNotFoundError:
            return
        except (ValueError, KeyError, TypeError):
            record.unlink(missing_ok=True)  # half written: its redis-server never started
            return
        if _alive(pid) and _redis_of(pid, port, self.folder):
            os.kill(pid, signal.SIGTERM)
            if not _wait_gone(pid, 30.0):
                os.kill(pid, signal.SIGKILL)
                if not _wait_gone(pid, 10.0):
                    raise RuntimeError(f"redis-server {pid} keeps running in {self.folder}")
            self.stopped_leftover = pid
        record.unlink(missing_ok=True)

    def _log_tail(self) -> str:
        try:
            lines = (self.folder / LOG_FILE).read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return ""
        return "".join(f"\n  {line}" for line in lines[-5:])

    def _launch(self, timeout: float) -> bool:
        """True once this process answers on the port; False if it exited first (its port was
        taken). A process that neither answers nor exits in time is an error."""
        cluster_args: tuple[str, ...] = ()
        if self.cluster_node:
            cluster_args = (
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000", "--cluster-port", str(self.bus_port),
            )  # fmt: skip
        listeners: tuple[str, ...] = ()
        if self.tls is not None:
            cert, key = self.tls
            listeners += (
                "--tls-port", str(self.tls_port), "--tls-cert-file", str(cert),
                "--tls-key-file", str(key), "--tls-ca-cert-file", str(cert),
                "--tls-auth-clients", "no",
            )  # fmt: skip
        if self.unix_socket:
            listeners += ("--unixsocket", str(self.socket_path), "--unixsocketperm", "700")
        args = [
            self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.folder), "--save", "", *(KEPT if self.kept else THROWAWAY),
            "--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning",
            "--logfile", str(self.folder / LOG_FILE), *cluster_args, *listeners, *self.extra_args,
        ]  # fmt: skip
        process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            preexec_fn=_die_with_parent() if self.die_with_parent else None,
            start_new_session=self.die_with_parent,
        )
        self.process = process
        if self.kept:
            # Written before it answers: a server that dies from here on leaves its successor
            # the pid to stop.
            record = self.folder / CHILD_FILE
            partial = record.with_suffix(".partial")
            partial.write_text(json.dumps({"pid": process.pid, "port": self.port}))
            partial.replace(record)
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
                    raise RuntimeError(
                        f"redis-server did not start on port {self.port}{self._log_tail()}"
                    )
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
        if self.kept:
            (self.folder / CHILD_FILE).unlink(missing_ok=True)

    def close(self) -> None:
        self.stop()
        if not self.kept:
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
