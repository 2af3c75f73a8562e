"""The game store interface: one value per game with a version, compared and set atomically
together with the move log, the idempotency record and the watchers' notification.

Implementations: `croupier.service.store.redis_store.RedisStore` (production, any number of
replicas) and `croupier.service.store.memory_store.MemoryStore` (one process only, for running
without Redis).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from croupier.service.store.fanout import WatchQueue


class StoreUnavailable(Exception):
    """The store cannot be reached or did not answer in time."""


class NotDurable(StoreUnavailable):
    """The store made a write (or holds the answer asked for) but did not confirm in time that it is
    durable as --durability asks (service/croupier/service/store/durability.py): the call is
    answered UNAVAILABLE, never as done, and its retry with the same request id is answered once it
    is."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game as read from the store."""

    version: int
    data: bytes  # a serialized StoredGame
    record: bytes | None  # the idempotency record under the request id asked for, if any


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One entry of the event feed: a serialized FeedEvent with plain fields for readers
    without the protos, for a stream capped at about `max_len` entries."""

    stream: str
    event: bytes
    fields: dict[str, str]
    max_len: int


@dataclass(frozen=True, slots=True)
class Commit:
    """Everything one applied move writes, in one atomic step."""

    game_id: str
    expected_version: int
    data: bytes  # the new serialized StoredGame
    log_entry: bytes  # a serialized LoggedMove
    # The notification published on the game's channel is notification_head followed by data
    # (the head is a serialized MoveNotification without its game, ending with the field
    # header of `game`), so the state crosses the network to the store once, not twice.
    notification_head: bytes
    ttl_seconds: int  # the game's keys expire after this long without a move
    request_id: str | None = None
    record: bytes | None = None  # a serialized IdempotencyRecord
    record_ttl_seconds: int = 0
    # The caller's deadline, in Unix milliseconds (0: none): a write that reaches the store
    # later is not made, so DEADLINE_EXCEEDED from the store means that nothing was applied.
    deadline_ms: int = 0
    # What goes with the move: the game's next turn-clock deadline in the due index, and the
    # move's feed entries. The store writes them as it can: in the commit's own step, only if
    # the move is written, where their keys are with the game's (a single Redis); else the
    # deadline before the commit (so no written move lacks it: an entry whose move is refused
    # is only a hint) and the feed entries after it, once it is written (a Redis Cluster,
    # where their keys are in other slots: docs/architecture.md, "Turn clocks", rule 3).
    due: IndexEntry | None = None
    feed: tuple[FeedEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What a commit did. When the move was not written, `current` is the game as the store
    holds it now (None: there is no such game), with the record kept under the commit's request
    id when that request was applied before: the caller decides again from it without another
    read."""

    written: bool
    current: Snapshot | None = None
    too_late: bool = False  # not written: it reached the store after the commit's deadline
    # Of the commit's due-index and feed entries the store refused `feed_lost` feed entries,
    # and the due-index entry if `due_refused`, for the reason `refusal`...
    feed_lost: int = 0
    due_refused: bool = False
    refusal: str = ""
    # ... or, when the store sent them without waiting for Redis's answer (their keys in other
    # slots than the game's), `later`: a future of the CommitResult that tells it once Redis
    # has answered them all (then the counts above are zero).
    later: asyncio.Future[CommitResult] | None = None


WRITTEN = CommitResult(True)


@dataclass(frozen=True, slots=True)
class Update:
    """A write that is not a move (a seat joined or left, a credential reissued, a rematch
    named): compared and set on the version like a move, published to the game's watchers, but
    with no move-log entry."""

    game_id: str
    expected_version: int
    data: bytes  # the new serialized StoredGame
    notification_head: bytes  # as Commit's: a MoveNotification without events or game
    ttl_seconds: int
    # A JoinGame's idempotency record, kept with the write (and refused like a commit's when
    # one is kept already): as Commit's.
    request_id: str | None = None
    record: bytes | None = None
    record_ttl_seconds: int = 0


@dataclass(frozen=True, slots=True, order=True)
class IndexEntry:
    """One entry of a listing index: a game id under its creation time (Unix ms)."""

    key: str
    score: int
    game_id: str


def newest_first(entry: IndexEntry) -> tuple[int, str]:
    return (-entry.score, _reversed(entry.game_id))


def _reversed(game_id: str) -> str:
    # Ids are lower-case hex: mapping each digit to its complement orders them descending.
    return game_id.translate(_COMPLEMENT)


_COMPLEMENT = str.maketrans("0123456789abcdef", "fedcba9876543210")


def merge_page(
    found: Sequence[IndexEntry], before: tuple[int, str] | None, count: int
) -> list[IndexEntry]:
    """The first `count` entries strictly after the cursor `before` (newest first: by time,
    then by id descending), from what the buckets answered. Each bucket gave its own first
    `count` after the cursor, so the first `count` of the union are the index's."""
    after = [e for e in found if before is None or (e.score, e.game_id) < (before[0], before[1])]
    unique = {(e.key, e.game_id): e for e in after}
    return sorted(unique.values(), key=newest_first)[:count]


class Store(Protocol):
    async def load(self, game_id: str, request_id: str | None = None) -> Snapshot | None:
        """The game (and the record of `request_id`), in one round trip; None if absent."""

    async def create(self, game_id: str, data: bytes, ttl_seconds: int) -> None:
        """Store a new game at version 1."""

    async def commit(self, commit: Commit) -> CommitResult:
        """Write the move if the game is still at `expected_version`, the commit's request id
        has no record yet and its deadline has not passed, in one round trip; and its due-index
        and feed entries (`Commit.due`): a refused entry does not refuse the move, the result
        tells (`CommitResult.feed_lost`, or `later`)."""

    async def get_create_record(self, request_id: str) -> bytes | None:
        """The record kept for a CreateGame request id."""

    async def put_create_record(self, request_id: str, record: bytes, ttl_seconds: int) -> bytes:
        """Keep `record` unless one exists; return the record that is kept."""

    async def load_with_log(self, game_id: str) -> tuple[Snapshot, list[bytes]] | None:
        """The game and its whole move log (serialized LoggedMove messages, oldest first), read
        together in one round trip; None if absent."""

    def watch(self, game_id: str) -> AbstractAsyncContextManager[WatchQueue]:
        """Subscribe to the game's notifications: a queue of serialized MoveNotification
        messages, ready once the subscription is in place (a notification that does not fit is
        counted as skipped, never dropped silently; see croupier.service.store.fanout)."""

    async def update(self, update: Update) -> CommitResult:
        """Write a change that is not a move if the game is still at `expected_version` (the
        version then goes up by one) and its request id has no record yet, in one round trip;
        answers as `commit` does."""

    async def delete(self, game_id: str) -> None:
        """Remove a game (a rematch made twice at once keeps one)."""

    async def load_many(self, game_ids: Sequence[str]) -> list[Snapshot | None]:
        """Several games at once (None where absent)."""

    async def index_add(self, entries: Sequence[IndexEntry]) -> None:
        """Add listing-index entries (each key may be in another slot)."""

    async def index_remove(self, entries: Sequence[IndexEntry]) -> None:
        """Remove listing-index entries."""

    async def index_page(
        self, index_keys: Sequence[str], before: tuple[int, str] | None, count: int
    ) -> list[IndexEntry]:
        """The first `count` entries of the union of the indexes after the cursor `before`
        (creation ms, game id), newest first (see merge_page)."""

    async def feed_append(self, entry: FeedEntry) -> None:
        """Append one entry to its feed stream."""

    async def shared_secret(self, key: str, candidate: bytes) -> bytes:
        """The secret kept under `key`, `candidate` made it if there was none."""

    async def ping(self) -> bool:
        """Whether the store answers."""

    async def close(self) -> None: ...
