"""Redis commands answered in the calling thread, for a Redis on this host.

Why: awaiting a reply through the event loop (its poll, the protocol's callback, a future, the
task's wake-up) costs more than a local Redis takes to answer. On this project's machine, with
Redis on the server's core, sending a move's read and its write on a blocking socket of their
own lowers ApplyMove's latency and its server CPU (figures in docs/performance.md).

Bounded, because the event loop waits with the call: each read of a reply waits at most `wait`
seconds. A late reply or a connection error closes the socket and turns the direct path off for
`pause` seconds, so a stalled Redis holds the event loop for `wait` at most once per pause. The
caller then sends the commands again through the event loop (service.resp): only commands that
are safe to send twice belong here, reads and the commit script (which recognises its own
token, service.redis_store).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import socket
import struct
import time
from collections.abc import Sequence
from typing import Any

import hiredis
import structlog
from redis.connection import parse_url
from redis.exceptions import NoScriptError

from service.resp import Arg, pack, reply_error, setup_commands

log = structlog.get_logger(__name__)


def is_local(url: str) -> bool:
    """A plain `redis://` URL whose host is this one (a loopback address)."""
    if not url.startswith("redis://"):
        return False
    host = str(parse_url(url).get("host", ""))  # type: ignore[no-untyped-call]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.cache
def _sha(script: str) -> str:
    return hashlib.sha1(script.encode()).hexdigest()


class DirectClient:
    """`DirectClient("redis://127.0.0.1:6379/0", wait=0.01)`: see the module docstring."""

    def __init__(self, url: str, *, wait: float, pause: float = 1.0) -> None:
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        self._address = (options.get("host", "127.0.0.1"), int(options.get("port", 6379)))
        self._setup = setup_commands(options)
        self._wait, self._pause = wait, pause
        self._socket: socket.socket | None = None
        self._reader = hiredis.Reader()
        self._off_until = 0.0
        # Round trips answered here, and calls given up (then sent through the event loop).
        self.answered = 0
        self.missed = 0

    def execute_many(self, commands: Sequence[tuple[Arg, ...]]) -> list[Any] | None:
        """The replies of `commands` sent in one write, or None when the direct path is off or
        gave up (send them again through the event loop). An error reply raises, as
        service.resp does, once every reply is read."""
        now = time.monotonic()
        if now < self._off_until:
            return None
        payload = b"".join(pack(command) for command in commands)
        try:
            replies = self._round_trip(payload, len(commands), now + self._wait)
        except (OSError, hiredis.ProtocolError) as exc:  # socket timeouts included
            self._give_up(exc)
            return None
        self.answered += 1
        for reply in replies:
            if isinstance(reply, hiredis.ReplyError):
                raise reply_error(reply)
        return replies

    def run_script(self, script: str, keys: Sequence[Arg], args: Sequence[Arg]) -> Any | None:
        """`script`'s reply (EVALSHA, then EVAL when Redis does not know it yet), or None as
        execute_many."""
        try:
            replies = self.execute_many([("EVALSHA", _sha(script), len(keys), *keys, *args)])
        except NoScriptError:
            replies = self.execute_many([("EVAL", script, len(keys), *keys, *args)])
        return None if replies is None else replies[0]

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self._reader = hiredis.Reader()

    def _round_trip(self, payload: bytes, count: int, deadline: float) -> list[Any]:
        sock = self._socket or self._connect(deadline)
        sock.sendall(payload)
        reader = self._reader
        replies: list[Any] = []
        while True:
            while len(replies) < count and (reply := reader.gets()) is not False:
                replies.append(reply)
            if len(replies) == count:
                return replies
            if time.monotonic() > deadline:
                raise TimeoutError("Redis did not answer in time")
            try:
                data = sock.recv(65536)  # waits at most `wait` (SO_RCVTIMEO)
            except BlockingIOError:
                raise TimeoutError(f"no reply within {self._wait * 1000:g} ms") from None
            if not data:
                raise ConnectionResetError("Redis closed the connection")
            reader.feed(data)

    def _connect(self, deadline: float) -> socket.socket:
        sock = socket.create_connection(self._address, timeout=self._wait)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # A blocking socket whose reads and writes the kernel times out: one system call per
        # read (a Python socket timeout polls before each read).
        seconds, micros = divmod(max(round(self._wait * 1e6), 1), 1_000_000)
        limit = struct.pack("ll", seconds, micros)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        sock.settimeout(None)
        self._socket = sock
        for command in self._setup:
            reply = self._round_trip(pack(command), 1, deadline)[0]
            if isinstance(reply, hiredis.ReplyError):
                raise ConnectionRefusedError(f"Redis refused {command[0]!r}: {reply}")
        return sock

    def _give_up(self, exc: Exception) -> None:
        self.close()
        self.missed += 1
        self._off_until = time.monotonic() + self._pause
        log.warning(
            "redis_direct_off",
            error=type(exc).__name__,
            detail=str(exc),
            seconds=self._pause,
            message="replies go through the event loop meanwhile",
        )
