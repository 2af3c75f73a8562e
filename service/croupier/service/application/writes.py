"""The reads and writes of a game that the RPCs, the bot seats and the clock sweep share: a game
read from the store (and remembered in RecentStates for the next move), a move's write with its
due-index and feed entries (`commit`: the store writes them as it can, store.Commit), a write
that is not a move (compare-and-set on the version), a new game with its listing entries, the
event feed, and the due index of turn deadlines (each entry written before the write that sets
it: `schedule`)."""

from __future__ import annotations

import asyncio
import functools
import weakref

import structlog

from croupier.service.application import clocks, errors, lobby
from croupier.service.application.callers import CallLog
from croupier.service.application.config import Settings
from croupier.service.application.games import (
    LoadedGame,
    RecentNotifications,
    game_name,
    items_of,
    notification_head,
    open_seats,
    player_ids,
)
from croupier.service.application.limits import StreamCount
from croupier.service.application.recent_states import RecentStates
from croupier.service.observability import metrics
from croupier.service.store import keys
from croupier.service.store.protocol import (
    Commit,
    CommitResult,
    FeedEntry,
    IndexEntry,
    Snapshot,
    Store,
    StoreUnavailable,
    Update,
)
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import MoveNotification

log = structlog.get_logger(__name__)


class GameWrites:
    """One server's reads and writes of its games, with the games it remembers (`states`), its
    watch streams per game and the notifications they decoded."""

    def __init__(self, store: Store, settings: Settings, states: RecentStates) -> None:
        self.store = store
        self.settings = settings
        self.states = states
        self.watchers = StreamCount(
            settings.max_watchers_per_game,
            settings.max_streams_per_address,
            settings.max_streams_per_seat,
        )
        self.notifications = RecentNotifications()
        # The game each game's watch streams opened on, while one of them holds it.
        self._opened: weakref.WeakValueDictionary[str, LoadedGame] = weakref.WeakValueDictionary()

    def watched_here(self, game_id: str) -> RecentNotifications | None:
        """The notifications to give a move of `game_id` as it is written (moves.move_commit),
        when streams of this process watch the game; None when none do."""
        return self.notifications if self.watchers.count(game_id) else None

    async def read(self, game_id: str, request_id: str | None = None) -> Snapshot:
        """The game (and the record of `request_id`) from the store."""
        snapshot = await self.store.load(game_id, request_id)
        if snapshot is None:
            self.states.forget(game_id)
            raise errors.game_not_found(game_name(game_id))
        self.states.put(game_id, snapshot.version, snapshot.data)
        return snapshot

    @staticmethod
    def decode(game_id: str, snapshot: Snapshot, call: CallLog) -> LoadedGame:
        game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
        call.game_type = game.engine.game_type
        return game

    async def load(self, game_id: str, call: CallLog) -> LoadedGame:
        return self.decode(game_id, await self.read(game_id), call)

    async def load_shared(self, game_id: str, call: CallLog) -> LoadedGame:
        """The game as `load` reads it, for a caller that never changes it (a watch stream's
        first view): decoded once per version while a stream holds it, where each stream kept
        a copy of its own (docs/scaling.md, "Watchers")."""
        snapshot = await self.read(game_id)
        game = self._opened.get(game_id)
        if game is None or game.version != snapshot.version:
            game = self._opened[game_id] = self.decode(game_id, snapshot, call)
        else:
            call.game_type = game.engine.game_type
        return game

    async def load_with_log(self, game_id: str, call: CallLog) -> tuple[LoadedGame, list[bytes]]:
        found = await self.store.load_with_log(game_id)
        if found is None:
            self.states.forget(game_id)
            raise errors.game_not_found(game_name(game_id))
        return self.decode(game_id, found[0], call), found[1]

    async def write_new(self, game: LoadedGame) -> None:
        """Store a new game: its listing entries first, then the game (an entry whose game is
        missing is skipped by listings, and dropped once old: never a game no index lists),
        then its feed event."""
        stored, game_id = game.stored, game.game_id
        await self.store.index_add(index_entries(game))
        data = game.encode()
        await self.store.create(game_id, data, self.settings.game_ttl_seconds)
        self.states.put(game_id, 1, data)
        await self.feed(
            pb.FeedEvent.Kind.KIND_GAME_CREATED,
            game_id,
            1,
            game.engine.game_type,
            player_ids(stored, game.state.seats),
        )

    async def feed(
        self,
        kind: pb.FeedEvent.Kind.ValueType,
        game_id: str,
        version: int,
        game_type: str,
        players: list[str],
        seat: int = -1,
        result: pb.GameView | None = None,
    ) -> None:
        """Append to the event feed after the game's own write. Never fails the call (the
        game's write is made): a store failure here is logged and counted, and that event is
        lost (docs/api.md, "The event feed")."""
        max_len = self.settings.feed_max_len
        entry = lobby.feed_event(
            kind, game_id, version, game_type, players, seat, result, max_len=max_len
        )
        try:
            await self.store.feed_append(entry)
        except StoreUnavailable as exc:
            _appended(game_id, entry.fields["kind"], exc)

    async def update(
        self,
        game: LoadedGame,
        ttl_seconds: int | None = None,
        record: tuple[str, bytes] | None = None,
    ) -> Snapshot | None:
        """Write `game` (changed, not by a move) if the store still holds its version: None
        once written, else the game as the store holds it now (GAME_NOT_FOUND when gone), with
        the record kept under `record`'s request id if there is one (then nothing is written).
        `record`: (request id, serialized IdempotencyRecord) to keep with the write, for no
        longer than the game itself (a JoinGame's: docs/api.md, "Request ids")."""
        data = game.encode()
        head = notification_head(pb_notification(game.version + 1), len(data))
        over = game.over
        if ttl_seconds is None:
            ttl_seconds = (
                self.settings.finished_ttl_seconds if over else self.settings.game_ttl_seconds
            )
        update = Update(game.game_id, game.version, data, head, ttl_seconds)
        if record is not None:
            record_ttl = min(self.settings.create_request_ttl_seconds, ttl_seconds)
            update = Update(
                game.game_id, game.version, data, head, ttl_seconds, *record, record_ttl
            )
        result = await self.store.update(update)
        if result.written:
            game.version += 1
            self.states.put(game.game_id, game.version, data)
            return None
        if result.current is None:
            self.states.forget(game.game_id)
            raise errors.game_not_found(game_name(game.game_id))
        self.states.put(game.game_id, result.current.version, result.current.data)
        return result.current

    async def commit(self, commit: Commit) -> CommitResult:
        """Write a move (`Store.commit`), its due-index and feed entries with it; what the store
        refused of those is counted and logged, now or once Redis has answered them
        (`CommitResult.later`), and never fails the move."""
        result = await self.store.commit(commit)
        if result.later is not None:
            result.later.add_done_callback(functools.partial(_entries_answered, commit))
        elif result.written:
            _entries_told(commit, result)
        return result

    async def schedule(self, game: LoadedGame, latest: int | None = None) -> None:
        """Put the game's next deadline in the due index, before the write that sets it (so a
        process killed between the two leaves no deadline unindexed; an entry whose write is
        then refused is only a hint, checked against the game's own state when it is due).
        `latest`: index it no later than that (the sweep's put-back, see `ClockSweep._fire`)."""
        deadline = clocks.next_deadline(game)
        if deadline is not None and latest is not None:
            deadline = min(deadline, latest)
        if deadline is not None:
            await self.schedule_entry(clocks.due_entry(game, deadline))

    async def schedule_entry(self, entry: IndexEntry) -> None:
        """Index a deadline, answered before the write that follows is sent; a failure is
        counted and logged, and fails nothing (the game's state keeps the deadline)."""
        try:
            await self.store.index_add([entry])
        except StoreUnavailable as exc:
            _indexed(entry.game_id, exc)
            return
        _indexed(entry.game_id, None)


def _entries_told(commit: Commit, result: CommitResult) -> None:
    """What the store refused of a commit's entries (`result`), counted and logged."""
    if commit.due is not None:
        _indexed(commit.game_id, StoreUnavailable(result.refusal) if result.due_refused else None)
    if result.feed_lost:
        # The reply counts them; a move's entries share one stream, so a refusal is its
        # and any later entry's: the last ones are those lost.
        error = StoreUnavailable(result.refusal)
        for entry in commit.feed[len(commit.feed) - result.feed_lost :]:
            _appended(commit.game_id, entry.fields["kind"], error)


def _entries_answered(commit: Commit, later: asyncio.Future[CommitResult]) -> None:
    """Redis has answered a commit's entries sent around it (CommitResult.later)."""
    if not later.cancelled() and later.exception() is None:
        _entries_told(commit, later.result())


def move_feed(
    settings: Settings, game_id: str, version: int, view: pb.GameView
) -> tuple[FeedEntry, ...]:
    """The feed entries of a move that made the game `version` (its view `view`): the game's
    end, and with --feed-moves every move (docs/scaling.md)."""
    finished = view.HasField("result")
    if not finished and not settings.feed_moves:
        return ()
    players = items_of(view.player_ids)
    game_type, max_len = view.game_type, settings.feed_max_len
    entries: list[FeedEntry] = []
    if settings.feed_moves:
        kind = pb.FeedEvent.Kind.KIND_MOVE
        seat = view.viewer_seat
        entries.append(
            lobby.feed_event(kind, game_id, version, game_type, players, seat, max_len=max_len)
        )
    if finished:
        kind = pb.FeedEvent.Kind.KIND_GAME_FINISHED
        entries.append(
            lobby.feed_event(
                kind, game_id, version, game_type, players, result=view, max_len=max_len
            )
        )
    return tuple(entries)


def _appended(game_id: str, kind: str, error: StoreUnavailable | None) -> None:
    if error is not None:
        metrics.FEED_LOST.inc()
        log.warning("feed_append_failed", game=game_id, kind=kind, error=str(error))


def _indexed(game_id: str, error: StoreUnavailable | None) -> None:
    if error is None:
        clocks.entry_written(game_id)
        return
    # Redis failed or refused it: a write sent after it most likely fails too; a write that is
    # made has the deadline in its state, indexed again by the game's next write here.
    clocks.entry_refused(game_id)
    metrics.DEADLINES_LOST.inc()
    log.warning("deadline_not_indexed", game=game_id, error=str(error))


def pb_notification(version: int) -> MoveNotification:
    """The notification of a write that is not a move: the game, no events."""
    return MoveNotification(version=version)


def index_entries(game: LoadedGame) -> list[IndexEntry]:
    """The listing entries of a new game: every game's index, the lobby's when it is public
    with open seats, each player's."""
    stored, game_id = game.stored, game.game_id
    score = stored.create_time_ms
    index = [lobby.index_keys(game_id, lobby=False)[0]]
    if stored.public and open_seats(stored):
        index.append(lobby.index_keys(game_id, lobby=True)[0])
    index += [keys.player_index(p) for p in dict.fromkeys(stored.player_ids) if p]
    return [IndexEntry(key, score, game_id) for key in index]
