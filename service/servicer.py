"""The GameService implementation: request validation, credentials, the read-validate-write
loop of a move, and the watch streams. Rules live in the engines; storage in the store."""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
from collections.abc import AsyncIterator

import grpc

from croupier.v1 import game_service_pb2 as pb
from croupier.v1 import game_service_pb2_grpc
from croupier.v1.storage_pb2 import IdempotencyRecord, LoggedMove, StoredGame
from engines.core import rng
from engines.core.errors import IllegalMove, InvalidOptions, MalformedMove
from engines.registry import GAMES
from service import auth, errors, metrics, overload
from service.calls import CallLog, streaming, unary
from service.config import Settings
from service.games import (
    LoadedGame,
    RecentNotifications,
    etag_of,
    game_name,
    notification_head,
)
from service.limits import RateLimiter, WatcherCount, peer_address
from service.recent_states import RecentStates
from service.store import Commit, Snapshot, Store

# Matched whole (fullmatch): `$` would also accept a trailing newline.
_ID = re.compile(r"[0-9a-f]{24}")
# AIP-155: a request id is a UUID (any version) in its canonical 8-4-4-4-12 hex form, so that
# a retry id cannot be guessed by another caller; matched whole, either case, kept as sent.
_REQUEST_ID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
MAX_DISPLAY_NAME = 64


def _game_id(name: str) -> str:
    game_id = name.removeprefix("games/")
    if not name.startswith("games/") or not _ID.fullmatch(game_id):
        raise errors.invalid_argument(
            errors.Reason.INVALID_NAME, "name", "a game name looks like 'games/<24 hex digits>'"
        )
    return game_id


def _check_request_id(request_id: str) -> None:
    """The one rule of CreateGame's and ApplyMove's request ids: empty (none), or a UUID."""
    if request_id and not _REQUEST_ID.fullmatch(request_id):
        raise errors.invalid_argument(
            errors.Reason.INVALID_REQUEST_ID,
            "request_id",
            "request_id must be a UUID such as '1b4e28ba-2fa1-41d2-883f-0016d3cca427'"
            " (8-4-4-4-12 hex digits), or empty",
        )


def _deadline_ms(context: grpc.aio.ServicerContext) -> int:
    """The caller's deadline in Unix milliseconds (0: none)."""
    remaining = context.time_remaining()
    return 0 if remaining is None else int((time.time() + remaining) * 1000)


def _digest(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


class GameService(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        keys = (settings.operator_key or "").split(",")
        self._operator_hashes = [auth.credential_hash(k.strip()) for k in keys if k.strip()]
        self._limiter = RateLimiter(settings.rate_limit, settings.rate_burst)
        self._anonymous = RateLimiter(settings.anonymous_rate_limit, settings.anonymous_rate_burst)
        self._watchers = WatcherCount(settings.max_watchers_per_game)
        self._notifications = RecentNotifications()
        self._states = RecentStates(settings.state_cache_size)
        self.overload = overload.Overload(settings.max_calls_in_flight, settings.max_watch_streams)

    def admit(self, call: CallLog, context: grpc.aio.ServicerContext) -> None:
        """Refuse a call over its credential's rate, or, without a credential, over its
        address's (RESOURCE_EXHAUSTED with RetryInfo)."""
        # CreateGame's bearer token is a credential only when operator keys are configured;
        # otherwise any made-up token would be a fresh bucket, so the call counts as anonymous.
        anonymous = call.token is None or (call.rpc == "CreateGame" and not self._operator_hashes)
        if not anonymous:
            assert call.token is not None
            wait = self._limiter.acquire(call.token)
            if wait is not None:
                raise errors.resource_exhausted(
                    errors.Reason.RATE_LIMITED,
                    f"more than {self._settings.rate_limit:g} calls per second with this"
                    f" credential; retry in {wait:.2f} s",
                    retry_after=wait,
                )
            return
        if self._anonymous.rate <= 0:
            return
        wait = self._anonymous.acquire(peer_address(context.peer()))
        if wait is not None:
            raise errors.resource_exhausted(
                errors.Reason.RATE_LIMITED,
                f"more than {self._settings.anonymous_rate_limit:g} calls per second without a"
                f" credential from this address; retry in {wait:.2f} s",
                retry_after=wait,
            )

    async def _read(self, game_id: str, request_id: str | None = None) -> Snapshot:
        """The game (and the record of `request_id`) from the store."""
        snapshot = await self._store.load(game_id, request_id)
        if snapshot is None:
            self._states.forget(game_id)
            raise errors.game_not_found(game_name(game_id))
        self._states.put(game_id, snapshot.version, snapshot.data)
        return snapshot

    @staticmethod
    def _decode(game_id: str, snapshot: Snapshot, call: CallLog) -> LoadedGame:
        game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
        call.game_type = game.engine.game_id
        return game

    async def _load(self, game_id: str, call: CallLog) -> LoadedGame:
        return self._decode(game_id, await self._read(game_id), call)

    @staticmethod
    def _seat(game: LoadedGame, call: CallLog, *, required: bool) -> int | None:
        if call.token is None:
            if required:
                raise errors.credential_missing()
            return None
        seat = auth.seat_of(call.token, game.stored.credential_hashes)
        call.seat = seat
        return seat

    @unary
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.CreateGameResponse:
        game_type = request.WhichOneof("options")
        if game_type is None:
            raise errors.invalid_argument(
                errors.Reason.GAME_TYPE_MISSING,
                "options",
                "set the options of one game: " + ", ".join(GAMES),
            )
        call.game_type = game_type
        auth.check_operator(call.token, self._operator_hashes)
        engine = GAMES[game_type]
        # A count the game itself never allows is a bad request (not worth retrying anywhere);
        # SEAT_LIMIT is only for counts the game allows but this server's limit does not.
        try:
            engine.check_seats(request.seats)
        except InvalidOptions as exc:
            raise errors.invalid_argument(
                errors.Reason.INVALID_OPTIONS, exc.field, exc.message
            ) from exc
        if request.seats > self._settings.max_seats:
            raise errors.resource_exhausted(
                errors.Reason.SEAT_LIMIT,
                f"this server creates games of at most {self._settings.max_seats} seats",
            )
        names = list(request.display_names)
        if names and len(names) != request.seats:
            raise errors.invalid_argument(
                errors.Reason.INVALID_DISPLAY_NAMES,
                "display_names",
                "give one display name per seat, or none",
            )
        if any(len(n) > MAX_DISPLAY_NAME or not n.isprintable() for n in names):
            raise errors.invalid_argument(
                errors.Reason.INVALID_DISPLAY_NAMES,
                "display_names",
                f"display names are printable and at most {MAX_DISPLAY_NAME} characters",
            )
        _check_request_id(request.request_id)
        digest = _digest(request.SerializeToString(deterministic=True))
        # With operator keys the record is the key's own: another key (or a guess) sending the
        # same request id gets a game of its own, never this one's seat credentials.
        record_id = auth.scoped_request_id(
            call.token if self._operator_hashes else None, request.request_id
        )
        if request.request_id:
            kept = await self._store.get_create_record(record_id)
            if kept is not None:
                return self._replayed_create(kept, digest, call)

        seed = request.seed if request.HasField("seed") else rng.new_seed()
        try:
            state, _ = engine.new_game(getattr(request, game_type), request.seats, seed)
        except InvalidOptions as exc:
            raise errors.invalid_argument(
                errors.Reason.INVALID_OPTIONS, exc.field, exc.message
            ) from exc
        credentials = [auth.new_credential() for _ in range(request.seats)]
        stored = StoredGame(
            game_type=game_type,
            display_names=names or [""] * request.seats,
            credential_hashes=[auth.credential_hash(c) for c in credentials],
        )
        getattr(stored, game_type).CopyFrom(state)
        game_id = secrets.token_hex(12)
        call.game = game_id
        data = stored.SerializeToString()
        await self._store.create(game_id, data, self._settings.game_ttl_seconds)
        self._states.put(game_id, 1, data)
        game = LoadedGame(game_id, 1, stored, engine, getattr(stored, game_type))
        response = pb.CreateGameResponse(
            name=game_name(game_id),
            etag=game.etag,
            seat_credentials=credentials,
            view=game.view(None),
        )
        if request.request_id:
            record = IdempotencyRecord(request_digest=digest, response=response.SerializeToString())
            kept = await self._store.put_create_record(
                record_id,
                record.SerializeToString(),
                self._settings.create_request_ttl_seconds,
            )
            return self._replayed_create(kept, digest, call)
        return response

    @staticmethod
    def _replayed_create(kept: bytes, digest: bytes, call: CallLog) -> pb.CreateGameResponse:
        record = IdempotencyRecord.FromString(kept)
        if record.request_digest != digest:
            raise errors.request_id_reused()
        response = pb.CreateGameResponse.FromString(record.response)
        call.game = response.name.removeprefix("games/")
        return response

    @unary
    async def GetGame(
        self, request: pb.GetGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.GetGameResponse:
        call.game = game_id = _game_id(request.name)
        game = await self._load(game_id, call)
        seat = self._seat(game, call, required=False)
        response = pb.GetGameResponse()
        game.fill_view(response.view, seat)
        return response

    @unary
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ListLegalMovesResponse:
        call.game = game_id = _game_id(request.name)
        game = await self._load(game_id, call)
        seat = self._seat(game, call, required=True)
        assert seat is not None
        moves = game.engine.legal_moves(game.state, seat)
        return pb.ListLegalMovesResponse(
            moves=[game.wrap_move(m) for m in moves], etag=game.etag, seat=seat
        )

    @unary
    async def ApplyMove(
        self, request: pb.ApplyMoveRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ApplyMoveResponse:
        call.game = game_id = _game_id(request.name)
        _check_request_id(request.request_id)
        # The record is the sending credential's (one seat's): another seat may use the same
        # request id, and it is read in the same round trip as the game, before the seat is known.
        request_id = (
            auth.scoped_request_id(call.token, request.request_id)
            if request.request_id and call.token is not None
            else None
        )
        deadline_ms = _deadline_ms(context)
        # The game as this process last saw it goes straight to the write, which the store
        # makes only if it is still current; a refusal is always confirmed by a read.
        snapshot = self._states.get(game_id)
        confirmed = snapshot is None
        if snapshot is None:
            metrics.remembered_state("none").inc()
            snapshot = await self._read(game_id, request_id)
        for _ in range(self._settings.max_commit_attempts):
            try:
                response, commit = self._decide(
                    game_id, snapshot, request, request_id, deadline_ms, call
                )
            except errors.ServiceError:
                if confirmed:
                    raise
                metrics.remembered_state("rechecked").inc()
                snapshot, confirmed = await self._read(game_id, request_id), True
                continue
            if commit is None:
                return response
            if deadline_ms and time.time() * 1000 >= deadline_ms:
                raise errors.deadline_exceeded()
            result = await self._store.commit(commit)
            if not confirmed:
                moved_on = not result.written and not result.too_late
                if moved_on and result.current is not None:
                    moved_on = result.current.version != snapshot.version
                metrics.remembered_state("stale" if moved_on else "current").inc()
            if result.written:
                self._states.put(game_id, commit.expected_version + 1, commit.data)
                return response
            if result.too_late:
                raise errors.deadline_exceeded()
            current = result.current
            if current is None:
                self._states.forget(game_id)
                raise errors.game_not_found(game_name(game_id))
            self._states.put(game_id, current.version, current.data)
            if request.etag and current.record is None:
                raise errors.etag_mismatch(etag_of(current.version))
            # Another move landed first, or this request was applied before: decide again.
            snapshot, confirmed = current, True
        raise errors.contention()

    def _decide(
        self,
        game_id: str,
        snapshot: Snapshot,
        request: pb.ApplyMoveRequest,
        request_id: str | None,
        deadline_ms: int,
        call: CallLog,
    ) -> tuple[pb.ApplyMoveResponse, Commit | None]:
        """The response to the move on `snapshot`, and the write that records it (None: the
        request was applied before and its response is the one recorded then)."""
        game = self._decode(game_id, snapshot, call)
        seat = self._seat(game, call, required=True)
        assert seat is not None
        digest = _digest(
            seat.to_bytes(2, "big"), request.move.SerializeToString(deterministic=True)
        )
        if snapshot.record is not None:
            record = IdempotencyRecord.FromString(snapshot.record)
            if record.request_digest != digest:
                raise errors.request_id_reused()
            return pb.ApplyMoveResponse.FromString(record.response), None
        if request.etag and request.etag != game.etag:
            raise errors.etag_mismatch(game.etag)
        return self._play(game, seat, request, request_id, digest, deadline_ms, call)

    def _play(
        self,
        game: LoadedGame,
        seat: int,
        request: pb.ApplyMoveRequest,
        request_id: str | None,
        digest: bytes,
        deadline_ms: int,
        call: CallLog,
    ) -> tuple[pb.ApplyMoveResponse, Commit]:
        """Apply the move to the loaded game; the response and the write that records it
        (under `request_id`, the store's name of the request id: auth.scoped_request_id)."""
        move = game.unwrap_move(request.move)
        if move is None:
            raise errors.invalid_argument(
                errors.Reason.MOVE_GAME_MISMATCH,
                "move",
                f"this game is {game.engine.game_id!r}: set move.{game.engine.game_id}",
            )
        call.move = game.engine.move_kind(move) or None
        try:
            emitted = game.engine.apply(game.state, seat, move)
        except IllegalMove as exc:
            raise errors.illegal_move(exc.rule_id, exc.message) from exc
        except MalformedMove as exc:
            raise errors.invalid_argument(
                errors.Reason.MALFORMED_MOVE, f"move.{game.engine.game_id}.{exc.field}", exc.message
            ) from exc
        expected = game.version
        game.version += 1
        game.stored.move_count += 1
        response = pb.ApplyMoveResponse(etag=game.etag)
        game.add_events(response.events, emitted, seat)
        game.fill_view(response.view, seat)
        over = game.engine.result(game.state) is not None
        data = game.stored.SerializeToString()
        head = notification_head(game.notification(emitted), len(data))
        record = None
        if request_id is not None:
            record = IdempotencyRecord(
                request_digest=digest, response=response.SerializeToString()
            ).SerializeToString()
        commit = Commit(
            game_id=game.game_id,
            expected_version=expected,
            data=data,
            log_entry=LoggedMove(seat=seat, move=request.move).SerializeToString(),
            notification_head=head,
            ttl_seconds=self._settings.finished_ttl_seconds
            if over
            else self._settings.game_ttl_seconds,
            request_id=request_id,
            record=record,
            record_ttl_seconds=self._settings.request_ttl_seconds,
            deadline_ms=deadline_ms,
        )
        return response, commit

    @streaming
    async def WatchGame(
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> AsyncIterator[pb.WatchGameResponse]:
        call.game = game_id = _game_id(request.name)
        if not self._watchers.enter(game_id):
            raise errors.resource_exhausted(
                errors.Reason.WATCHER_LIMIT,
                f"this game has {self._settings.max_watchers_per_game} watch streams on this"
                " server already",
            )
        try:
            async for response in self._watch(game_id, context, call):
                yield response
        finally:
            self._watchers.leave(game_id)

    async def _watch(
        self, game_id: str, context: grpc.aio.ServicerContext, call: CallLog
    ) -> AsyncIterator[pb.WatchGameResponse]:
        async with self._store.watch(game_id) as notifications:
            game = await self._load(game_id, call)
            seat = self._seat(game, call, required=False)
            yield pb.WatchGameResponse(view=game.view(seat))
            engine = game.engine
            while engine.result(game.state) is None:
                try:
                    payload = await asyncio.wait_for(
                        notifications.get(), self._settings.watch_poll_seconds
                    )
                except TimeoutError:
                    # A notification can be lost (a failover, a full queue): read the game.
                    fresh = await self._load(game_id, call)
                    if fresh.version > game.version:
                        game = fresh
                        yield pb.WatchGameResponse(view=game.view(seat))
                    continue
                published = self._notifications.decode(game_id, payload)
                if published.game.version <= game.version:
                    continue
                game = published.game
                yield published.update_for(seat)
