"""A move, decided and recorded: the checks of ApplyMove on the game as read (its credential,
idempotency record, etag), the engine's `apply`, the one write that records any move,
whether a credential's (ApplyMove) or the service's (a bot or away seat's, a timeout's), and
ApplyMove's commit loop around them (`Moves`: write, and decide again on a refusal)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.service.application import callers, clocks, errors
from croupier.service.application.callers import CallLog
from croupier.service.application.config import Settings
from croupier.service.application.games import (
    LoadedGame,
    Published,
    RecentNotifications,
    etag_of,
    game_name,
    items_of,
    notification_head,
)
from croupier.service.application.writes import GameWrites, move_feed
from croupier.service.observability import metrics
from croupier.service.store.protocol import Commit, Snapshot, StoreUnavailable
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2 import GAME_STATUS_FINISHED
from croupier.v1.storage_pb2 import IdempotencyRecord, LoggedMove

log = structlog.get_logger(__name__)


def digest_of(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


def decide(
    settings: Settings,
    game_id: str,
    snapshot: Snapshot,
    request: pb.ApplyMoveRequest,
    request_id: str | None,
    deadline_ms: int,
    call: CallLog,
    notifications: RecentNotifications | None = None,
) -> tuple[pb.ApplyMoveResponse, Commit | None]:
    """The response to the move on `snapshot`, and the write that records it (None: the
    request was applied before and its response is the one recorded then). `notifications`:
    see `move_commit`."""
    game = GameWrites.decode(game_id, snapshot, call)
    seat = callers.seat(game, call, required=True)
    assert seat is not None
    digest = digest_of(seat.to_bytes(2, "big"), request.move.SerializeToString(deterministic=True))
    if snapshot.record is not None:
        record = IdempotencyRecord.FromString(snapshot.record)
        if record.request_digest != digest:
            raise errors.request_id_reused()
        return pb.ApplyMoveResponse.FromString(record.response), None
    if request.etag and request.etag != game.etag:
        raise errors.etag_mismatch(game.etag)
    return play(settings, game, seat, request, request_id, digest, deadline_ms, call, notifications)


def play(
    settings: Settings,
    game: LoadedGame,
    seat: int,
    request: pb.ApplyMoveRequest,
    request_id: str | None,
    digest: bytes,
    deadline_ms: int,
    call: CallLog,
    notifications: RecentNotifications | None = None,
) -> tuple[pb.ApplyMoveResponse, Commit]:
    """Apply the move to the loaded game; the response and the write that records it
    (under `request_id`, the store's name of the request id: auth.scoped_request_id).
    `notifications`: see `move_commit`."""
    if game.waiting:
        raise errors.failed_precondition(
            errors.Reason.GAME_WAITING,
            "move",
            "the game is waiting for players: no moves until every seat is claimed",
        )
    if game.stored.clock.HasField("forfeited_seat"):
        raise errors.game_forfeited(game.stored.clock.forfeited_seat)
    move = game.unwrap_move(request.move)
    if move is None:
        raise errors.invalid_argument(
            errors.Reason.MOVE_GAME_MISMATCH,
            "move",
            f"this game is {game.engine.game_type!r}: set move.{game.engine.game_type}",
        )
    call.move = game.engine.move_kind(move) or None
    try:
        emitted = game.engine.apply(game.state, seat, move)
    except IllegalMove as exc:
        raise errors.illegal_move(exc.rule_id, exc.message) from exc
    except MalformedMove as exc:
        raise errors.invalid_argument(
            errors.Reason.MALFORMED_MOVE,
            f"move.{game.engine.game_type}.{exc.field}",
            exc.message,
        ) from exc
    return move_commit(
        settings,
        game,
        seat,
        request.move,
        emitted,
        request_id,
        digest,
        deadline_ms,
        notifications=notifications,
    )


def move_commit(
    settings: Settings,
    game: LoadedGame,
    seat: int,
    move: pb.Move,
    emitted: Sequence[Emitted[Any]],
    request_id: str | None,
    digest: bytes,
    deadline_ms: int,
    timeout: tuple[int, int] | None = None,
    by: clocks.By = "seat",
    notifications: RecentNotifications | None = None,
) -> tuple[pb.ApplyMoveResponse, Commit]:
    """The response to a move `seat` made on `game` (applied to its state, which emitted
    `emitted`) and the write that records it: one write, log entry and notification per
    move, whether a credential's (ApplyMove) or the service's (`by`: a bot or away seat's,
    or a timeout's).

    `notifications`, given when streams of this process watch the game: the move goes into
    them as its notification will tell it, with the parts every update shares, from which the
    response's view is then put together too (the same bytes), so that the watchers here
    neither decode the notification nor build those parts again."""
    expected = game.version
    game.version += 1
    game.stored.move_count += 1
    clocks.refresh(game, seat, clocks.now_ms(), by)
    response = pb.ApplyMoveResponse(etag=game.etag)
    game.add_events(response.events, emitted, seat)
    note = game.notification(emitted)
    published = None
    if notifications is None:
        game.fill_view(response.view, seat)
    else:
        published, view = Published.written(game, note.events, seat)
        response.view.MergeFromString(view)
    over = response.view.status == GAME_STATUS_FINISHED  # game.over, computed once
    due = clocks.move_entry(game)  # before encoding: it records the entry it sends
    data = game.encode()
    head = notification_head(note, len(data))
    if notifications is not None and published is not None:
        notifications.remember(game.game_id, head + data, published)
    record = None
    if request_id is not None:
        record = IdempotencyRecord(
            request_digest=digest, response=response.SerializeToString()
        ).SerializeToString()
    commit = Commit(
        game_id=game.game_id,
        expected_version=expected,
        data=data,
        log_entry=LoggedMove(
            seat=seat,
            move=move,
            version=game.version,
            timeout_deadline_ms=timeout[0] if timeout else 0,
            timeout_fired_ms=timeout[1] if timeout else 0,
        ).SerializeToString(),
        notification_head=head,
        ttl_seconds=settings.finished_ttl_seconds if over else settings.game_ttl_seconds,
        request_id=request_id,
        record=record,
        record_ttl_seconds=settings.request_ttl_seconds,
        deadline_ms=deadline_ms,
        due=due,
        feed=move_feed(settings, game.game_id, game.version, response.view),
    )
    return response, commit


class Moves:
    """ApplyMove's read-decide-write loop (a session's moves go through it too): each move is
    decided on the game as this process remembers it (recent_states.py), or as read, and
    written with the version's compare-and-set; a refusal on a remembered state is decided
    again on a read, a write that lost a race on the game the store answered with. An away
    seat refused comes back (`_come_back`)."""

    def __init__(self, writes: GameWrites, start_bots_of: Callable[[str], None]) -> None:
        self._writes = writes
        self._store = writes.store
        self._settings = writes.settings
        self._states = writes.states
        # BotSeats.start_bots_of, given from above: the bot seats play their moves through
        # this module.
        self._start_bots_of = start_bots_of

    async def apply(
        self,
        game_id: str,
        request: pb.ApplyMoveRequest,
        request_id: str | None,
        deadline_ms: int,
        call: CallLog,
    ) -> tuple[pb.ApplyMoveResponse, Commit | None]:
        """The response to the move, and the write that recorded it (None: applied before,
        and `response` is the one recorded then)."""
        writes = self._writes
        # The game as this process last saw it goes straight to the write, which the store
        # makes only if it is still current; a refusal is always confirmed by a read.
        snapshot = self._states.get(game_id)
        confirmed = snapshot is None
        if snapshot is None:
            metrics.remembered_state("none").inc()
            snapshot = await writes.read(game_id, request_id)
        notifications = writes.watched_here(game_id)
        for _ in range(self._settings.max_commit_attempts):
            try:
                response, commit = decide(
                    self._settings,
                    game_id,
                    snapshot,
                    request,
                    request_id,
                    deadline_ms,
                    call,
                    notifications,
                )
            except errors.ServiceError:
                if confirmed:
                    await self._come_back(game_id, snapshot, call)
                    raise
                metrics.remembered_state("rechecked").inc()
                snapshot, confirmed = await writes.read(game_id, request_id), True
                continue
            if commit is None:
                return response, None
            if deadline_ms and time.time() * 1000 >= deadline_ms:
                raise errors.deadline_exceeded()
            result = await writes.commit(commit)
            if not confirmed:
                moved_on = not result.written and not result.too_late
                if moved_on and result.current is not None:
                    moved_on = result.current.version != snapshot.version
                metrics.remembered_state("stale" if moved_on else "current").inc()
            if result.written:
                self._states.put(game_id, commit.expected_version + 1, commit.data)
                if response.view.bot_levels or any(items_of(response.view.away)):
                    self._start_bots_of(game_id)
                return response, commit
            if result.too_late:
                raise errors.deadline_exceeded()
            current = result.current
            if current is None:
                self._states.forget(game_id)
                raise errors.game_not_found(game_name(game_id))
            self._states.put(game_id, current.version, current.data)
            if request.etag and current.record is None:
                await self._come_back(game_id, current, call)
                raise errors.etag_mismatch(etag_of(current.version))
            # Another move landed first, or this request was applied before: decide again.
            snapshot, confirmed = current, True
        raise errors.contention()

    async def _come_back(self, game_id: str, snapshot: Snapshot | None, call: CallLog) -> None:
        """An away seat's credential called ApplyMove and was refused (not its turn, say: its
        bot plays its turns at once): the seat is no longer away from then on, a write of its
        own (docs/decisions.md, "Walking away"). Nothing for any other caller."""
        seat = call.seat  # set once the credential was found to be this seat's
        try:
            for _ in range(self._settings.max_commit_attempts):
                if snapshot is None or seat is None:
                    return
                game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
                if not clocks.come_back(game, seat, clocks.now_ms()):
                    return
                await self._writes.schedule(game)
                snapshot = await self._writes.update(game)
        except (StoreUnavailable, errors.ServiceError) as exc:
            # The caller gets its own refusal, not this; the seat stays away until it tries again.
            log.warning("come_back_failed", game=game_id, error=str(exc))
