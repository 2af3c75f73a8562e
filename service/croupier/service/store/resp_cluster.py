"""The store's Redis client (service/croupier/service/store/resp.py) for a Redis Cluster: one
`RespClient` per master, each command sent to the master of its first key's slot.

Why: redis-py's `RedisCluster` cost a move far more server CPU than the lean client does against
a single Redis (docs/decisions.md, "The lean client learns the cluster"): its slot and node lookup,
connection pool, command packing and a timeout context per command. This client keeps the lean
one's path (one connection per node, group commit, hiredis) and adds only a slot lookup.

- The slot map comes from `CLUSTER SLOTS`, asked of any known node (the URL's first), at the
  first command and again after a connection error or a `MOVED` (Redis's own redirection
  protocol: the cluster has moved a slot, by a resharding or a failover).
- A command goes to the master of the slot of its first key (`EVAL`/`EVALSHA`: the first of its
  KEYS), with the hash-tag rule: all of a game's keys carry `{id}` and so share one slot.
  Keyless commands go to any master; `ping` asks every master.
- `MOVED slot host:port`: that slot is now served there; the command is sent again there and
  the whole map is read again (once, whatever the number of commands that saw it).
- `ASK slot host:port` (a slot half-way through a migration, the key already moved): `ASKING`
  and the command, in one write, to that node, for that command only.
- `TRYAGAIN` and `CLUSTERDOWN` (a migration's multi-key command, a failover under way): sent
  again after a short wait.
- A lost connection: the map is read again and the command sent again, a few times with a
  growing wait (the commit token of store/redis_store.py makes a re-sent write safe). A command
  that timed out is not sent again: the caller's deadline is what bounds it.
- A pipeline (a game's keys: one slot) is one write to one node; the commands of one that met a
  redirection or a lost connection are sent again one by one, as above.
- A write followed by a wait (`execute_then_wait`, --durability) has its wait sent to the node
  that made the write, on the same connection: WAIT and WAITAOF answer for the writes of their
  own connection. A write that is sent again (a redirection, a lost connection) is followed by
  a wait again, on the node that takes it.
- `rediss+cluster://`: every node over TLS, with the URL's TLS options and credentials (Redis
  answers a TLS client's `CLUSTER SLOTS` with the nodes' TLS ports).

Pub/sub: `ClusterSubscriber`, at the end, subscribes each channel on its slot's master (a
`Subscriber` of store/resp.py per master) and moves it when the slot moves, told by this
client's map (`map_listeners`) and by the masters themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
from binascii import crc_hqx
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from croupier.service.store.keys import durability_barrier
from croupier.service.store.resp import (
    Arg,
    Commands,
    Confirmed,
    Delivered,
    Endpoint,
    Pipeline,
    RespClient,
    Subscriber,
)

log = structlog.get_logger(__name__)

SLOTS = 16384
# Attempts of one command through redirections and lost connections, and the waits between
# them (seconds): about 1.8 s in all, enough for a restarted node or a failover to answer.
ATTEMPTS = 7
BACKOFF = (0.0, 0.05, 0.1, 0.2, 0.4, 0.5, 0.5)
# Commands whose second argument is not a key.
KEYLESS = frozenset({"PING", "INFO", "CLUSTER", "SCRIPT", "TIME", "DBSIZE", "ECHO", "ASKING"})
SCRIPTS = frozenset({"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"})
# The pub/sub client's waits before placing dropped channels again (seconds), the half second
# of `Subscriber.RECONNECT_DELAY` after these; and how many readings of the map that still name
# the node that dropped a channel it waits out (about three seconds: a cluster's nodes learn of a
# failover within a second or two).
REPLACE_BACKOFF = (0.05, 0.1, 0.2, 0.4)
STALE_READINGS = 10

Address = tuple[str, int]


def key_slot(key: Arg) -> int:
    """The cluster slot of `key`: CRC16 of the key, or of its hash tag (`{…}`, non-empty)."""
    data = key if isinstance(key, bytes) else str(key).encode()
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    return crc_hqx(data, 0) % SLOTS


def command_slot(args: Sequence[Arg]) -> int | None:
    """The slot of a command's first key; None for a command without keys."""
    key = command_key(args)
    return None if key is None else key_slot(key)


def command_key(args: Sequence[Arg]) -> Arg | None:
    """A command's first key; None for a command without keys."""
    name = args[0]
    name = (name.decode() if isinstance(name, bytes) else str(name)).upper()
    if name in SCRIPTS:
        return args[3] if len(args) > 3 and int(args[2]) > 0 else None
    if name in KEYLESS or len(args) < 2:
        return None
    return args[1]


def redirection(error: ResponseError) -> tuple[str, int, Address] | None:
    """(`MOVED` or `ASK`, slot, address) of a redirection error; None for any other."""
    parts = str(error).split()
    if len(parts) != 3 or parts[0] not in ("MOVED", "ASK"):
        return None
    host, _, port = parts[2].rpartition(":")
    return parts[0], int(parts[1]), (host, int(port))


def retried(error: ResponseError) -> bool:
    """Errors of a cluster in change, that the same command may not meet again."""
    return str(error).startswith(("TRYAGAIN", "CLUSTERDOWN"))


def resent(error: Exception) -> bool:
    """Whether a command that met `error` is sent again (a redirection, a cluster in change, a
    lost connection); a script not cached (NOSCRIPT) is its caller's to handle."""
    if isinstance(error, RedisConnectionError):
        return True
    if isinstance(error, ResponseError) and not isinstance(error, NoScriptError):
        return redirection(error) is not None or retried(error)
    return False


class ClusterClient(Commands):
    """`ClusterClient("redis+cluster://host:port", timeout=2.0)`: see the module docstring.
    `timeout` and `connect_timeout` are each node client's
    (service/croupier/service/store/resp.py)."""

    def __init__(
        self, url: str, *, connect_timeout: float = 2.0, timeout: float | None = None
    ) -> None:
        plain = url.replace("+cluster", "", 1)
        seed = Endpoint.parse(plain)
        self._seed: Address = (seed.host, seed.port)
        # Every node is reached as the URL's: its credentials, TLS and TLS options.
        self._scheme = seed.scheme
        self._credentials = urlsplit(plain).netloc.rpartition("@")[0]
        self._query = f"?{seed.query}" if seed.query else ""
        self._connect_timeout = connect_timeout
        self._timeout = timeout
        self._nodes: dict[Address, RespClient] = {}
        self._slots: list[RespClient | None] = [None] * SLOTS
        self._masters: list[RespClient] = []
        self._refreshing: asyncio.Future[None] | None = None
        # Called (in the background) after each reading of the map but the first: the pub/sub
        # client (`ClusterSubscriber`) learns of a moved slot from it.
        self.map_listeners: list[Callable[[], Awaitable[Any]]] = []
        self._maps_read = 0
        self._listening: set[asyncio.Task[Any]] = set()
        # Commands sent by `send_nowait` that are following a redirection.
        self._following: set[asyncio.Future[Any]] = set()

    def _node(self, address: Address) -> RespClient:
        node = self._nodes.get(address)
        if node is None:
            auth = f"{self._credentials}@" if self._credentials else ""
            node = RespClient(
                f"{self._scheme}://{auth}{address[0]}:{address[1]}{self._query}",
                connect_timeout=self._connect_timeout,
                timeout=self._timeout,
            )
            self._nodes[address] = node
        return node

    # The slot map.

    async def refresh(self) -> None:
        """Read the slot map again (one reading at a time, shared by every caller)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._read_map())
            self._refreshing.add_done_callback(_retrieve)
        # Shielded: a caller that stops waiting does not stop the others' reading.
        await asyncio.shield(self._refreshing)

    def _refresh_later(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._read_map())
            self._refreshing.add_done_callback(_retrieve)

    async def _read_map(self) -> None:
        failure: Exception | None = None
        # The URL's node first, then every node seen since (one of them may be down).
        for address in dict.fromkeys([self._seed, *self._nodes]):
            try:
                reply = await self._node(address).execute_command("CLUSTER", "SLOTS")
            except (RedisConnectionError, TimeoutError, ResponseError) as exc:
                failure = exc
                continue
            self._install(reply, address[0])
            self._maps_read += 1
            if self._maps_read > 1:
                for listener in self.map_listeners:
                    task = asyncio.ensure_future(listener())
                    self._listening.add(task)
                    task.add_done_callback(self._listened)
            return
        raise RedisConnectionError(f"no node of the Redis Cluster answers: {failure}")

    def _listened(self, task: asyncio.Task[Any]) -> None:
        self._listening.discard(task)
        if not task.cancelled():
            # Taken, not raised: a listener's client reads its map again at its next error.
            task.exception()

    def _install(self, reply: list[Any], asked_host: str) -> None:
        slots: list[RespClient | None] = [None] * SLOTS
        masters: dict[Address, RespClient] = {}
        for start, end, master, *_replicas in reply:
            host = master[0].decode() if isinstance(master[0], bytes) else str(master[0])
            # An empty or unknown host: the node we asked (Redis's own rule).
            address = (host if host and host != "?" else asked_host, int(master[1]))
            node = masters.setdefault(address, self._node(address))
            slots[int(start) : int(end) + 1] = [node] * (int(end) - int(start) + 1)
        self._slots = slots
        self._masters = list(masters.values())

    async def _node_of(self, slot: int | None) -> RespClient:
        node = self._slots[slot] if slot is not None else None
        if node is None:
            if slot is None and self._masters:
                return self._masters[0]
            await self.refresh()
            node = self._slots[slot] if slot is not None else None
            if node is None:
                if slot is None and self._masters:
                    return self._masters[0]
                raise RedisConnectionError(f"no master of the Redis Cluster serves slot {slot}")
        return node

    def node_of_slot(self, slot: int) -> RespClient | None:
        """The master of `slot` as the map read last has it (None: not known)."""
        return self._slots[slot]

    async def node_of_key(self, key: Arg) -> RespClient:
        """The master of `key`'s slot, the map read first if it does not know it."""
        return await self._node_of(key_slot(key))

    # Commands.

    async def execute_command(self, *args: Arg) -> Any:
        slot = command_slot(args)
        node = self._slots[slot] if slot is not None else None
        if node is not None:
            # The hot path: the slot's master known, the command sent as the lean client does.
            try:
                return await node.execute_command(*args)
            except (ResponseError, RedisConnectionError) as exc:
                if not resent(exc):
                    raise
                return await self._send(args, slot, exc)
        return await self._send(args, slot, None)

    def send_nowait(self, *args: Arg) -> asyncio.Future[Any] | None:
        """As the lean client's `send_nowait`, to the slot's master; None while that master is
        unknown or not connected. A redirection or a lost connection is followed as
        `execute_command` follows it, in a task of its own (rare: after a resharding or a
        failover), whose result the returned future takes."""
        slot = command_slot(args)
        node = self._slots[slot] if slot is not None else None
        sent = None if node is None else node.send_nowait(*args)
        if sent is None:
            return None
        answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def follow(task: asyncio.Future[Any]) -> None:
            self._following.discard(task)
            _settle(answered, task)

        def replied(future: asyncio.Future[Any]) -> None:
            error = None if future.cancelled() else future.exception()
            if not isinstance(error, Exception) or not resent(error):
                _settle(answered, future)
                return
            task = asyncio.ensure_future(self._send(args, slot, error))
            self._following.add(task)
            task.add_done_callback(follow)

        sent.add_done_callback(replied)
        return answered

    def written(self, key: Arg) -> asyncio.Future[None] | None:
        """As the lean client's `written`, for the connection to the master of `key`'s slot."""
        node = self._slots[key_slot(key)]
        return None if node is None else node.written()

    async def _send(self, args: tuple[Arg, ...], slot: int | None, error: Exception | None) -> Any:
        """`args` through redirections and lost connections; `error`: the first attempt's."""
        reply, _ = await self._send_on(args, slot, error)
        return reply

    async def _send_on(
        self, args: tuple[Arg, ...], slot: int | None, error: Exception | None
    ) -> tuple[Any, RespClient]:
        """`_send`, and the node that answered."""
        asking: RespClient | None = None
        for attempt in range(ATTEMPTS):
            if error is not None:
                asking = await self._recover(error, slot, attempt)
            try:
                if asking is not None:
                    return (await asking.execute_many([("ASKING",), args]))[1], asking
                node = await self._node_of(slot)
                return await node.execute_command(*args), node
            except (ResponseError, RedisConnectionError) as exc:
                if not resent(exc):
                    raise
                error = exc
        assert error is not None
        raise error

    async def execute_then_wait(
        self, args: Sequence[Arg], wait: Sequence[Arg]
    ) -> tuple[Any, asyncio.Future[Any]]:
        """As the lean client's `execute_then_wait`, on the master of the command's slot: the
        wait goes to the node that made the write, on its connection (module docstring)."""
        command = tuple(args)
        slot = command_slot(command)
        node = self._slots[slot] if slot is not None else None
        if node is not None:
            try:
                return await node.execute_then_wait(command, wait)
            except (ResponseError, RedisConnectionError) as exc:
                if not resent(exc):
                    raise
                error: Exception | None = exc
        else:
            error = None
        # Rare (a slot moved, a node restarted): the write as `execute_command` sends it, then a
        # wait of its own on the node that took it, after a write in the same slot: the
        # connection that made the write may have been replaced since, and a wait answers for
        # its own connection's writes only (Redis's log is in order: one covers those before).
        reply, node = await self._send_on(command, slot, error)
        key = command_key(command)
        barrier: tuple[Arg, ...] = (
            ("PING",) if key is None else ("SET", durability_barrier(_text(key)), "1", "PX", 1)
        )
        _, waiting = await node.execute_then_wait(barrier, wait)
        return reply, waiting

    async def masters(self) -> list[RespClient]:
        """The client of every master (the slot map read first if it is not yet)."""
        if not self._masters:
            await self.refresh()
        return list(self._masters)

    async def _recover(self, error: Exception, slot: int | None, attempt: int) -> RespClient | None:
        """What `error` asks before the next attempt; the node to send ASKING to, if any."""
        if attempt == ATTEMPTS - 1:
            raise error
        if isinstance(error, ResponseError):
            redirected = redirection(error)
            if redirected is not None:
                kind, moved_slot, address = redirected
                if kind == "ASK":
                    return self._node(address)
                self._slots[moved_slot] = self._node(address)
                self._refresh_later()
                return None
        await asyncio.sleep(BACKOFF[attempt])
        if isinstance(error, RedisConnectionError) or str(error).startswith("CLUSTERDOWN"):
            # No node answering: the next attempt fails, or finds one back.
            with contextlib.suppress(RedisConnectionError):
                await self.refresh()
        return None

    async def execute_many(self, commands: Sequence[tuple[Arg, ...]]) -> list[Any]:
        """Several commands; one write when they share a node (a game's keys do)."""
        slots = [command_slot(command) for command in commands]
        nodes = [self._slots[slot] if slot is not None else None for slot in slots]
        first = nodes[0]
        if first is None or any(node is not first for node in nodes):
            # Several nodes (or a map not read yet): each command on its own way.
            return list(await asyncio.gather(*(self.execute_command(*c) for c in commands)))
        replies: list[Any]
        try:
            replies = await first.execute_many(commands, raise_errors=False)
        except RedisConnectionError as exc:
            replies = [exc] * len(commands)
        for index, reply in enumerate(replies):
            if isinstance(reply, Exception):
                if not resent(reply):
                    raise reply
                replies[index] = await self._send(commands[index], slots[index], reply)
        return replies

    async def ping(self) -> bool:
        """Every master answers (a health check of the whole store)."""
        if not self._masters:
            await self.refresh()
        replies = await asyncio.gather(*(master.ping() for master in self._masters))
        return all(replies)

    def pipeline(self, transaction: bool = False) -> Pipeline:
        return Pipeline(self)

    def register_script(self, script: str) -> Callable[..., Awaitable[Any]]:
        sha = hashlib.sha1(script.encode()).hexdigest()

        async def run(keys: Sequence[str], args: Sequence[Arg]) -> Any:
            try:
                return await self.execute_command("EVALSHA", sha, len(keys), *keys, *args)
            except NoScriptError:  # not on that node yet: send the script itself (it caches it)
                return await self.execute_command("EVAL", script, len(keys), *keys, *args)

        return run

    async def aclose(self) -> None:
        for node in self._nodes.values():
            await node.aclose()
        self._nodes.clear()
        self._slots = [None] * SLOTS
        self._masters = []


def _text(key: Arg) -> str:
    return key.decode() if isinstance(key, bytes) else str(key)


def _retrieve(future: asyncio.Future[None]) -> None:
    """A reading of the map nobody waited for may fail unseen: its error is taken here."""
    if not future.cancelled():
        future.exception()


def _settle(future: asyncio.Future[Any], outcome: asyncio.Future[Any]) -> None:
    """Give `future` the result (or error) of the finished `outcome`."""
    if future.done():
        return
    if outcome.cancelled():
        future.cancel()
    elif (error := outcome.exception()) is not None:
        future.set_exception(error)
    else:
        future.set_result(outcome.result())


class ClusterSubscriber:
    """The sharded subscriptions of a cluster: each channel SSUBSCRIBEd on the master of its slot,
    by a `Subscriber` (service/croupier/service/store/resp.py) per master, as the cluster client's
    slot map (`client`) has it.

    Where a slot moves (a resharding, a failover), its channels follow: whenever the client
    reads a new map (it does after a MOVED, or a lost connection), each channel whose master
    changed is unsubscribed from the old master and subscribed on the new one; a master that
    drops a channel itself (its slot left it: Redis sends `sunsubscribe`), refuses one
    (`MOVED`), or whose connection is lost, has the map read again and its channels placed
    again, with a growing wait (up to half a second) until they are. As with a single Redis,
    what was published meanwhile is lost to this process, and its watchers fill the gap from the
    move log.

    The map read just after a node dropped a channel may come from a node that has not yet heard
    of the failover or resharding, and still name the node that dropped it: that reading is not
    followed (the node, a replica now, would take the subscription again), the map is read again
    until it names another master, for a few seconds at most (the slot may also have come back).
    A subscription is confirmed to the caller only from the node the map names the slot's
    master; one confirmed elsewhere (the map changed meanwhile) is placed again."""

    def __init__(
        self,
        client: ClusterClient,
        delivered: Delivered,
        confirmed: Confirmed,
        *,
        connect_timeout: float = 2.0,
    ) -> None:
        self._client = client
        self._delivered = delivered
        self._confirmed = confirmed
        self._connect_timeout = connect_timeout
        self._nodes: dict[str, Subscriber] = {}  # by address
        self._placed: dict[str, Subscriber] = {}  # each channel's
        self._replacing: asyncio.Task[None] | None = None
        self._stray: set[str] = set()  # channels to place again
        # Channels a node dropped or redirected: that node's address, and the readings of the
        # map that still named it since.
        self._left: dict[str, tuple[str, int]] = {}
        client.map_listeners.append(self._follow)

    async def subscribe(self, channel: str) -> None:
        node = await self._client.node_of_key(channel)
        subscriber = self._subscriber(node)
        previous = self._placed.get(channel)
        if previous is not None and previous is not subscriber:
            previous.unsubscribe(channel)
        self._placed[channel] = subscriber
        await subscriber.subscribe(channel)

    def unsubscribe(self, channel: str) -> None:
        self._stray.discard(channel)
        self._left.pop(channel, None)
        subscriber = self._placed.pop(channel, None)
        if subscriber is not None:
            subscriber.unsubscribe(channel)

    def _subscriber(self, node: RespClient) -> Subscriber:
        subscriber = self._nodes.get(node.address)
        if subscriber is None:
            subscriber = Subscriber(
                node.endpoint,
                self._delivered,
                functools.partial(self._confirm, node.address),
                connect_timeout=self._connect_timeout,
            )
            subscriber.on_lost = self._lost
            subscriber.on_refused = self._refused
            self._nodes[node.address] = subscriber
        return subscriber

    async def _follow(self) -> None:
        """A new slot map: each channel to its slot's master."""
        for channel, subscriber in list(self._placed.items()):
            node = self._client.node_of_slot(key_slot(channel))
            if node is not None and node.address != subscriber.address:
                self._stray.add(channel)
        if self._stray:
            self._replace_later(0.0)

    def _confirm(self, address: str, channel: str) -> None:
        """A subscription confirmed by the node at `address`: handed on if that node is the
        slot's master as the map has it, placed again otherwise."""
        subscriber = self._placed.get(channel)
        if subscriber is None or subscriber.address != address:
            return  # moved or given up since; its new place confirms it
        node = self._client.node_of_slot(key_slot(channel))
        if node is not None and node.address != address:
            # Not the master (the map changed while the subscription was on its way): a
            # replica takes a subscription too, but it is not where it is wanted.
            self._stray.add(channel)
            self._replace_later(0.0, refresh=True)
            return
        self._confirmed(channel)

    def _lost(self, subscriber: Subscriber) -> None:
        self._stray.update(c for c, s in self._placed.items() if s is subscriber)
        self._replace_later(Subscriber.RECONNECT_DELAY, refresh=True)

    def _refused(self, subscriber: Subscriber, error: str, channels: list[str]) -> None:
        moved = redirection(ResponseError(error)) if error else None
        for channel in channels:
            if self._placed.get(channel) is not subscriber:
                continue
            self._stray.add(channel)
            # Dropped (`sunsubscribe`, no error) or redirected: the slot has left that node,
            # whatever a map read soon after still says. Another error (the whole connection's
            # channels) says nothing of where they belong.
            if not error or (moved is not None and moved[1] == key_slot(channel)):
                self._left[channel] = (subscriber.address, 0)
        self._replace_later(Subscriber.RECONNECT_DELAY if error else 0.0, refresh=True)

    def _replace_later(self, delay: float, *, refresh: bool = False) -> None:
        if self._replacing is None or self._replacing.done():
            self._replacing = asyncio.ensure_future(self._replace(delay, refresh))

    async def _replace(self, delay: float, refresh: bool) -> None:
        """Subscribe the stray channels on their masters, with a growing wait until done."""
        waits = iter(REPLACE_BACKOFF)
        while self._stray:
            await asyncio.sleep(delay)
            delay = next(waits, Subscriber.RECONNECT_DELAY)
            try:
                if refresh:
                    await self._client.refresh()
                for channel in sorted(self._stray):
                    if channel not in self._placed:
                        self._stray.discard(channel)
                        self._left.pop(channel, None)
                    elif self._stale(channel):
                        refresh = True  # read again, after the next wait
                    else:
                        await self.subscribe(channel)
                        self._stray.discard(channel)
                        self._left.pop(channel, None)
            except (RedisConnectionError, ResponseError, TimeoutError) as exc:
                log.warning("pubsub_error", error=type(exc).__name__, detail=str(exc))
                refresh = True

    def _stale(self, channel: str) -> bool:
        """Whether the map still names, as `channel`'s master, the node that dropped it: a map
        older than the failover or resharding that made it drop it. Believed after
        `STALE_READINGS` readings (the slot came back to that node)."""
        left = self._left.get(channel)
        node = self._client.node_of_slot(key_slot(channel))
        if left is None or node is None or node.address != left[0]:
            return False
        address, readings = left
        if readings + 1 >= STALE_READINGS:
            return False
        self._left[channel] = (address, readings + 1)
        return True

    async def aclose(self) -> None:
        if self._follow in self._client.map_listeners:
            self._client.map_listeners.remove(self._follow)
        if self._replacing is not None:
            self._replacing.cancel()
        for subscriber in self._nodes.values():
            await subscriber.aclose()
        self._nodes.clear()
        self._placed.clear()
