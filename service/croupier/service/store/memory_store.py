"""An in-process store with the same behaviour as the Redis store, for a single server process
started without Redis. Like Redis it keeps each game's move log (WatchGame resumes from it);
expiry is checked lazily when a game is read."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from croupier.service.store import keys
from croupier.service.store.fanout import Fanout, WatchQueue
from croupier.service.store.protocol import (
    WRITTEN,
    Commit,
    CommitResult,
    FeedEntry,
    IndexEntry,
    Snapshot,
    Update,
    merge_page,
)


@dataclass
class _Game:
    version: int
    data: bytes
    expires_at: float
    log: list[bytes] = field(default_factory=list)  # serialized LoggedMove, oldest first


class MemoryStore:
    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._records: dict[str, tuple[bytes, float]] = {}
        self._fanout = Fanout()
        self._indexes: dict[str, dict[str, int]] = {}
        # The feed of a single process: nothing outside it can read it (docs/api.md).
        self.feed: dict[str, list[tuple[dict[str, str], bytes]]] = {}
        self._secrets: dict[str, bytes] = {}

    def _game(self, game_id: str) -> _Game | None:
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= time.monotonic():
            del self._games[game_id]
            return None
        return game

    def _record(self, key: str) -> bytes | None:
        entry = self._records.get(key)
        if entry is None:
            return None
        if entry[1] <= time.monotonic():
            del self._records[key]
            return None
        return entry[0]

    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        game = self._game(game_id)
        if game is None:
            return None
        record = self._record(keys.request(game_id, request_id)) if request_id else None
        return Snapshot(game.version, game.data, record)

    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        self._games[game_id] = _Game(1, data, time.monotonic() + ttl_seconds)

    async def commit(self, commit: Commit) -> CommitResult:
        game = self._game(commit.game_id)
        if game is None:
            return CommitResult(False)
        if commit.deadline_ms and time.time() * 1000 > commit.deadline_ms:
            return CommitResult(False, too_late=True)
        key = keys.request(commit.game_id, commit.request_id) if commit.request_id else None
        kept = self._record(key) if key is not None else None
        if kept is not None or game.version != commit.expected_version:
            return CommitResult(False, Snapshot(game.version, game.data, kept))
        game.version += 1
        game.data = commit.data
        game.log.append(commit.log_entry)
        game.expires_at = time.monotonic() + commit.ttl_seconds
        if key is not None and commit.record is not None:
            self._records[key] = (commit.record, time.monotonic() + commit.record_ttl_seconds)
        self._fanout.publish(keys.channel(commit.game_id), commit.notification_head + commit.data)
        # A commit's entries, with it (Commit.due).
        if commit.due is not None:
            self._index(commit.due)
        for entry in commit.feed:
            self._append(entry)
        return WRITTEN

    async def update(self, update: Update) -> CommitResult:
        game = self._game(update.game_id)
        if game is None:
            return CommitResult(False)
        key = keys.request(update.game_id, update.request_id) if update.request_id else None
        kept = self._record(key) if key is not None else None
        if kept is not None or game.version != update.expected_version:
            return CommitResult(False, Snapshot(game.version, game.data, kept))
        game.version += 1
        game.data = update.data
        game.expires_at = time.monotonic() + update.ttl_seconds
        if key is not None and update.record is not None:
            self._records[key] = (update.record, time.monotonic() + update.record_ttl_seconds)
        self._fanout.publish(keys.channel(update.game_id), update.notification_head + update.data)
        return WRITTEN

    async def delete(self, game_id: str) -> None:
        self._games.pop(game_id, None)

    async def load_many(self, game_ids: Sequence[str]) -> list[Snapshot | None]:
        return [await self.load(game_id) for game_id in game_ids]

    async def index_add(self, entries: Sequence[IndexEntry]) -> None:
        for entry in entries:
            self._index(entry)

    def _index(self, entry: IndexEntry) -> None:
        self._indexes.setdefault(entry.key, {})[entry.game_id] = entry.score

    async def index_remove(self, entries: Sequence[IndexEntry]) -> None:
        for entry in entries:
            self._indexes.get(entry.key, {}).pop(entry.game_id, None)

    async def index_page(
        self, index_keys: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> list[IndexEntry]:
        found = [
            IndexEntry(key, score, game_id)
            for key in index_keys
            for game_id, score in self._indexes.get(key, {}).items()
        ]
        return merge_page(found, before, count)

    async def feed_append(self, entry: FeedEntry) -> None:
        self._append(entry)

    def _append(self, entry: FeedEntry) -> None:
        entries = self.feed.setdefault(entry.stream, [])
        entries.append((entry.fields, entry.event))
        del entries[: -entry.max_len]

    async def shared_secret(self, key: str, candidate: bytes) -> bytes:
        return self._secrets.setdefault(key, candidate)

    async def get_create_record(self, request_id: str) -> bytes | None:
        return self._record(keys.create_request(request_id))

    async def put_create_record(self, request_id: str, record: bytes, ttl_seconds: int) -> bytes:
        key = keys.create_request(request_id)
        existing = self._record(key)
        if existing is not None:
            return existing
        self._records[key] = (record, time.monotonic() + ttl_seconds)
        return record

    async def load_with_log(self, game_id: str) -> tuple[Snapshot, list[bytes]] | None:
        game = self._game(game_id)
        if game is None:
            return None
        return Snapshot(game.version, game.data, None), list(game.log)

    @asynccontextmanager
    async def watch(self, game_id: str) -> AsyncIterator[WatchQueue]:
        channel = keys.channel(game_id)
        queue, _ = self._fanout.add(channel)
        try:
            yield queue
        finally:
            self._fanout.remove(channel, queue)

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._games.clear()
