"""A loopback TCP forwarder: it listens on one address and relays each connection it accepts
to another, byte for byte, in threads. A server bound to 127.0.0.1 is reached through it on
127.0.0.2 at the same port numbers, the way a client reaches a server's ports through a
gateway; `close()` cuts every connection and stops listening, the way a port stops being
reachable."""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class Forwarder:
    """`with Forwarder(("127.0.0.2", port), ("127.0.0.1", port)) as forwarder: ...`"""

    def __init__(self, listen: tuple[str, int], upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.connections = 0  # accepted so far
        self.received = 0  # bytes its clients sent (relayed upstream)
        self._lock = threading.Lock()
        self._listener = socket.create_server(listen)
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            try:
                upstream = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                self.connections += 1
                self._open += [client, upstream]
            for source, sink, count in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(source, sink, count), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, count: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if count:
                    with self._lock:
                        self.received += len(data)
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        # shutdown, not only close: it wakes the thread blocked in accept() (Linux).
        with self._lock:
            sockets = [self._listener, *self._open]
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
