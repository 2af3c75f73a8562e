"""A move, decided and recorded: the checks of ApplyMove on the game as read (its credential,
idempotency record, etag), the engine's `apply`, and the one write that records any move,
whether a credential's (ApplyMove) or the service's (a bot or away seat's, a timeout's). The
commit loop around it (write, and decide again on a refusal) is GameService.ApplyMove's."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.service import callers, clocks, errors
from croupier.service.callers import CallLog
from croupier.service.config import Settings
from croupier.service.games import (
    LoadedGame,
    Published,
    RecentNotifications,
    notification_head,
)
from croupier.service.store import Commit, Snapshot
from croupier.service.writes import GameWrites, move_feed
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2 import GAME_STATUS_FINISHED
from croupier.v1.storage_pb2 import IdempotencyRecord, LoggedMove


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
