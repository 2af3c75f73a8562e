"""The Redis store: each game is a hash {v: version, s: StoredGame bytes} plus a move-log list,
idempotency records and a pub/sub channel, all under the game's hash tag (service.keys).

A move is written by one Lua script (one round trip) that compares the version and, only if it
matches, writes the state, appends to the log, keeps the idempotency record, refreshes the
expiry and publishes the notification. Nothing is retried by the client library: a write whose
answer is lost must not be sent twice (the caller learns the outcome through its request id).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from service import keys
from service.fanout import Fanout, iterate
from service.store import Commit, Snapshot, StoreUnavailable

log = structlog.get_logger(__name__)

# KEYS: game hash, log list[, request record]
# ARGV: expected version, new version, state, log entry, ttl, channel, notification
#       [, record, record ttl]
COMMIT_SCRIPT = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
if #KEYS == 3 then redis.call('SET', KEYS[3], ARGV[8], 'EX', ARGV[9]) end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1
"""

# KEYS: game hash, log list; ARGV: state, ttl
CREATE_SCRIPT = """
redis.call('HSET', KEYS[1], 'v', '1', 's', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""


class RedisStore:
    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        self._redis: Any = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            health_check_interval=0,
        )
        self._commit = self._redis.register_script(COMMIT_SCRIPT)
        self._create = self._redis.register_script(CREATE_SCRIPT)
        self._fanout = Fanout()
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._confirmed: dict[str, asyncio.Event] = {}

    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hmget(keys.game(game_id), "v", "s")
                if request_id:
                    pipe.get(keys.request(game_id, request_id))
                replies = await pipe.execute()
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        version, data = replies[0]
        if version is None or data is None:
            return None
        record = replies[1] if request_id else None
        return Snapshot(int(version), data, record)

    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        try:
            await self._create(
                keys=[keys.game(game_id), keys.log(game_id)], args=[data, ttl_seconds]
            )
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc

    async def commit(self, commit: Commit) -> bool:
        game_id = commit.game_id
        script_keys = [keys.game(game_id), keys.log(game_id)]
        args: list[Any] = [
            commit.expected_version,
            commit.expected_version + 1,
            commit.data,
            commit.log_entry,
            commit.ttl_seconds,
            keys.channel(game_id),
            commit.notification,
        ]
        if commit.request_id is not None and commit.record is not None:
            script_keys.append(keys.request(game_id, commit.request_id))
            args += [commit.record, commit.record_ttl_seconds]
        try:
            return bool(await self._commit(keys=script_keys, args=args))
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc

    async def read_log(self, game_id: str) -> list[bytes]:
        try:
            entries: list[bytes] = await self._redis.lrange(keys.log(game_id), 0, -1)
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        return entries

    async def get_create_record(self, request_id: str) -> bytes | None:
        try:
            record: bytes | None = await self._redis.get(keys.create_request(request_id))
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        return record

    async def put_create_record(self, request_id: str, record: bytes, ttl_seconds: int) -> bytes:
        try:
            previous: bytes | None = await self._redis.set(
                keys.create_request(request_id), record, ex=ttl_seconds, nx=True, get=True
            )
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        return record if previous is None else previous

    @asynccontextmanager
    async def watch(self, game_id: str) -> AsyncIterator[AsyncIterator[bytes]]:
        channel = keys.channel(game_id)
        queue, first = self._fanout.add(channel)
        try:
            if first:
                await self._subscribe(channel)
            else:
                await self._confirmed[channel].wait()
            yield iterate(queue)
        finally:
            if self._fanout.remove(channel, queue):
                self._confirmed.pop(channel, None)
                with contextlib.suppress(RedisError, RuntimeError):
                    await self._pubsub.unsubscribe(channel)

    async def _subscribe(self, channel: str) -> None:
        confirmed = self._confirmed.setdefault(channel, asyncio.Event())
        try:
            if self._pubsub is None:
                self._pubsub = self._redis.pubsub()
            await self._pubsub.subscribe(channel)
        except RedisError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_notifications())
        # Wait until Redis has the subscription, so no move published after it is missed.
        await asyncio.wait_for(confirmed.wait(), timeout=5)

    async def _read_notifications(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                log.warning("pubsub_error", error=type(exc).__name__)
                await asyncio.sleep(0.5)
                continue
            except RuntimeError:  # nothing subscribed any more
                await asyncio.sleep(0.1)
                continue
            if message is None:
                continue
            channel = message["channel"].decode()
            if message["type"] == "subscribe":
                if channel in self._confirmed:
                    self._confirmed[channel].set()
            elif message["type"] == "message":
                self._fanout.publish(channel, message["data"])

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except RedisError:
            return False

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(RedisError):
                await self._pubsub.aclose()
        await self._redis.aclose()
