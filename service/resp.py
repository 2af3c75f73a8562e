"""A lean Redis client for the hot path of a single Redis: one connection per process, every
command written at once and its reply matched in order (Redis answers a connection's commands
in the order they arrive), replies parsed by hiredis. The commands sent during one turn of the
event loop (the moves of concurrent calls, to any games) go out in one write at its end: one
system call and one wake-up of Redis for all of them (group commit: docs/decisions.md); a
command sent while none is waiting for its reply goes out at once.

Why: redis-py's asyncio client takes a pooled connection, wraps each read and write in its own
timeout and parses in Python: several times this client's CPU per command. It offers the few
redis-py methods the store
uses (`execute_command`, `hmget`, `get`, `set`, `lrange`, `ping`, `pipeline`,
`register_script`), with the same meaning: the interface `RedisClient` of
service/redis_client.py, which redis-py's clients satisfy too.

Each command has a deadline (`timeout`): one timer per connection, set for the oldest command
still waiting, fails with TimeoutError the commands whose deadline passed (a timer per command,
as `asyncio.timeout` sets, cost more CPU than the rest of a command). A command that timed out,
or whose caller stopped waiting, leaves its reply to be read and dropped, so the connection
stays in step; a lost connection fails every waiting command with ConnectionError, and the next
command connects again.

A write can be followed by a wait (`execute_then_wait`: WAITAOF or WAIT, --durability in
service/durability.py) on the same connection, which is what those commands answer for: the
writes this connection made before them. The writes of one turn share one wait, written after
all of them: one wait a turn, not one per write, and a connection blocked in Redis by a wait
holds back one turn's commands at most.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any, cast

import hiredis
from redis.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

Arg = bytes | str | int | float

# hiredis's stub types the argument as a one-element tuple; it takes any number.
_pack = cast(Callable[[tuple[Arg, ...]], bytes], hiredis.pack_command)


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
    """The subset of redis-py's asyncio API the store uses (service/redis_client.py), on top
    of `execute_command`: shared by the lean client and the lean cluster client."""

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
    seconds each command may wait for its reply; None, the default: no deadline)."""

    def __init__(
        self, url: str, *, connect_timeout: float = 2.0, timeout: float | None = None
    ) -> None:
        options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        self._host = options.get("host", "127.0.0.1")
        self._port = int(options.get("port", 6379))
        self.address = f"{self._host}:{self._port}"  # for messages
        self._setup: list[tuple[Arg, ...]] = []
        if options.get("password"):
            user = options.get("username")
            self._setup.append(
                ("AUTH", user, options["password"]) if user else ("AUTH", options["password"])
            )
        if options.get("db"):
            self._setup.append(("SELECT", int(options["db"])))
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
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, protocol = await loop.create_connection(
                    lambda: _Protocol(self._timeout), self._host, self._port
                )
                for command in self._setup:
                    await protocol.send(_pack(command), 1)[0]
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
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


class Pipeline:
    """Commands sent in one write, as redis-py's `pipeline(transaction=False)`."""

    def __init__(self, client: RespClient) -> None:
        self._client = client
        self._commands: list[tuple[Arg, ...]] = []

    def hmget(self, key: str, *fields: str) -> None:
        self._commands.append(("HMGET", key, *fields))

    def get(self, key: str) -> None:
        self._commands.append(("GET", key))

    async def execute(self) -> list[Any]:
        return await self._client.execute_many(self._commands)

    async def __aenter__(self) -> Pipeline:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._commands.clear()
