"""The store's Redis client, for a single Redis over TCP (`redis://`), TLS (`rediss://`) or a
Unix socket (`unix://`): one connection per process, every command written at once and its
reply matched in order (Redis answers a connection's commands in the order they arrive),
replies parsed by hiredis. The commands sent during one turn of the event loop (the moves of
concurrent calls, to any games) go out in one write at its end: one system call and one wake-up
of Redis for all of them (group commit: docs/decisions.md); a command sent while none is
waiting for its reply goes out at once. The URL decides only how the connection opens
(`Endpoint`: TLS is asyncio's, on an `ssl.SSLContext` made from the URL's options); everything
above that is the same code whatever the URL.

Why not redis-py's asyncio client: it takes a pooled connection, wraps each read and write in
its own timeout and parses in Python: several times this client's CPU per command. This one
offers the few redis-py methods the store uses (`execute_command`, `hmget`, `get`, `set`,
`lrange`, `ping`, `pipeline`, `register_script`), with the same meaning, and redis-py's
exceptions and URL syntax.

Each command has a deadline (`timeout`): one timer per connection, set for the oldest command
still waiting, fails with TimeoutError the commands whose deadline passed (a timer per command,
as `asyncio.timeout` sets, cost more CPU than the rest of a command). A command that timed out,
or whose caller stopped waiting, leaves its reply to be read and dropped, so the connection
stays in step; a lost connection fails every waiting command with ConnectionError, and the next
command connects again.

A write can be followed by a wait (`execute_then_wait`: WAITAOF or WAIT, --durability in
service/croupier/service/store/durability.py) on the same connection, which is what those commands
answer for: the writes this connection made before them. The writes of one turn share one wait,
written after all of them: one wait a turn, not one per write, and a connection blocked in Redis by
a wait holds back one turn's commands at most.

Pub/sub (the watch streams) has a connection of its own, `Subscriber`: a subscribed connection
takes no other command. Its pushes are parsed by the same hiredis reader and handed on as they
come, without a task or a read loop of their own."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, TypeVar, cast
from urllib.parse import urlsplit

import hiredis
import structlog
from redis.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

Arg = bytes | str | int | float

log = structlog.get_logger(__name__)

# hiredis's stub types the argument as a one-element tuple; it takes any number.
_pack = cast(Callable[[tuple[Arg, ...]], bytes], hiredis.pack_command)


# The TLS options a `rediss://` URL's query may carry, as redis-py reads them (so URLs written
# for it keep their meaning); every other query option but `db` is ignored, as it was.
TLS_OPTIONS = frozenset(
    {
        "ssl_cert_reqs",
        "ssl_ca_certs",
        "ssl_ca_path",
        "ssl_ca_data",
        "ssl_certfile",
        "ssl_keyfile",
        "ssl_password",
        "ssl_check_hostname",
        "ssl_min_version",
        "ssl_ciphers",
        "ssl_include_verify_flags",
        "ssl_exclude_verify_flags",
    }
)
_CERT_REQS = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}

P = TypeVar("P", bound=asyncio.BaseProtocol)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a URL's Redis listens and how a connection to it starts:

    - `redis://[[user]:password@]host[:port][/db]`: TCP;
    - `rediss://…`: the same over TLS, verifying the server's certificate and name against the
      system's authorities unless the query says otherwise: `ssl_ca_certs` (a PEM file),
      `ssl_ca_path`, `ssl_ca_data`, `ssl_certfile` and `ssl_keyfile` (a client certificate),
      `ssl_password`, `ssl_cert_reqs` (`required`, `optional`, `none`), `ssl_check_hostname`,
      `ssl_min_version`, `ssl_ciphers`, `ssl_include_verify_flags`, `ssl_exclude_verify_flags`:
      redis-py's names and meanings;
    - `unix://[[user]:password@]/path/to/socket[?db=N]`: a Unix socket.

    `setup`: AUTH and SELECT, sent first on every connection."""

    host: str
    port: int
    path: str | None  # a Unix socket's
    tls: ssl.SSLContext | None
    setup: tuple[tuple[Arg, ...], ...]
    # The URL's scheme and query, which a cluster's other nodes are reached with.
    scheme: str
    query: str

    @property
    def address(self) -> str:
        return self.path if self.path is not None else f"{self.host}:{self.port}"

    @staticmethod
    def parse(url: str) -> Endpoint:
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        scheme = url.split("://", 1)[0].lower()
        unknown = {name for name in options if name.startswith("ssl_")} - TLS_OPTIONS
        if unknown:
            raise ValueError(
                f"unknown TLS option(s) in the Redis URL: {', '.join(sorted(unknown))}"
            )
        setup: list[tuple[Arg, ...]] = []
        if options.get("password"):
            user = options.get("username")
            setup.append(
                ("AUTH", user, options["password"]) if user else ("AUTH", options["password"])
            )
        if options.get("db"):
            setup.append(("SELECT", int(options["db"])))
        return Endpoint(
            host=options.get("host", "127.0.0.1"),
            port=int(options.get("port", 6379)),
            path=options.get("path") if scheme == "unix" else None,
            tls=tls_context(options) if scheme == "rediss" else None,
            setup=tuple(setup),
            scheme=scheme,
            query=urlsplit(url).query,
        )

    async def open(self, factory: Callable[[], P]) -> tuple[asyncio.BaseTransport, P]:
        """A connection to this endpoint, its protocol made by `factory`."""
        loop = asyncio.get_running_loop()
        if self.path is not None:
            return await loop.create_unix_connection(factory, self.path)
        if self.tls is not None:
            return await loop.create_connection(
                factory, self.host, self.port, ssl=self.tls, server_hostname=self.host
            )
        return await loop.create_connection(factory, self.host, self.port)


def tls_context(options: dict[str, Any]) -> ssl.SSLContext:
    """The TLS context of a `rediss://` URL's options (`Endpoint`), built as redis-py builds
    its own from them."""
    context = ssl.create_default_context()
    reqs = options.get("ssl_cert_reqs", "required")
    if isinstance(reqs, str):
        if reqs.lower() not in _CERT_REQS:
            raise ValueError(f"ssl_cert_reqs must be none, optional or required, not {reqs!r}")
        reqs = _CERT_REQS[reqs.lower()]
    context.check_hostname = bool(options.get("ssl_check_hostname", True)) and (
        reqs != ssl.CERT_NONE
    )
    context.verify_mode = reqs
    for flag in options.get("ssl_include_verify_flags") or ():
        context.verify_flags |= flag
    for flag in options.get("ssl_exclude_verify_flags") or ():
        context.verify_flags &= ~flag
    certfile: str | None = options.get("ssl_certfile")
    if certfile:  # a client certificate (its key in the same file, or in ssl_keyfile)
        context.load_cert_chain(
            certfile=certfile,
            keyfile=options.get("ssl_keyfile"),
            password=options.get("ssl_password"),
        )
    elif options.get("ssl_keyfile"):
        raise ValueError("ssl_keyfile without ssl_certfile in the Redis URL")
    if options.get("ssl_ca_certs") or options.get("ssl_ca_path") or options.get("ssl_ca_data"):
        context.load_verify_locations(
            cafile=options.get("ssl_ca_certs"),
            capath=options.get("ssl_ca_path"),
            cadata=options.get("ssl_ca_data"),
        )
    if options.get("ssl_min_version") is not None:
        context.minimum_version = ssl.TLSVersion(int(options["ssl_min_version"]))
    if options.get("ssl_ciphers"):
        context.set_ciphers(options["ssl_ciphers"])
    return context


class _Protocol(asyncio.Protocol):
    def __init__(self, timeout: float | None) -> None:
        self._reader = hiredis.Reader()
        # Commands waiting for their reply, in the order sent, with their deadlines.
        self._waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self._transport: asyncio.Transport | None = None
        self._timeout = timeout
        self._timer: asyncio.TimerHandle | None = None
        # Commands sent during one turn of the event loop, written together at its end, and
        # a future done once they are (`written`).
        self._unsent: list[bytes] = []
        self._written: asyncio.Future[None] | None = None
        self._flushing = False  # the end of this turn's flush is scheduled
        # The wait (its command and its reply's future) to write after this turn's commands,
        # shared by every write of the turn that asked for one (`wait_after`).
        self._wait: tuple[bytes, asyncio.Future[Any]] | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            future, _ = self._waiting.popleft()
            if future.done():  # its caller gave up waiting
                continue
            if isinstance(reply, hiredis.ReplyError):
                error = NoScriptError if str(reply).startswith("NOSCRIPT") else ResponseError
                future.set_exception(error(str(reply)))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._wrote()  # what was not written never will be: its commands fail below
        if self._timer is not None:
            self._timer.cancel()
        if self._wait is not None:
            _, waiting = self._wait
            self._wait = None
            if not waiting.done():
                waiting.set_exception(RedisConnectionError("connection to Redis lost"))
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(RedisConnectionError("connection to Redis lost"))

    def send(
        self, payload: bytes, replies: int, at_once: bool | None = None
    ) -> list[asyncio.Future[Any]]:
        """Send `payload` (`replies` commands) and return their replies' futures. `at_once`:
        written before this returns (after the commands of this turn not yet written, so the
        order holds); False: with this turn's other commands at its end; None (the default):
        at once only when nothing is in flight."""
        if self.lost or self._transport is None or self._transport.is_closing():
            raise RedisConnectionError("connection to Redis lost")
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in range(replies)]
        deadline = self._deadline(loop)
        if at_once is None:
            # Nothing in flight: likely a lone call, whose wait would only grow by waiting for
            # the end of the turn. The commands that follow it in this turn go out together.
            at_once = not self._waiting and not self._unsent and self._wait is None
        if at_once:
            if self._unsent or self._wait is not None:
                # Before it (the end of the turn's flush then finds nothing), in their order.
                payload = b"".join([*self._take_unsent(deadline), payload])
            self._waiting.extend((future, deadline) for future in futures)
            self._transport.write(payload)
            self._wrote()
        else:
            self._waiting.extend((future, deadline) for future in futures)
            self._schedule_flush(loop)
            self._unsent.append(payload)
        return futures

    def wait_after(self, payload: bytes) -> asyncio.Future[Any]:
        """`payload`, a WAIT or WAITAOF, written at the end of this turn of the event loop
        after every command sent on this connection so far: its reply's future. The callers
        of one turn share it (a wait answers for every write its connection made before it);
        a caller that does not await it leaves its outcome to be dropped."""
        if self.lost or self._transport is None or self._transport.is_closing():
            raise RedisConnectionError("connection to Redis lost")
        if self._wait is not None and self._wait[0] == payload:
            return self._wait[1]
        loop = asyncio.get_running_loop()
        if self._wait is not None:  # another wait (never, with one --durability): in its place
            self._unsent.append(self._wait[0])
            self._waiting.append((self._wait[1], self._deadline(loop)))
        waiting: asyncio.Future[Any] = loop.create_future()
        waiting.add_done_callback(_retrieve)
        self._wait = (payload, waiting)
        self._schedule_flush(loop)
        return waiting

    def _deadline(self, loop: asyncio.AbstractEventLoop) -> float:
        """The deadline of a command sent now; the timer set if none is."""
        if self._timeout is None:
            return float("inf")
        deadline = loop.time() + self._timeout
        if self._timer is None:
            self._timer = loop.call_at(deadline, self._expire)
        return deadline

    def _schedule_flush(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._flush)

    def _take_unsent(self, deadline: float) -> list[bytes]:
        """The commands sent and not yet written, then this turn's wait (its reply now
        awaited, after theirs, with `deadline`): taken, to be written at once."""
        unsent = self._unsent
        self._unsent = []
        if self._wait is not None:
            payload, waiting = self._wait
            self._wait = None
            unsent.append(payload)
            self._waiting.append((waiting, deadline))
        return unsent

    def _flush(self) -> None:
        """Write the commands of this turn of the event loop in one system call."""
        self._flushing = False
        if self.lost:
            return  # connection_lost failed them all
        # A deadline (and its timer) only for a wait: a flush of commands alone sets none.
        loop = asyncio.get_running_loop()
        unsent = self._take_unsent(self._deadline(loop) if self._wait is not None else 0.0)
        if unsent and self._transport is not None and not self._transport.is_closing():
            self._transport.write(unsent[0] if len(unsent) == 1 else b"".join(unsent))
        self._wrote()

    def written(self) -> asyncio.Future[None] | None:
        """A future done once the commands sent and not yet written are (at the end of this
        turn); None when there are none."""
        if not self._unsent and self._wait is None:
            return None
        if self._written is None:
            self._written = asyncio.get_running_loop().create_future()
        return self._written

    def _wrote(self) -> None:
        written, self._written = self._written, None
        if written is not None and not written.done():
            written.set_result(None)

    def _expire(self) -> None:
        """Fail the commands whose deadline passed; set the timer for the next deadline."""
        self._timer = None
        now = asyncio.get_running_loop().time()
        for future, deadline in self._waiting:
            if future.done():
                continue
            if deadline > now:
                # Deadlines grow in sending order: this is the earliest still to come.
                self._timer = asyncio.get_running_loop().call_at(deadline, self._expire)
                return
            future.set_exception(TimeoutError("Redis did not answer in time"))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class Commands:
    """The subset of redis-py's asyncio API the store uses
    (service/croupier/service/store/redis_client.py), on top of `execute_command`: shared by the
    lean client and the lean cluster client."""

    async def execute_command(self, *args: Arg) -> Any:
        raise NotImplementedError

    async def hmget(self, key: str, *fields: str) -> list[Any]:
        reply: list[Any] = await self.execute_command("HMGET", key, *fields)
        return reply

    async def get(self, key: str) -> bytes | None:
        reply: bytes | None = await self.execute_command("GET", key)
        return reply

    async def lrange(self, key: str, start: int, end: int) -> list[bytes]:
        reply: list[bytes] = await self.execute_command("LRANGE", key, start, end)
        return reply

    async def set(
        self, key: str, value: bytes, *, ex: int, nx: bool = False, get: bool = False
    ) -> bytes | None:
        args: list[Arg] = ["SET", key, value, "EX", ex]
        args += ["NX"] if nx else []
        args += ["GET"] if get else []
        reply: bytes | None = await self.execute_command(*args)
        return reply


class RespClient(Commands):
    """`RespClient("redis://host:port/db", timeout=2.0)`: see the module docstring (`timeout`:
    seconds each command may wait for its reply; None, the default: no deadline). The URL may
    be `redis://`, `rediss://` (TLS, `Endpoint`) or `unix://`."""

    def __init__(
        self, url: str, *, connect_timeout: float = 2.0, timeout: float | None = None
    ) -> None:
        self.endpoint = Endpoint.parse(url)
        self.address = self.endpoint.address  # for messages
        self._connect_timeout = connect_timeout
        self._timeout = timeout
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    async def _connection(self) -> _Protocol:
        protocol = self._protocol
        if protocol is not None and not protocol.lost:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._protocol is None or self._protocol.lost:
                self._protocol = await self._connect()
            return self._protocol

    async def _connect(self) -> _Protocol:
        protocol: _Protocol | None = None
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, protocol = await self.endpoint.open(lambda: _Protocol(self._timeout))
                for command in self.endpoint.setup:
                    await protocol.send(_pack(command), 1)[0]
        except BaseException as exc:
            if protocol is not None:  # AUTH or SELECT refused, or too late: not kept
                protocol.close()
            if isinstance(exc, OSError | TimeoutError):  # ssl.SSLError is an OSError
                raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
            raise
        return protocol

    async def execute_command(self, *args: Arg) -> Any:
        protocol = await self._connection()
        return await protocol.send(_pack(args), 1)[0]

    async def execute_then_wait(
        self, args: Sequence[Arg], wait: Sequence[Arg]
    ) -> tuple[Any, asyncio.Future[Any]]:
        """`args`, then, once its reply has come, `wait` (WAIT or WAITAOF) on the same
        connection, shared with the writes whose replies came in the same turn
        (`_Protocol.wait_after`): the command's reply, and the future of the wait's, for the
        caller to await when the reply says that something is to be confirmed. The command's
        error is raised.

        After the reply, not with the command: a wait that Redis reads in the turn of its loop
        that made the write finds it not yet in the append-only file (Redis writes and fsyncs
        it before its replies), blocks, and holds back every later command of this connection,
        which all the process's calls share, until its next turn: the moves of a process went
        at half the rate. Sent after the reply, WAITAOF finds the write fsynced (appendfsync
        always) and answers at once."""
        protocol = await self._connection()
        reply = await protocol.send(_pack(tuple(args)), 1)[0]
        try:
            return reply, protocol.wait_after(_pack(tuple(wait)))
        except RedisConnectionError as exc:  # lost since the reply: the write is unconfirmed
            failed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            failed.add_done_callback(_retrieve)
            failed.set_exception(exc)
            return reply, failed

    def send_nowait(self, *args: Arg) -> asyncio.Future[Any] | None:
        """Send one command without waiting for its reply, with the other commands of this turn
        of the event loop, at its end (`_Protocol.send`): its reply's future, or None when not
        connected (then `execute_command`)."""
        protocol = self._protocol
        if protocol is None or protocol.lost:
            return None
        return protocol.send(_pack(args), 1, at_once=False)[0]

    def written(self) -> asyncio.Future[None] | None:
        """A future done once the commands sent and not yet written are (at the end of this
        turn of the event loop); None when there are none."""
        protocol = self._protocol
        return None if protocol is None else protocol.written()

    async def execute_many(
        self, commands: Sequence[tuple[Arg, ...]], *, raise_errors: bool = True
    ) -> list[Any]:
        """Several commands in one write; their replies in order. A command's error is raised
        (the first one) or, with `raise_errors=False`, stands in the list in its place (the
        cluster client retries those that were redirected)."""
        protocol = await self._connection()
        payload = b"".join(_pack(command) for command in commands)
        futures = protocol.send(payload, len(commands))
        replies: list[Any] = []
        for future in futures:
            # Every reply is awaited, an error included: none is left unretrieved.
            try:
                replies.append(await future)
            except (ResponseError, RedisConnectionError, TimeoutError) as exc:
                replies.append(exc)
        if raise_errors:
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
        return replies

    async def ping(self) -> bool:
        return bool(await self.execute_command("PING") == b"PONG")

    def pipeline(self, transaction: bool = False) -> Pipeline:
        return Pipeline(self)

    def register_script(self, script: str) -> Callable[..., Awaitable[Any]]:
        sha = hashlib.sha1(script.encode()).hexdigest()

        async def run(keys: Sequence[str], args: Sequence[Arg]) -> Any:
            try:
                return await self.execute_command("EVALSHA", sha, len(keys), *keys, *args)
            except NoScriptError:  # not run: send the script itself (Redis caches it)
                return await self.execute_command("EVAL", script, len(keys), *keys, *args)

        return run

    async def aclose(self) -> None:
        if self._protocol is not None:
            self._protocol.close()
            self._protocol = None


def _retrieve(future: asyncio.Future[Any]) -> None:
    """A wait that no caller awaited may fail unseen: its error is taken here."""
    if not future.cancelled():
        future.exception()


class ExecutesMany(Protocol):
    """A client that sends commands in one write: the lean client, or the cluster client (which
    sends a pipeline of one game's keys to their slot's node)."""

    async def execute_many(self, commands: Sequence[tuple[Arg, ...]]) -> list[Any]: ...


class Pipeline:
    """Commands sent in one write, as redis-py's `pipeline(transaction=False)`."""

    def __init__(self, client: ExecutesMany) -> None:
        self._client = client
        self._commands: list[tuple[Arg, ...]] = []

    def hmget(self, key: str, *fields: str) -> None:
        self._commands.append(("HMGET", key, *fields))

    def get(self, key: str) -> None:
        self._commands.append(("GET", key))

    async def execute(self) -> list[Any]:
        commands, self._commands = self._commands, []
        return await self._client.execute_many(commands)

    async def __aenter__(self) -> Pipeline:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._commands.clear()


# Pub/sub: the watch streams' notifications.

Delivered = Callable[[str, bytes], None]  # a message: its channel, its payload
Confirmed = Callable[[str], None]  # a subscription Redis confirmed: its channel


class _Subscription(asyncio.Protocol):
    """A connection in subscribed mode: every reply Redis sends on it is a push (RESP2 arrays
    `[ssubscribe, channel, count]`, `[smessage, channel, payload]`, `[sunsubscribe, channel,
    count]`), parsed by hiredis as the commands' replies are, and handed to its `Subscriber`."""

    def __init__(self, owner: Subscriber) -> None:
        self._owner = owner
        self._reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost = False
        # The channels its opening subscribed, until their own `subscribe` call has seen it.
        self.opened_with: set[str] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            self._owner.pushed(self, reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._owner.dropped(self, exc)

    def write(self, payload: bytes) -> bool:
        if self.lost or self.transport is None or self.transport.is_closing():
            return False
        self.transport.write(payload)
        return True

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Subscriber:
    """One Redis connection holding this process's sharded subscriptions (SSUBSCRIBE) on one
    Redis, shared by every watcher: `delivered` gets each message, `confirmed` each channel
    whose subscription Redis confirmed (again after every reconnection).

    A lost connection (Redis restarted or failed over, the connection killed) is opened again
    after half a second, and again until it opens, and every channel still wanted subscribed
    again on it. What was published meanwhile is lost to this process: its watchers see the
    gap at the next notification and fill it from the move log. In a cluster, `on_lost` and
    `on_refused` hand that over to the cluster's subscriber, which finds the channels' masters
    again (service/croupier/service/store/resp_cluster.py)."""

    RECONNECT_DELAY = 0.5

    def __init__(
        self,
        endpoint: Endpoint,
        delivered: Delivered,
        confirmed: Confirmed,
        *,
        connect_timeout: float = 2.0,
    ) -> None:
        self.endpoint = endpoint
        self.address = endpoint.address
        self.channels: set[str] = set()  # wanted
        self._delivered = delivered
        self._confirmed = confirmed
        self._connect_timeout = connect_timeout
        self._protocol: _Subscription | None = None
        self._opening: asyncio.Future[_Subscription] | None = None
        self._reopening: asyncio.Task[None] | None = None
        # Unsubscriptions asked for and not yet confirmed: any other `sunsubscribe` is Redis's
        # own (in a cluster, the channel's slot has left this node).
        self._leaving: collections.Counter[str] = collections.Counter()
        self._closed = False
        # In a cluster: told of a lost connection, and of channels Redis refused or dropped.
        self.on_lost: Callable[[Subscriber], None] | None = None
        self.on_refused: Callable[[Subscriber, str, list[str]], None] | None = None

    @property
    def connected(self) -> bool:
        return self._protocol is not None and not self._protocol.lost

    async def subscribe(self, channel: str) -> None:
        """Ask Redis for `channel` (connecting first if need be; RedisConnectionError if that
        fails). Its confirmation comes to `confirmed`."""
        self.channels.add(channel)
        protocol = await self._connection()
        if channel in protocol.opened_with:  # subscribed by the connection's opening
            protocol.opened_with.discard(channel)
            return
        if not protocol.write(_pack(("SSUBSCRIBE", channel))):
            raise RedisConnectionError("connection to Redis lost")

    def unsubscribe(self, channel: str) -> None:
        if channel not in self.channels:
            return
        self.channels.discard(channel)
        protocol = self._protocol
        if protocol is not None:
            protocol.opened_with.discard(channel)
        if protocol is not None and protocol.write(_pack(("SUNSUBSCRIBE", channel))):
            self._leaving[channel] += 1

    async def _connection(self) -> _Subscription:
        protocol = self._protocol
        if protocol is not None and not protocol.lost:
            return protocol
        if self._opening is None or self._opening.done():
            self._opening = asyncio.ensure_future(self._open())
            self._opening.add_done_callback(_retrieve)
        # Shielded: a caller that stops waiting does not stop the others' connection.
        return await asyncio.shield(self._opening)

    async def _open(self) -> _Subscription:
        if self._closed:
            raise RedisConnectionError("subscriber closed")
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, protocol = await self.endpoint.open(lambda: _Subscription(self))
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
        # AUTH and SELECT first, then every channel wanted (a reconnection's).
        commands = list(self.endpoint.setup)
        protocol.opened_with = set(self.channels)
        # One SSUBSCRIBE a channel: one of several channels is refused unless they share a
        # slot (CROSSSLOT), in a cluster.
        commands += [("SSUBSCRIBE", channel) for channel in sorted(self.channels)]
        protocol.write(b"".join(_pack(command) for command in commands))
        self._protocol = protocol
        self._leaving.clear()
        return protocol

    def pushed(self, protocol: _Subscription, reply: Any) -> None:
        """What Redis sent on the connection `protocol`."""
        if protocol is not self._protocol:
            return  # a connection given up since
        if isinstance(reply, hiredis.ReplyError):
            self._refused(str(reply))
            return
        if not isinstance(reply, list) or len(reply) < 3:
            return  # AUTH's and SELECT's OK
        kind, channel = reply[0], _text(reply[1])
        if kind == b"smessage":
            self._delivered(channel, reply[2])
        elif kind == b"ssubscribe":
            if channel in self.channels:
                self._confirmed(channel)
        elif kind == b"sunsubscribe":
            if self._leaving[channel] > 0:
                self._leaving[channel] -= 1
                if not self._leaving[channel]:
                    del self._leaving[channel]
            elif channel in self.channels and self.on_refused is not None:
                # Redis dropped it: its slot left this node (a resharding, a failover).
                self.on_refused(self, "", [channel])

    def _refused(self, error: str) -> None:
        log.warning("pubsub_error", error="ResponseError", detail=error, address=self.address)
        if self.on_refused is not None:
            self.on_refused(self, error, sorted(self.channels))
        elif error.startswith(("NOAUTH", "WRONGPASS", "NOPERM")) and self._protocol is not None:
            self._protocol.close()  # connected again (and refused again) in a while

    def dropped(self, protocol: _Subscription, exc: Exception | None) -> None:
        """The connection `protocol` is lost."""
        if protocol is not self._protocol or self._closed:
            return
        self._protocol = None
        log.warning("pubsub_error", error="ConnectionError", detail=str(exc), address=self.address)
        if self.on_lost is not None:
            self.on_lost(self)
        elif self.channels and (self._reopening is None or self._reopening.done()):
            self._reopening = asyncio.ensure_future(self._reopen())

    async def _reopen(self) -> None:
        while self.channels and not self._closed:
            await asyncio.sleep(self.RECONNECT_DELAY)
            try:
                await self._connection()
                return
            except RedisConnectionError as exc:
                log.warning("pubsub_error", error="ConnectionError", detail=str(exc))

    async def reconnect(self) -> None:
        """Open the connection again now, subscribing every channel wanted (RedisConnectionError
        if it does not open): the cluster's subscriber, after a lost connection."""
        await self._connection()

    async def aclose(self) -> None:
        self._closed = True
        self.channels.clear()
        if self._reopening is not None:
            self._reopening.cancel()
        if self._protocol is not None:
            self._protocol.close()
            self._protocol = None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
