"""A TCP proxy in front of a real redis-server that loses one answer: once armed, the next
command carrying a marker (a script's SHA-1) is forwarded to Redis, which makes it, and the
connection it came on is cut at once, so the server loses the answer to a write that was made
(STORE_UNAVAILABLE) — the case a request id exists for. (A cut rather than a dropped reply:
the server's client pipelines commands on one connection, and a reply dropped from the stream
would be taken for the next command's.)"""

from __future__ import annotations

import contextlib
import hashlib
import socket
import threading
from types import TracebackType

from croupier.service.store.embedded_redis import free_port


def script_sha(script: str) -> bytes:
    """The SHA-1 redis-py sends with EVALSHA for `script`."""
    return hashlib.sha1(script.encode()).hexdigest().encode()


class LostReplyProxy:
    """`with LostReplyProxy(redis_port, marker) as proxy: proxy.url`, then `proxy.arm()`."""

    def __init__(self, upstream_port: int, marker: bytes) -> None:
        self.upstream_port = upstream_port
        self.marker = marker
        self.port = free_port()
        self.dropped = threading.Event()  # set once an answer was lost
        self._armed = False
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._sockets: list[socket.socket] = [self._listener]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def arm(self) -> None:
        with self._lock:
            self._armed = True
            self.dropped.clear()

    def __enter__(self) -> LostReplyProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            self._sockets += [client, upstream]
            cut = threading.Event()  # set when this connection's answers are to be lost
            for pump in (self._requests, self._replies):
                threading.Thread(target=pump, args=(client, upstream, cut), daemon=True).start()

    def _requests(
        self, client: socket.socket, upstream: socket.socket, cut: threading.Event
    ) -> None:
        while chunk := _recv(client):
            with self._lock:
                if self._armed and self.marker in chunk:
                    self._armed = False
                    cut.set()  # before Redis can answer: no reply gets through from now on
            if not _send(upstream, chunk):
                break
            if cut.is_set():
                # Redis has the command (and makes it); the caller never gets its answer.
                _close(client)
                self.dropped.set()
                return  # Redis's side is closed by _replies once its answers are read
        _close(upstream)

    def _replies(
        self, client: socket.socket, upstream: socket.socket, cut: threading.Event
    ) -> None:
        while chunk := _recv(upstream):
            if cut.is_set():
                break
            if not _send(client, chunk):
                break
        _close(upstream)
        _close(client)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _send(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.sendall(data)
    except OSError:
        return False
    return True


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
