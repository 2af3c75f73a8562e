"""The reads and writes of a game that the RPCs, the bot seats and the clock sweep share: a game
read from the store (and remembered in RecentStates for the next move), a write that is not a
move (compare-and-set on the version), a new game with its listing entries, the event feed,
and the due index of turn deadlines (each entry written with the write that sets it, or before
it, and each feed entry with its write or after it: `before_commit`, `after_commit`)."""

from __future__ import annotations

import functools
import weakref

import structlog

from croupier.service import clocks, errors, keys, lobby, metrics
from croupier.service.callers import CallLog
from croupier.service.config import Settings
from croupier.service.games import (
    LoadedGame,
    RecentNotifications,
    game_name,
    items_of,
    notification_head,
    open_seats,
    player_ids,
)
from croupier.service.limits import StreamCount
from croupier.service.recent_states import RecentStates
from croupier.service.store import (
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
        lost (docs/api.md, "The event feed"). The append is sent before this returns, and not
        waited for where the store can (its outcome is counted when it comes)."""
        max_len = self.settings.feed_max_len
        entry = lobby.feed_event(
            kind, game_id, version, game_type, players, seat, result, max_len=max_len
        )
        await self.append(game_id, entry)

    async def append(self, game_id: str, entry: FeedEntry) -> None:
        done = functools.partial(_appended, game_id, entry.fields["kind"])
        if self.store.feed_append_later(entry, done):
            return
        try:
            await self.store.feed_append(entry)
        except StoreUnavailable as exc:
            done(exc)

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

    async def before_commit(self, commit: Commit) -> None:
        """What a move's write needs ahead of it: its deadline in the due index, unless the
        store writes it with the commit (docs/architecture.md, "Turn clocks", rule 3)."""
        if commit.due is not None and not self.store.entries_with_commit:
            await self.schedule_entry(commit.due)

    async def after_commit(self, commit: Commit, result: CommitResult) -> None:
        """A move just written: its feed entries (`move_feed`), unless the store wrote them
        with the move; then only what it refused there is counted and logged."""
        if not self.store.entries_with_commit:
            for entry in commit.feed:
                await self.append(commit.game_id, entry)
            return
        if result.due_refused:
            _indexed(commit.game_id, StoreUnavailable(result.refusal))
        elif commit.due is not None:
            clocks.entry_written(commit.game_id)
        if result.feed_lost:
            # The reply counts them; a move's entries share one stream, so a refusal is its
            # and any later entry's: the last ones are those lost.
            error = StoreUnavailable(result.refusal)
            for entry in commit.feed[len(commit.feed) - result.feed_lost :]:
                _appended(commit.game_id, entry.fields["kind"], error)

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
        """Index a deadline ahead of the write that follows, not waited for where the store
        can: on a single Redis queued before that write on their one connection (both go out
        together, in order), in a cluster written to its own connection first (at the end of
        this turn, with the other moves' entries)."""
        done = functools.partial(_indexed, entry.game_id)
        written = self.store.index_add_ahead(entry, done)
        if written is not None:
            await written
            return
        try:
            await self.store.index_add([entry])
        except StoreUnavailable as exc:
            done(exc)
            return
        done(None)


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
