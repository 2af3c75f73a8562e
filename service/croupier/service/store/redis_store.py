"""The Redis store, for a single Redis or a Redis Cluster (`redis+cluster://host:port`), over any
URL service/croupier/service/store/redis_client.py takes (TLS and Unix sockets included): the same
client runs it.

Each game is a hash {v: version, s: StoredGame bytes, t: token of the last write} plus a move-log
list, idempotency records and a sharded pub/sub channel, all under the game's hash tag
(croupier.service.store.keys), so in a cluster they live in one slot and one script can touch them
all.

A move is written by one Lua script (one round trip) that compares the version and, only if it
matches and the move's request id has no record yet, writes the state, appends to the log,
keeps the idempotency record, refreshes the expiry and publishes the notification; otherwise it
answers with the game as it is now, so the caller can decide again without another read. Each
write carries a unique token (a random per-process prefix and a counter): if the client
re-sends a script whose first answer was lost (a timeout, a failover), the script recognises its
own earlier write and reports success instead of a conflict, so no move is applied twice.

With --durability aof or replicas:N (service/croupier/service/store/durability.py) every write a
caller is answered for is followed by a wait on its own connection (WAITAOF or WAIT), and an answer
that comes from what an earlier call wrote (a request id's record) by a write of the answering
connection and a wait: the write is confirmed durable, or NotDurable is raised.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any, ParamSpec, TypeVar

import structlog
from redis.exceptions import NoScriptError, RedisError

from croupier.service.store import keys
from croupier.service.store.durability import NONE, Durability
from croupier.service.store.fanout import Fanout, WatchQueue
from croupier.service.store.protocol import (
    WRITTEN,
    Commit,
    CommitResult,
    FeedEntry,
    IndexEntry,
    NotDurable,
    Snapshot,
    StoreUnavailable,
    Update,
    merge_page,
)
from croupier.service.store.redis_client import (
    PubSub,
    RedisClient,
    connect,
    is_cluster_url,
    subscriber,
)
from croupier.service.store.resp_cluster import ClusterClient

log = structlog.get_logger(__name__)


# KEYS: game hash, log list, channel[, request record][, due index][, feed stream]
# ARGV: expected version, new version, state, log entry, ttl, notification head, token,
#       deadline (Unix ms, 0: none), record ('': none), record ttl, the game's next turn-clock
#       deadline for the due index ('': none), the game id, feed max length, then the feed
#       entries, each its number of arguments and those (field, value, field, value...)
# Returns 1 when the move is written with its entries (or was, by this same commit sent before:
# then nothing is written again, nor a refusal told again, but its token is set again: a write
# of this connection, which --durability's wait after it then covers); {feed entries lost, due entry
# refused (1) or not (0)} when written but Redis refused some of its entries (redis.pcall: a
# refused entry never refuses the move); 0 when the
# deadline has passed (by Redis's clock); otherwise {state, version, record} of the game as it
# is now (false when absent): a request already applied is never applied again, and a caller
# whose version was stale decides again from it. The due-index and feed entries come only on
# a single Redis: in a cluster their keys are in other slots, and `RedisStore.commit` sends them
# around the script.
COMMIT_SCRIPT = """
local current = redis.call('HMGET', KEYS[1], 'v', 't')
if current[1] == ARGV[2] and current[2] == ARGV[7] then
  redis.call('HSET', KEYS[1], 't', ARGV[7])
  return 1
end
if ARGV[8] ~= '0' then
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > tonumber(ARGV[8]) then
    return 0
  end
end
local k = 4
local record_key, due_key
if ARGV[9] ~= '' then record_key = KEYS[k]; k = k + 1 end
if ARGV[11] ~= '' then due_key = KEYS[k]; k = k + 1 end
local kept = false
if record_key then kept = redis.call('GET', record_key) end
if kept or current[1] ~= ARGV[1] then
  return {redis.call('HGET', KEYS[1], 's'), current[1], kept}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 't', ARGV[7])
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
if record_key then redis.call('SET', record_key, ARGV[9], 'EX', ARGV[10]) end
redis.call('SPUBLISH', KEYS[3], ARGV[6] .. ARGV[3])
local unindexed = 0
if due_key then
  local added = redis.pcall('ZADD', due_key, ARGV[11], ARGV[12])
  if type(added) == 'table' and added.err then unindexed = 1 end
end
local lost, i = 0, 14
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local added = redis.pcall('XADD', KEYS[k], 'MAXLEN', '~', ARGV[13], '*',
    unpack(ARGV, i + 1, i + n))
  if type(added) == 'table' and added.err then lost = lost + 1 end
  i = i + n + 1
end
if lost > 0 or unindexed > 0 then return {lost, unindexed} end
return 1
"""

TOO_LATE = CommitResult(False, too_late=True)
# The page-token key made by the first replica is kept this long (ten years: as good as for
# ever; a deployment that wants to rotate it sets --page-token-secret).
SECRET_TTL_SECONDS = 10 * 365 * 24 * 3600


def commit_result(reply: Any) -> CommitResult:
    """What COMMIT_SCRIPT's (or UPDATE_SCRIPT's) reply says."""
    if reply == 1:
        return WRITTEN
    if reply == 0:
        return TOO_LATE
    if len(reply) == 2:
        # Redis's refusal of a ZADD or an XADD (a key of another type) is a ResponseError, as
        # it would be for a command of its own.
        lost, unindexed = reply
        return CommitResult(
            True, feed_lost=int(lost), due_refused=bool(unindexed), refusal="ResponseError"
        )
    data, version, record = reply
    if data is None or version is None:
        return CommitResult(False)
    return CommitResult(False, Snapshot(int(version), data, record))


def commit_arguments(commit: Commit, token: str, *, entries: bool) -> tuple[list[str], list[Any]]:
    """COMMIT_SCRIPT's KEYS and ARGV for `commit`, written with the unique `token`, with the
    commit's due-index and feed entries if `entries` (the feed entries share the game's
    stream and its cap)."""
    game_id = commit.game_id
    script_keys = [keys.game(game_id), keys.log(game_id), keys.channel(game_id)]
    record: bytes | str = ""  # none
    record_ttl = 0
    # A record is never empty (it holds the response), so '' says "none" to the script, which
    # finds the keys that follow by it.
    if commit.request_id is not None and commit.record:
        script_keys.append(keys.request(game_id, commit.request_id))
        record, record_ttl = commit.record, commit.record_ttl_seconds
    due: int | str = ""  # none
    if entries and commit.due is not None:
        script_keys.append(commit.due.key)
        due = commit.due.score
    args: list[Any] = [
        commit.expected_version,
        commit.expected_version + 1,
        commit.data,
        commit.log_entry,
        commit.ttl_seconds,
        commit.notification_head,
        token,
        commit.deadline_ms,
        record,
        record_ttl,
        due,
        game_id,
    ]
    if not entries or not commit.feed:
        return script_keys, [*args, 0]
    script_keys.append(commit.feed[0].stream)
    args.append(commit.feed[0].max_len)
    for entry in commit.feed:
        args += [2 * len(entry.fields) + 2, *_stream_fields(entry)]
    return script_keys, args


# KEYS: game hash, log list; ARGV: state, ttl
CREATE_SCRIPT = """
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'v', '1', 's', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: game hash, log list. The game and its whole move log as one atomic read: {version,
# state, log} (false when absent), so the log never holds a move the state does not.
LOAD_WITH_LOG_SCRIPT = """
local game = redis.call('HMGET', KEYS[1], 'v', 's')
if not game[1] or not game[2] then return false end
return {game[1], game[2], redis.call('LRANGE', KEYS[2], 0, -1)}
"""

# KEYS: game hash, log list, channel[, request record]; ARGV: expected version, new version,
# state, ttl, notification head, token[, record, record ttl]. A write that is not a move (a
# seat joined or left, a credential reissued, a rematch named): the same compare-and-set as a
# move's, without a log entry, and the same replies as COMMIT_SCRIPT's. Bumping the version is
# what makes every other write decided on the older state (a move under a revoked credential
# included) fail and decide again. A JoinGame with a request id keeps its record in the same
# step, and is refused (answered with the record) when the record is there: a seat is claimed
# once per request id, whichever replica the retry reaches.
UPDATE_SCRIPT = """
local current = redis.call('HMGET', KEYS[1], 'v', 't')
if current[1] == ARGV[2] and current[2] == ARGV[6] then
  redis.call('HSET', KEYS[1], 't', ARGV[6])
  return 1
end
local kept = false
if #KEYS == 4 then kept = redis.call('GET', KEYS[4]) end
if kept or current[1] ~= ARGV[1] then
  return {redis.call('HGET', KEYS[1], 's'), current[1], kept}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 't', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if #KEYS == 4 then redis.call('SET', KEYS[4], ARGV[7], 'EX', ARGV[8]) end
redis.call('SPUBLISH', KEYS[3], ARGV[5] .. ARGV[3])
return 1
"""

P = ParamSpec("P")
T = TypeVar("T")


def _store_errors(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Every Redis failure (a deadline passed included) becomes StoreUnavailable."""

    @functools.wraps(method)
    async def translated(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        except TimeoutError as exc:
            raise StoreUnavailable("timeout") from exc

    return translated


class RedisStore:
    def __init__(self, url: str, *, timeout: float = 2.0, durability: Durability = NONE) -> None:
        # On a single Redis a move's due-index and feed entries are written by its commit
        # script: no command and no reply of their own (docs/performance.md). In a cluster
        # their keys are in other slots than the game's: they are sent around it (`commit`).
        self.cluster = is_cluster_url(url)
        self._redis: RedisClient = connect(url, timeout)
        self._commit = self._redis.register_script(COMMIT_SCRIPT)
        # Commit tokens: unique per process by a random prefix, per commit by a counter (no
        # system call for fresh random bytes on every move).
        self._token_prefix = secrets.token_hex(8)
        self._token_numbers = itertools.count()
        self._create = self._redis.register_script(CREATE_SCRIPT)
        self._load_with_log = self._redis.register_script(LOAD_WITH_LOG_SCRIPT)
        self._update = self._redis.register_script(UPDATE_SCRIPT)
        # --durability: the wait that follows each write on its connection.
        self._durability = durability
        self._timeout = timeout
        self._wait: tuple[str | int, ...] | None = None
        if durability.waits:
            self._wait = durability.wait_command(timeout)
        # The watch streams: sharded pub/sub, one connection per Redis node, shared by every
        # watcher of this process.
        self._fanout = Fanout()
        self._confirmed: dict[str, asyncio.Event] = {}
        self._subscribing: dict[str, asyncio.Future[None]] = {}
        self._pubsub: PubSub = subscriber(
            self._redis, self._fanout.publish, self._subscription_confirmed, timeout
        )

    @_store_errors
    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        if request_id:
            # One write, one slot (the hash tag): the game and the request's record.
            pipe = self._redis.pipeline(transaction=False)
            pipe.hmget(keys.game(game_id), "v", "s")
            pipe.get(keys.request(game_id, request_id))
            (version, data), record = await pipe.execute()
        else:
            version, data = await self._redis.hmget(keys.game(game_id), "v", "s")
            record = None
        if version is None or data is None:
            return None
        if record is not None and self._wait is not None:
            # The caller answers with the record: it must be durable first.
            await self._barrier(keys.game(game_id))
        return Snapshot(int(version), data, record)

    @_store_errors
    async def load_with_log(self, game_id: str) -> tuple[Snapshot, list[bytes]] | None:
        reply = await self._load_with_log(keys=[keys.game(game_id), keys.log(game_id)], args=[])
        if not reply:
            return None
        version, data, entries = reply
        return Snapshot(int(version), data, None), list(entries)

    @_store_errors
    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        script_keys = [keys.game(game_id), keys.log(game_id)]
        if self._wait is None:
            await self._create(keys=script_keys, args=[data, ttl_seconds])
            return
        _, waiting = await self._durable_script(CREATE_SCRIPT, script_keys, [data, ttl_seconds])
        await self._confirm(waiting)

    @_store_errors
    async def commit(self, commit: Commit) -> CommitResult:
        if not self.cluster or (commit.due is None and not commit.feed):
            script_keys, args = commit_arguments(commit, self._token(), entries=True)
            if self._wait is None:  # the hot path: one script, nothing around it
                return commit_result(await self._commit(keys=script_keys, args=args))
            return await self._run_commit(script_keys, args)
        # A cluster: the deadline ahead of the commit, written to its master's connection
        # before the commit is sent; the feed entries after it, once it is written. Neither
        # waited for: their replies come to `later` (Commit.due, CommitResult.later).
        assert isinstance(self._redis, ClusterClient)
        due = None if commit.due is None else await self._ahead(self._redis, commit.due)
        script_keys, args = commit_arguments(commit, self._token(), entries=False)
        try:
            result = await self._run_commit(script_keys, args)
        except BaseException:
            if due is not None:  # a hint that stays, or not; the move's failure is what counts
                due.add_done_callback(_retrieve)
            raise
        feed: list[asyncio.Future[Any]] = []
        if result.written:
            feed = [self._sent(self._redis, *_xadd(entry)) for entry in commit.feed]
        if due is None and not feed:
            return result
        # Its own result: WRITTEN and the others are shared.
        return CommitResult(
            result.written, result.current, result.too_late, later=_later(due, feed)
        )

    async def _run_commit(self, script_keys: list[str], args: list[Any]) -> CommitResult:
        if self._wait is None:
            return commit_result(await self._commit(keys=script_keys, args=args))
        reply, waiting = await self._durable_script(COMMIT_SCRIPT, script_keys, args)
        result = commit_result(reply)
        await self._settle(result, waiting, script_keys[0])
        return result

    async def _ahead(self, client: ClusterClient, entry: IndexEntry) -> asyncio.Future[Any]:
        """The ZADD of `entry`, on its way to Redis when this returns: written to its master's
        connection, with this turn's other commands there (the deadlines of a turn's moves share
        one write of each master's, not one each); sent and answered first while that master is
        not connected yet. Its reply's future."""
        args = ("ZADD", entry.key, entry.score, entry.game_id)
        sent = client.send_nowait(*args)
        if sent is None:
            answered = asyncio.ensure_future(client.execute_command(*args))
            await asyncio.wait([answered])
            return answered
        written = client.written(entry.key)
        if written is not None:
            await written
        return sent

    @staticmethod
    def _sent(client: ClusterClient, *args: Any) -> asyncio.Future[Any]:
        """`args` sent without waiting: its reply's future."""
        sent = client.send_nowait(*args)
        if sent is None:  # its master not connected yet
            return asyncio.ensure_future(client.execute_command(*args))
        return sent

    def _token(self) -> str:
        return f"{self._token_prefix}{next(self._token_numbers):x}"

    @_store_errors
    async def update(self, update: Update) -> CommitResult:
        game_id = update.game_id
        script_keys = [keys.game(game_id), keys.log(game_id), keys.channel(game_id)]
        args: list[Any] = [
            update.expected_version,
            update.expected_version + 1,
            update.data,
            update.ttl_seconds,
            update.notification_head,
            self._token(),
        ]
        if update.request_id is not None and update.record is not None:
            script_keys.append(keys.request(game_id, update.request_id))
            args += [update.record, update.record_ttl_seconds]
        if self._wait is None:
            return commit_result(await self._update(keys=script_keys, args=args))
        reply, waiting = await self._durable_script(UPDATE_SCRIPT, script_keys, args)
        result = commit_result(reply)
        await self._settle(result, waiting, script_keys[0])
        return result

    # --durability: each write followed by its wait, on the write's own connection.

    async def _durable_script(
        self, script: str, script_keys: Sequence[str], args: Sequence[Any]
    ) -> tuple[Any, asyncio.Future[Any]]:
        """`script` run (EVALSHA, or EVAL when Redis has not cached it), followed by the wait:
        its reply, and the wait's future (`_confirm`)."""
        assert self._wait is not None
        sha = _sha(script)
        try:
            return await self._redis.execute_then_wait(
                ("EVALSHA", sha, len(script_keys), *script_keys, *args), self._wait
            )
        except NoScriptError:
            return await self._redis.execute_then_wait(
                ("EVAL", script, len(script_keys), *script_keys, *args), self._wait
            )

    async def _durable_command(self, *args: Any) -> tuple[Any, asyncio.Future[Any]]:
        assert self._wait is not None
        return await self._redis.execute_then_wait(args, self._wait)

    async def _confirm(self, waiting: Awaitable[Any]) -> None:
        """The wait's reply confirms the writes before it, or NotDurable."""
        try:
            reply = await waiting
        except (RedisError, TimeoutError) as exc:
            # Redis refused the wait (its append-only file turned off since start-up, a
            # primary turned replica), or it did not answer in time.
            raise NotDurable(
                f"the write is made but not confirmed durable (--durability {self._durability}):"
                f" {type(exc).__name__}: {exc}"
            ) from exc
        if not self._durability.confirmed(reply):
            what = (
                "in the append-only file on disk"
                if self._durability.kind == "aof"
                else f"on {reply} of {self._durability.replicas} replicas"
            )
            raise NotDurable(
                f"the write is made but not {what} within {self._timeout:g} s"
                f" (--durability {self._durability})"
            )

    async def _settle(self, result: CommitResult, waiting: Awaitable[Any], key: str) -> None:
        """Confirm what a commit or an update answers for: its write, or the record it found
        (written by an earlier call, whose answer was lost or unconfirmed). A conflict or a
        write too late answers for nothing: its wait is left to be dropped."""
        if result.written:
            await self._confirm(waiting)
        elif result.current is not None and result.current.record is not None:
            await self._barrier(key)

    async def _barrier(self, key: str) -> None:
        """Confirm what this process read in `key`'s slot: written by another connection, it
        is covered by no wait of this one until this one writes there too (WAIT and WAITAOF
        answer for their own connection's writes; Redis's log is in order, so one covers
        every write before it)."""
        _, waiting = await self._durable_command("SET", keys.durability_barrier(key), "1", "PX", 1)
        await self._confirm(waiting)

    @_store_errors
    async def delete(self, game_id: str) -> None:
        # One key at a time: DEL of several keys must stay within one slot in a cluster, and
        # these are (the hash tag), but the lean client's command is the same either way.
        for key in (keys.game(game_id), keys.log(game_id)):
            await self._command("DEL", key)

    async def _command(self, *args: Any) -> Any:
        """One raw command, through whichever client this store uses."""
        return await self._redis.execute_command(*args)

    @_store_errors
    async def load_many(self, game_ids: Sequence[str]) -> list[Snapshot | None]:
        replies = await asyncio.gather(
            *(self._command("HMGET", keys.game(g), "v", "s") for g in game_ids)
        )
        return [
            None if version is None or data is None else Snapshot(int(version), data, None)
            for version, data in replies
        ]

    @_store_errors
    async def index_add(self, entries: Sequence[IndexEntry]) -> None:
        if self._wait is not None:
            # A game's listing entries, written before its CreateGame is answered. Each master's
            # wait is shared by its entries (one turn).
            sent = await asyncio.gather(
                *(self._durable_command("ZADD", e.key, e.score, e.game_id) for e in entries)
            )
            await asyncio.gather(*(self._confirm(waiting) for _, waiting in sent))
            return
        if len(entries) == 1:
            # A clocked move's due entry, on every such move: no task of gather's for one command.
            entry = entries[0]
            await self._command("ZADD", entry.key, entry.score, entry.game_id)
            return
        await asyncio.gather(*(self._command("ZADD", e.key, e.score, e.game_id) for e in entries))

    @_store_errors
    async def index_remove(self, entries: Sequence[IndexEntry]) -> None:
        await asyncio.gather(*(self._command("ZREM", e.key, e.game_id) for e in entries))

    @_store_errors
    async def index_page(
        self, index_keys: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> list[IndexEntry]:
        queries: list[tuple[Any, ...]] = []
        for key in index_keys:
            if before is None:
                newest = ("ZRANGE", key, "+inf", "-inf", "BYSCORE", "REV")
                queries.append((*newest, "LIMIT", 0, count, "WITHSCORES"))
                continue
            # The entries of the cursor's own millisecond (few) sorted by id below, then the
            # older ones: exact whatever the ties.
            queries.append(("ZRANGE", key, before[0], before[0], "BYSCORE", "WITHSCORES"))
            older = ("ZRANGE", key, f"({before[0]}", "-inf", "BYSCORE", "REV")
            queries.append((*older, "LIMIT", 0, count, "WITHSCORES"))
        replies = await asyncio.gather(*(self._command(*q) for q in queries))
        found: list[IndexEntry] = []
        for query, reply in zip(queries, replies, strict=True):
            found += _index_entries(query[1], reply)
        return merge_page(found, before, count)

    @_store_errors
    async def feed_append(self, entry: FeedEntry) -> None:
        await self._command(*_xadd(entry))

    @_store_errors
    async def shared_secret(self, key: str, candidate: bytes) -> bytes:
        if self._wait is not None:
            return await self._durable_set(key, candidate, SECRET_TTL_SECONDS)
        kept = await self._redis.set(key, candidate, ex=SECRET_TTL_SECONDS, nx=True, get=True)
        return candidate if kept is None else bytes(kept)

    @_store_errors
    async def get_create_record(self, request_id: str) -> bytes | None:
        key = keys.create_request(request_id)
        record: bytes | None = await self._redis.get(key)
        if record is not None and self._wait is not None:
            await self._barrier(key)  # the caller answers with it
        return record

    @_store_errors
    async def put_create_record(self, request_id: str, record: bytes, ttl_seconds: int) -> bytes:
        key = keys.create_request(request_id)
        if self._wait is not None:
            return await self._durable_set(key, record, ttl_seconds)
        previous: bytes | None = await self._redis.set(
            key, record, ex=ttl_seconds, nx=True, get=True
        )
        return record if previous is None else previous

    async def _durable_set(self, key: str, value: bytes, ttl_seconds: int) -> bytes:
        """SET NX GET, confirmed: `value` once written, else the value kept (the caller
        answers with either)."""
        previous, waiting = await self._durable_command(
            "SET", key, value, "EX", ttl_seconds, "NX", "GET"
        )
        if previous is None:
            await self._confirm(waiting)
            return value
        await self._barrier(key)
        return bytes(previous)

    # Notifications: sharded pub/sub (SSUBSCRIBE), one connection per Redis node, shared by
    # every watcher of this process (service/croupier/service/store/resp.py's `Subscriber`).

    @asynccontextmanager
    async def watch(self, game_id: str) -> AsyncIterator[WatchQueue]:
        channel = keys.channel(game_id)
        queue, _ = self._fanout.add(channel)
        try:
            await self._until_subscribed(channel)
            yield queue
        finally:
            if self._fanout.remove(channel, queue):
                self._confirmed.pop(channel, None)
                subscribing = self._subscribing.pop(channel, None)
                if subscribing is not None and not subscribing.done():
                    subscribing.cancel()
                self._pubsub.unsubscribe(channel)

    async def _until_subscribed(self, channel: str) -> None:
        """Until Redis confirms the channel's subscription (one per channel, shared by its
        watchers; a failed one is tried again by the next watcher). Fails fast: a store that
        does not answer a ping meanwhile gives StoreUnavailable at once, not after the 5 s a
        confirmation may take (a subscription sent on a connection that died unnoticed is
        never confirmed)."""
        subscribing = self._subscribing.get(channel)
        if subscribing is None or (
            subscribing.done() and (subscribing.cancelled() or subscribing.exception())
        ):
            subscribing = asyncio.ensure_future(self._subscribe(channel))
            self._subscribing[channel] = subscribing
        if subscribing.done():
            return
        probe = asyncio.ensure_future(self.ping())
        try:
            both: list[asyncio.Future[Any]] = [subscribing, probe]
            done, _ = await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            if subscribing not in done and not probe.result():
                raise StoreUnavailable("the store does not answer")
            # Shielded: the subscription is the channel's, not this watcher's.
            await asyncio.shield(subscribing)
        finally:
            probe.cancel()

    async def _subscribe(self, channel: str) -> None:
        confirmed = self._confirmed.setdefault(channel, asyncio.Event())
        try:
            await self._pubsub.subscribe(channel)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        # Wait until Redis has the subscription, so no move published after it is missed.
        try:
            await asyncio.wait_for(confirmed.wait(), timeout=5)
        except TimeoutError as exc:
            raise StoreUnavailable("subscription not confirmed") from exc

    def _subscription_confirmed(self, channel: str) -> None:
        confirmed = self._confirmed.get(channel)
        if confirmed is not None:
            confirmed.set()

    async def ping(self) -> bool:
        try:
            return await self._ping()
        except StoreUnavailable:
            return False

    @_store_errors
    async def _ping(self) -> bool:
        return bool(await self._redis.ping())

    async def close(self) -> None:
        await self._pubsub.aclose()
        await self._redis.aclose()


@functools.cache
def _sha(script: str) -> str:
    """The SHA1 Redis caches `script` under (EVALSHA)."""
    return hashlib.sha1(script.encode()).hexdigest()


def _xadd(entry: FeedEntry) -> list[Any]:
    """The command appending a feed entry."""
    return ["XADD", entry.stream, "MAXLEN", "~", entry.max_len, "*", *_stream_fields(entry)]


def _stream_fields(entry: FeedEntry) -> list[Any]:
    """A feed entry's fields in its stream: its plain fields, then the event."""
    command: list[Any] = []
    for name, value in entry.fields.items():
        command += [name, value]
    return [*command, "event", entry.event]


def _later(
    due: asyncio.Future[Any] | None, feed: list[asyncio.Future[Any]]
) -> asyncio.Future[CommitResult]:
    """What Redis refused of a commit's entries sent around it (`due`, the deadline's reply;
    `feed`, the feed entries'), once it has answered them all, in `_store_errors`'s words.
    Callbacks on the replies, no task and no gather: a clocked move in a cluster has one."""
    later: asyncio.Future[CommitResult] = asyncio.get_running_loop().create_future()
    replies = [due, *feed] if due is not None else feed
    pending = [len(replies)]

    def answered(_: asyncio.Future[Any]) -> None:
        pending[0] -= 1
        if pending[0] or later.done():
            return
        errors = [_refusal(reply) for reply in replies]
        due_error = errors.pop(0) if due is not None else None
        lost = sum(error is not None for error in errors)
        if due_error is None and not lost:
            later.set_result(WRITTEN)  # nothing refused
            return
        refusal = next(error for error in [due_error, *errors] if error is not None)
        later.set_result(
            CommitResult(True, feed_lost=lost, due_refused=due_error is not None, refusal=refusal)
        )

    for reply in replies:
        reply.add_done_callback(answered)
    return later


def _refusal(reply: asyncio.Future[Any]) -> str | None:
    """Why a command sent without waiting failed, in `_store_errors`'s words; None if not."""
    if reply.cancelled():
        return "cancelled"
    error = reply.exception()
    if error is None:
        return None
    return "timeout" if isinstance(error, TimeoutError) else type(error).__name__


def _retrieve(future: asyncio.Future[Any]) -> None:
    """A reply nobody waits for may fail unseen: its error is taken here."""
    if not future.cancelled():
        future.exception()


def _index_entries(key: str, reply: Any) -> list[IndexEntry]:
    """ZRANGE … WITHSCORES's reply (member, score, member, score…) as entries."""
    items = list(reply)
    pairs = [(items[i], items[i + 1]) for i in range(0, len(items), 2)]
    return [IndexEntry(key, int(float(score)), _text(member)) for member, score in pairs]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
