"""The GameService implementation: request validation, credentials, the read-validate-write
loop of a move, and the watch streams. Rules live in the engines; storage in the store."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
import structlog

from croupier.engines.core import rng
from croupier.engines.core.bots import MAX_MOVES as MAX_BOT_MOVES
from croupier.engines.core.bots import bot_for, decision_rng
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove, InvalidOptions, MalformedMove
from croupier.engines.registry import GAMES
from croupier.service import auth, bots, clocks, errors, keys, lobby, metrics, overload
from croupier.service.calls import CallLog, streaming, unary
from croupier.service.config import Settings
from croupier.service.fanout import WatchQueue
from croupier.service.games import (
    LoadedGame,
    RecentNotifications,
    etag_of,
    game_name,
    notification_head,
    open_seats,
    player_ids,
    replayed_updates,
)
from croupier.service.limits import RateLimiter, WatcherCount, peer_address
from croupier.service.recent_states import RecentStates
from croupier.service.store import Commit, IndexEntry, Snapshot, Store, StoreUnavailable, Update
from croupier.v1 import game_service_pb2 as pb
from croupier.v1 import game_service_pb2_grpc
from croupier.v1.storage_pb2 import IdempotencyRecord, LoggedMove, MoveNotification, StoredGame

log = structlog.get_logger(__name__)

# Calls whose bearer token, on a server without operator keys, proves nothing (anyone may
# create a game, nobody is an operator) or that take none (JoinGame): rate-limited per address,
# so that made-up tokens are not fresh buckets.
_CREDENTIAL_REFUSALS = frozenset(
    {
        errors.Reason.CREDENTIAL_REJECTED,
        errors.Reason.CREDENTIAL_MALFORMED,
        errors.Reason.OPERATOR_KEY_REJECTED,
    }
)
_ADDRESS_LIMITED = frozenset({"CreateGame", "ListGames", "ReissueCredential", "JoinGame"})
MAX_JOIN_CODE = 256
LOBBY_PREFIX = keys.lobby_index(0).rsplit(":", 1)[0] + ":"

# Matched whole (fullmatch): `$` would also accept a trailing newline.
_ID = re.compile(r"[0-9a-f]{24}")
# AIP-155: a request id is a UUID (any version) in its canonical 8-4-4-4-12 hex form, so that
# a retry id cannot be guessed by another caller; matched whole, either case, kept as sent.
_REQUEST_ID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
MAX_DISPLAY_NAME = 64
# The most moves a watch stream replays from the log (a resume, or a stream catching up): it
# bounds the work one call can ask for; a client further behind starts from the current view.
MAX_RESUMED_MOVES = 4096


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
        # Credentials the server refused, per address: a made-up token is no credential, so
        # guessing them is limited like calls without one (each guess costs a store read).
        self._refused = RateLimiter(settings.anonymous_rate_limit, settings.anonymous_rate_burst)
        self._watchers = WatcherCount(settings.max_watchers_per_game)
        self._notifications = RecentNotifications()
        self._states = RecentStates(settings.state_cache_size)
        self.overload = overload.Overload(settings.max_calls_in_flight, settings.max_watch_streams)
        self._page_secret: bytes | None = (
            settings.page_token_secret.encode() if settings.page_token_secret else None
        )
        # The bot seats this process is playing now, one task per game.
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}

    def admit(self, call: CallLog, context: grpc.aio.ServicerContext) -> None:
        """Refuse a call over its credential's rate, or, without a credential, over its
        address's (RESOURCE_EXHAUSTED with RetryInfo)."""
        # CreateGame's bearer token is a credential only when operator keys are configured;
        # otherwise any made-up token would be a fresh bucket, so the call counts as anonymous.
        anonymous = (
            call.token is None
            or call.rpc == "JoinGame"
            or (call.rpc in _ADDRESS_LIMITED and not self._operator_hashes)
        )
        if not anonymous:
            assert call.token is not None
            wait = self._refused.wait(peer_address(context.peer()))
            if wait is not None:
                raise errors.resource_exhausted(
                    errors.Reason.RATE_LIMITED,
                    f"more than {self._settings.anonymous_rate_limit:g} refused credentials per"
                    f" second from this address; retry in {wait:.2f} s",
                    retry_after=wait,
                )
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

    def refused(self, error: errors.ServiceError, context: grpc.aio.ServicerContext) -> None:
        """Count a refused credential or operator key against its address (see `admit`)."""
        if error.reason in _CREDENTIAL_REFUSALS:
            self._refused.acquire(peer_address(context.peer()))

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
        call.game_type = game.engine.game_type
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
        if request.rematch_of:
            return await self._rematch(request, call)
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
        players = list(request.player_ids)
        if players and len(players) != request.seats:
            raise errors.invalid_argument(
                errors.Reason.INVALID_PLAYER_ID,
                "player_ids",
                "give one player id per seat (empty for none), or none",
            )
        for player in players:
            lobby.check_player_id(player, "player_ids")
        levels = self._check_bot_levels(request, call)
        clock = clocks.check(request.clock)
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
        players = players or [""] * request.seats
        # With open seats, a seat without a player waits for JoinGame: no credential yet; a bot
        # seat never has one.
        credentials = [
            "" if level or (request.open_seats and not player) else auth.new_credential()
            for player, level in zip(players, levels or [""] * request.seats, strict=True)
        ]
        hashes = [auth.credential_hash(c) if c else b"" for c in credentials]
        for seat, level in enumerate(levels):
            if level:
                hashes[seat] = bots.BOT_SEAT_HASH
        join_code = auth.new_join_code() if request.open_seats else ""
        stored = StoredGame(
            game_type=game_type,
            display_names=names or [""] * request.seats,
            credential_hashes=hashes,
            player_ids=players,
            join_code_hash=auth.credential_hash(join_code) if join_code else b"",
            public=request.public,
            create_time_ms=lobby.now_ms(),
            bot_levels=levels,
            clock=clock,
        )
        getattr(stored, game_type).CopyFrom(state)
        game_id = secrets.token_hex(12)
        call.game = game_id
        game = LoadedGame(game_id, 1, stored, engine, getattr(stored, game_type))
        clocks.refresh(game, None, clocks.now_ms())
        await self._schedule(game)
        await self._write_new(game)
        self._start_bots(game)
        response = pb.CreateGameResponse(
            name=game_name(game_id),
            etag=game.etag,
            seat_credentials=credentials,
            view=game.view(None),
            join_code=join_code,
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

    async def _write_new(self, game: LoadedGame) -> None:
        """Store a new game: its listing entries first, then the game (an entry whose game is
        missing is skipped by listings, and dropped once old: never a game no index lists),
        then its feed event."""
        stored, game_id = game.stored, game.game_id
        await self._store.index_add(_index_entries(game))
        data = stored.SerializeToString()
        await self._store.create(game_id, data, self._settings.game_ttl_seconds)
        self._states.put(game_id, 1, data)
        await self._feed(
            pb.FeedEvent.Kind.KIND_GAME_CREATED,
            game_id,
            1,
            game.engine.game_type,
            player_ids(stored, game.state.seats),
        )

    async def _feed(
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
        stream, event, fields = lobby.feed_event(
            kind, game_id, version, game_type, players, seat, result
        )
        try:
            await self._store.feed_append(stream, event, fields, self._settings.feed_max_len)
        except StoreUnavailable as exc:
            metrics.FEED_LOST.inc()
            log.warning("feed_append_failed", game=game_id, kind=fields["kind"], error=str(exc))

    async def _update(self, game: LoadedGame, ttl_seconds: int | None = None) -> Snapshot | None:
        """Write `game` (changed, not by a move) if the store still holds its version: None
        once written, else the game as the store holds it now (GAME_NOT_FOUND when gone)."""
        data = game.stored.SerializeToString()
        head = notification_head(pb_notification(game.version + 1), len(data))
        over = game.over
        if ttl_seconds is None:
            ttl_seconds = (
                self._settings.finished_ttl_seconds if over else self._settings.game_ttl_seconds
            )
        result = await self._store.update(
            Update(game.game_id, game.version, data, head, ttl_seconds)
        )
        if result.written:
            game.version += 1
            self._states.put(game.game_id, game.version, data)
            return None
        if result.current is None:
            self._states.forget(game.game_id)
            raise errors.game_not_found(game_name(game.game_id))
        self._states.put(game.game_id, result.current.version, result.current.data)
        return result.current

    async def _rematch(self, request: pb.CreateGameRequest, call: CallLog) -> pb.CreateGameResponse:
        """CreateGame with rematch_of: the finished game's setup with a new seed, once."""
        if (
            request.WhichOneof("options") is not None
            or request.seats
            or request.display_names
            or request.HasField("seed")
            or request.player_ids
            or request.open_seats
            or request.public
            or request.bot_levels
            or request.HasField("clock")
        ):
            raise errors.invalid_argument(
                errors.Reason.INVALID_REMATCH,
                "rematch_of",
                "a rematch takes everything from the finished game: set only rematch_of"
                " (and request_id)",
            )
        _check_request_id(request.request_id)
        old_id = _game_id(request.rematch_of)
        call.game = old_id
        old = await self._load(old_id, call)
        self._caller_of(old, call)
        new: LoadedGame | None = None
        for _ in range(self._settings.max_commit_attempts):
            if old.stored.rematch:
                if new is not None:  # another call named its rematch first: keep that one
                    await self._store.delete(new.game_id)
                    self._states.forget(new.game_id)
                made = await self._load(old.stored.rematch, call)
                return pb.CreateGameResponse(
                    name=game_name(made.game_id), etag=made.etag, view=made.view(None)
                )
            if not old.over:
                raise errors.failed_precondition(
                    errors.Reason.GAME_NOT_FINISHED,
                    "rematch_of",
                    "a rematch is made of a finished game",
                )
            if new is None:
                new = _rematch_of(old)
                clocks.refresh(new, None, clocks.now_ms())
                await self._schedule(new)
                await self._write_new(new)
            old.stored.rematch = new.game_id
            current = await self._update(old)
            if current is None:
                call.game = new.game_id
                self._start_bots(new)
                return pb.CreateGameResponse(
                    name=game_name(new.game_id), etag=new.etag, view=new.view(None)
                )
            old = self._decode(old_id, current, call)
        raise errors.contention()

    def _caller_of(self, game: LoadedGame, call: CallLog) -> int | None:
        """A seat of the game (its seat), or the operator (None); refused otherwise."""
        if call.token is None:
            raise errors.credential_missing()
        if self._operator_hashes and auth.is_operator(call.token, self._operator_hashes):
            return None
        return self._seat(game, call, required=True)

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
        self._start_bots(game)
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
        # No moves while waiting for players, nor after a forfeit (the engine's state goes on).
        moves = [] if game.waiting or game.over else game.engine.legal_moves(game.state, seat)
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
                    await self._come_back(game_id, snapshot, call)
                    raise
                metrics.remembered_state("rechecked").inc()
                snapshot, confirmed = await self._read(game_id, request_id), True
                continue
            if commit is None:
                return response
            if deadline_ms and time.time() * 1000 >= deadline_ms:
                raise errors.deadline_exceeded()
            if response.view.deadlines:
                await self._schedule_view(game_id, response.view)
            result = await self._store.commit(commit)
            if not confirmed:
                moved_on = not result.written and not result.too_late
                if moved_on and result.current is not None:
                    moved_on = result.current.version != snapshot.version
                metrics.remembered_state("stale" if moved_on else "current").inc()
            if result.written:
                self._states.put(game_id, commit.expected_version + 1, commit.data)
                await self._feed_move(game_id, commit.expected_version + 1, response)
                if response.view.bot_levels or any(response.view.away):
                    self._start_bots_of(game_id)
                return response
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
        return self._move_commit(game, seat, request.move, emitted, request_id, digest, deadline_ms)

    def _move_commit(
        self,
        game: LoadedGame,
        seat: int,
        move: pb.Move,
        emitted: Sequence[Emitted[Any]],
        request_id: str | None,
        digest: bytes,
        deadline_ms: int,
        timeout: tuple[int, int] | None = None,
        by: clocks.By = "seat",
    ) -> tuple[pb.ApplyMoveResponse, Commit]:
        """The response to a move `seat` made on `game` (applied to its state, which emitted
        `emitted`) and the write that records it: one write, log entry and notification per
        move, whether a credential's (ApplyMove) or the service's (`by`: a bot or away seat's,
        or a timeout's)."""
        expected = game.version
        game.version += 1
        game.stored.move_count += 1
        clocks.refresh(game, seat, clocks.now_ms(), by)
        response = pb.ApplyMoveResponse(etag=game.etag)
        game.add_events(response.events, emitted, seat)
        game.fill_view(response.view, seat)
        over = game.over
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
            log_entry=LoggedMove(
                seat=seat,
                move=move,
                version=game.version,
                timeout_deadline_ms=timeout[0] if timeout else 0,
                timeout_fired_ms=timeout[1] if timeout else 0,
            ).SerializeToString(),
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

    async def _feed_move(self, game_id: str, version: int, response: pb.ApplyMoveResponse) -> None:
        """The feed entries of a move just written: the game's end, and with --feed-moves every
        move (each one more round trip, after the move's own: docs/scaling.md)."""
        view = response.view
        finished = view.HasField("result")
        if not finished and not self._settings.feed_moves:
            return
        players = list(view.player_ids)
        if self._settings.feed_moves:
            await self._feed(
                pb.FeedEvent.Kind.KIND_MOVE,
                game_id,
                version,
                view.game_type,
                players,
                seat=view.viewer_seat,
            )
        if finished:
            await self._feed(
                pb.FeedEvent.Kind.KIND_GAME_FINISHED,
                game_id,
                version,
                view.game_type,
                players,
                result=view,
            )

    @unary
    async def JoinGame(
        self, request: pb.JoinGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.JoinGameResponse:
        call.game = game_id = _game_id(request.name)
        if not request.join_code or len(request.join_code) > MAX_JOIN_CODE:
            raise errors.invalid_argument(
                errors.Reason.INVALID_JOIN_CODE,
                "join_code",
                "send the join code CreateGame returned",
            )
        lobby.check_player_id(request.player_id, "player_id")
        name = request.display_name
        if len(name) > MAX_DISPLAY_NAME or not name.isprintable():
            raise errors.invalid_argument(
                errors.Reason.INVALID_DISPLAY_NAMES,
                "display_name",
                f"a display name is printable and at most {MAX_DISPLAY_NAME} characters",
            )
        code_hash = auth.credential_hash(request.join_code)
        game = await self._load(game_id, call)
        indexed = False
        for _ in range(self._settings.max_commit_attempts):
            stored = game.stored
            # Compared in constant time; a game without a code matches no code.
            if not stored.join_code_hash or not hmac.compare_digest(
                code_hash, stored.join_code_hash
            ):
                raise errors.join_code_rejected()
            free = open_seats(stored)
            if not free:
                raise errors.failed_precondition(
                    errors.Reason.GAME_FULL, "name", "every seat of this game is taken"
                )
            players = player_ids(stored, game.state.seats)
            if request.player_id and request.player_id in players:
                raise errors.failed_precondition(
                    errors.Reason.ALREADY_SEATED, "player_id", "this player has a seat already"
                )
            if request.player_id and not indexed:
                # Before the write, as at creation: a listing never misses a joined game.
                await self._store.index_add(
                    [
                        IndexEntry(
                            keys.player_index(request.player_id), stored.create_time_ms, game_id
                        )
                    ]
                )
                indexed = True
            seat = free[0]
            credential = auth.new_credential()
            players[seat] = request.player_id
            del stored.player_ids[:]
            stored.player_ids.extend(players)
            stored.credential_hashes[seat] = auth.credential_hash(credential)
            stored.display_names[seat] = name
            clocks.refresh(game, None, clocks.now_ms())  # the last seat claimed: the clock runs
            await self._schedule(game)
            current = await self._update(game)
            if current is None:
                call.seat = seat
                await self._feed(
                    pb.FeedEvent.Kind.KIND_SEAT_JOINED,
                    game_id,
                    game.version,
                    game.engine.game_type,
                    players,
                    seat=seat,
                )
                self._start_bots(game)
                return pb.JoinGameResponse(
                    seat=seat, seat_credential=credential, view=game.view(seat)
                )
            game = self._decode(game_id, current, call)  # another write won: decide again
        raise errors.contention()

    @unary
    async def LeaveGame(
        self, request: pb.LeaveGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.LeaveGameResponse:
        call.game = game_id = _game_id(request.name)
        game = await self._load(game_id, call)
        for _ in range(self._settings.max_commit_attempts):
            seat = self._seat(game, call, required=True)
            assert seat is not None
            stored = game.stored
            if not stored.join_code_hash:
                raise errors.failed_precondition(
                    errors.Reason.NOT_JOINABLE,
                    "name",
                    "this game has no join code: a freed seat could never be claimed again",
                )
            if stored.move_count:
                raise errors.failed_precondition(
                    errors.Reason.GAME_STARTED, "name", "seats are left only before the first move"
                )
            players = player_ids(stored, game.state.seats)
            players[seat] = ""
            del stored.player_ids[:]
            stored.player_ids.extend(players)
            stored.credential_hashes[seat] = b""
            stored.display_names[seat] = ""
            if stored.public:
                # The game is open again: back in the lobby (before the write, as at creation).
                await self._store.index_add(
                    [
                        IndexEntry(
                            lobby.index_keys(game_id, lobby=True)[0], stored.create_time_ms, game_id
                        )
                    ]
                )
            current = await self._update(game)
            if current is None:
                return pb.LeaveGameResponse(view=game.view(None))
            game = self._decode(game_id, current, call)
        raise errors.contention()

    @unary
    async def ReissueCredential(
        self, request: pb.ReissueCredentialRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ReissueCredentialResponse:
        call.game = game_id = _game_id(request.name)
        self._require_operator(call)
        game = await self._load(game_id, call)
        for _ in range(self._settings.max_commit_attempts):
            if not 0 <= request.seat < game.state.seats:
                raise errors.invalid_argument(
                    errors.Reason.INVALID_SEAT,
                    "seat",
                    f"this game's seats are 0 to {game.state.seats - 1}",
                )
            call.seat = request.seat
            if bots.level_of(game, request.seat):
                raise errors.failed_precondition(
                    errors.Reason.BOT_SEAT,
                    "seat",
                    "this seat is played by the service's bot: it has no credential",
                )
            if not game.stored.credential_hashes[request.seat]:
                raise errors.failed_precondition(
                    errors.Reason.SEAT_OPEN, "seat", "this seat is open: it is claimed by JoinGame"
                )
            credential = auth.new_credential()
            game.stored.credential_hashes[request.seat] = auth.credential_hash(credential)
            current = await self._update(game)
            if current is None:
                return pb.ReissueCredentialResponse(seat_credential=credential)
            game = self._decode(game_id, current, call)
        raise errors.contention()

    def _check_bot_levels(self, request: pb.CreateGameRequest, call: CallLog) -> list[str]:
        """CreateGame's bot seats: one level per seat or none, each empty (a human) or a
        known level; every seat a bot only with the operator key."""
        levels = list(request.bot_levels)
        if not levels:
            return []
        if len(levels) != request.seats:
            raise errors.invalid_argument(
                errors.Reason.INVALID_BOT_LEVEL,
                "bot_levels",
                "give one bot level per seat (empty for a human seat), or none",
            )
        for level in levels:
            if level and not bots.known_level(level):
                shown = level[:32].encode("ascii", "backslashreplace").decode()
                raise errors.invalid_argument(
                    errors.Reason.INVALID_BOT_LEVEL,
                    "bot_levels",
                    f"no bot level {shown!r}: the levels are 'random' and 'strong'",
                )
        for level, player in zip(levels, request.player_ids, strict=False):
            if level and player:
                raise errors.invalid_argument(
                    errors.Reason.INVALID_BOT_LEVEL,
                    "bot_levels",
                    "a bot seat has no player id: leave the seat's player id empty",
                )
        if all(levels):
            operator = (
                call.token is not None
                and bool(self._operator_hashes)
                and auth.is_operator(call.token, self._operator_hashes)
            )
            if not operator:
                raise errors.all_seats_bots()
        return levels if any(levels) else []

    async def _schedule(self, game: LoadedGame, latest: int | None = None) -> None:
        """Put the game's next deadline in the due index, before the write that sets it (so a
        process killed between the two leaves no deadline unindexed; an entry whose write is
        then refused is only a hint, checked against the game's own state when it is due).
        `latest`: index it no later than that (the sweep's put-back, see `_fire`)."""
        deadline = clocks.next_deadline(game)
        if deadline is not None and latest is not None:
            deadline = min(deadline, latest)
        if deadline is not None:
            await self._schedule_entry(clocks.due_entry(game, deadline))

    async def _schedule_view(self, game_id: str, view: pb.GameView) -> None:
        if view.deadlines:
            deadline = min(d.deadline.ToMilliseconds() for d in view.deadlines)
            bucket = keys.bucket_of(game_id, keys.DUE_BUCKETS)
            await self._schedule_entry(IndexEntry(keys.due_index(bucket), deadline, game_id))

    async def _schedule_entry(self, entry: IndexEntry) -> None:
        try:
            await self._store.index_add([entry])
        except StoreUnavailable as exc:
            # Redis failed: the write that follows most likely fails too; if it is made, the
            # deadline is indexed again by the game's next write.
            metrics.DEADLINES_LOST.inc()
            log.warning("deadline_not_indexed", game=entry.game_id, error=str(exc))

    async def run_clocks(self) -> None:
        """Every replica's sweep of the due index: each deadline that has passed is checked
        against its game and acted on with the version's compare-and-set (exactly one replica's
        write is made). Runs until cancelled."""
        tick = self._settings.clock_tick_seconds
        while True:
            try:
                await self.sweep_clocks()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.warning("clock_sweep_failed", error=str(exc))
            except Exception:
                log.exception("clock_sweep_failed")
            await asyncio.sleep(tick)

    async def sweep_clocks(self) -> int:
        """One sweep: act on every deadline of the due index that has passed by now (tests
        with an injectable clock call it between their moves). Returns the entries found."""
        entries = await self._store.index_page(clocks.due_keys(), (clocks.now_ms(), "g"), 256)
        if entries:
            await asyncio.gather(*(self._fire(e) for e in entries))
        return len(entries)

    async def _fire(self, entry: IndexEntry) -> None:
        """Act for the seats of one game whose deadlines have passed, each with the version's
        compare-and-set. The entry is removed first, the game read after, and the game's next
        deadline indexed again whatever is found (docs/architecture.md, "Turn clocks")."""
        game_id = entry.game_id
        await self._store.index_remove([entry])
        snapshot = await self._store.load(game_id)
        for _ in range(self._settings.max_commit_attempts * 4):
            if snapshot is None:
                return
            game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
            now = clocks.now_ms()
            due = clocks.due_seats(game, now)
            if not due:
                # Put back no later than now + seconds: a write decided meanwhile, whose own
                # entry this sweep's removal may have taken, has no deadline earlier than its
                # decision's now + seconds, even when time banks make the state read here
                # end later (docs/architecture.md, "Turn clocks", 3).
                await self._schedule(game, now + game.stored.clock.seconds * 1000)
                self._start_bots(game)
                return
            seat = due[0]
            deadline = game.stored.clock.deadline_ms[seat]
            bot_seat = bool(bots.level_of(game, seat))
            # A bot seat (its replica gone) is played, never forfeited: it is the service's.
            if clocks.policy(game) == clocks.FORFEIT and not bot_seat:
                snapshot = await self._forfeit(game, seat, deadline, now)
                if snapshot is None:
                    return
                continue
            legal = game.engine.legal_moves(game.state, seat)
            if not legal:
                return
            view = game.engine.view(game.state, seat)
            rng = decision_rng(game.engine.setup_of(game.state).seed, game.stored.move_count, seat)
            # A human seat's move is the strong bot's; a bot seat (its replica gone) plays its own.
            level = bots.level_of(game, seat) or "strong"
            move = bot_for(game.engine.game_type, level).choose(seat, view, legal, rng)
            emitted = game.engine.apply(game.state, seat, move)
            game.stored.clock.timeouts += 1
            # Only a human seat's timeouts count towards its being away.
            by: clocks.By = "service" if bot_seat else "timeout"
            response, commit = self._move_commit(
                game, seat, game.wrap_move(move), emitted, None, b"", 0, (deadline, now), by
            )
            await self._schedule(game)
            result = await self._store.commit(commit)
            if result.written:
                metrics.TIMEOUTS.inc()
                metrics.TIMEOUT_LATENESS.observe(max(0, now - deadline) / 1000)
                log.info("timeout_fired", game=game_id, seat=seat, late_ms=now - deadline)
                snapshot = Snapshot(commit.expected_version + 1, commit.data, None)
                self._states.put(game_id, snapshot.version, snapshot.data)
                await self._feed_move(game_id, snapshot.version, response)
                continue
            # A move (or another replica's timeout) landed first: decide again on it.
            snapshot = result.current

    async def _forfeit(
        self, game: LoadedGame, seat: int, deadline: int, now: int
    ) -> Snapshot | None:
        """End the game by `seat`'s forfeit (FORFEIT: its deadline passed), a write that is no
        move, with the version's compare-and-set: None once written (or the game is gone), else
        the game as it is now (a move landed first: decide again on it)."""
        clocks.forfeit(game, seat, deadline, now)
        try:
            current = await self._update(game)
        except errors.ServiceError:  # the game is gone (expired)
            return None
        if current is not None:
            return current
        metrics.TIMEOUTS.inc()
        metrics.TIMEOUT_LATENESS.observe(max(0, now - deadline) / 1000)
        log.info("game_forfeited", game=game.game_id, seat=seat, late_ms=now - deadline)
        await self._feed(
            pb.FeedEvent.Kind.KIND_GAME_FINISHED,
            game.game_id,
            game.version,
            game.stored.game_type,
            player_ids(game.stored, game.state.seats),
            result=game.view(None),
        )
        return None

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
                await self._schedule(game)
                snapshot = await self._update(game)
        except (StoreUnavailable, errors.ServiceError) as exc:
            # The caller gets its own refusal, not this; the seat stays away until it tries again.
            log.warning("come_back_failed", game=game_id, error=str(exc))

    def _start_bots(self, game: LoadedGame) -> None:
        """Play the game's bot seats in the background when one of them may act now."""
        if bots.bot_due(game):
            self._start_bots_of(game.game_id)

    def _start_bots_of(self, game_id: str) -> None:
        if game_id in self._bot_tasks:
            return
        task = asyncio.get_running_loop().create_task(self._play_bots(game_id))
        self._bot_tasks[game_id] = task
        task.add_done_callback(lambda _: self._bot_tasks.pop(game_id, None))

    async def _play_bots(self, game_id: str) -> None:
        """Play the game's bot seats while one may act: each move decided from the seat's
        view, written with the version's compare-and-set like any move (a human's move, or
        another replica's bot move, that lands first makes this one decide again)."""
        try:
            snapshot = self._states.get(game_id) or await self._read(game_id)
            for _ in range(MAX_BOT_MOVES):
                game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
                chosen = bots.next_bot_move(game)
                if chosen is None:
                    return
                emitted = game.engine.apply(game.state, chosen.seat, chosen.move)
                move = game.wrap_move(chosen.move)
                response, commit = self._move_commit(
                    game, chosen.seat, move, emitted, None, b"", 0, by="service"
                )
                await self._schedule(game)
                result = await self._store.commit(commit)
                if result.written:
                    metrics.BOT_MOVES.labels(chosen.level).inc()
                    snapshot = Snapshot(commit.expected_version + 1, commit.data, None)
                    self._states.put(game_id, snapshot.version, snapshot.data)
                    await self._feed_move(game_id, snapshot.version, response)
                    continue
                if result.current is None:
                    self._states.forget(game_id)
                    return
                snapshot = result.current
                self._states.put(game_id, snapshot.version, snapshot.data)
        except (StoreUnavailable, errors.ServiceError) as exc:
            # Nothing half-written: the next read of the game (GetGame, a watch stream's poll)
            # by any replica starts the bots again.
            log.warning("bot_moves_stopped", game=game_id, error=str(exc))
        except Exception:
            log.exception("bot_moves_failed", game=game_id)

    def _require_operator(self, call: CallLog) -> None:
        if not self._operator_hashes:
            raise errors.no_operator_keys()
        auth.check_operator(call.token, self._operator_hashes)

    @unary
    async def GetGameRecord(
        self, request: pb.GetGameRecordRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.GetGameRecordResponse:
        call.game = game_id = _game_id(request.name)
        game, entries = await self._load_with_log(game_id, call)
        self._caller_of(game, call)
        result = game.result()
        if result is None:
            # The seed and the deal would tell every hidden card still in play.
            raise errors.failed_precondition(
                errors.Reason.GAME_NOT_FINISHED,
                "name",
                "the record of a game is given once it is over",
            )
        setup = game.engine.setup_of(game.state)
        stored = game.stored
        record = pb.GameRecord(
            name=game_name(game_id),
            result=result,
            create_time=lobby.timestamp(stored.create_time_ms),
        )
        record.setup.seats = setup.seats
        record.setup.seed = setup.seed
        record.setup.display_names.extend(stored.display_names)
        record.setup.player_ids.extend(player_ids(stored, setup.seats))
        getattr(record.setup, game.engine.game_type).CopyFrom(setup.options)
        for entry in entries:
            logged = LoggedMove.FromString(entry)
            record.moves.add(seat=logged.seat, move=logged.move)
        clocks.add_to_record(game, record)
        return pb.GetGameRecordResponse(record=record)

    @unary
    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ListGamesResponse:
        # With a token the caller asks as the operator; without one, the lobby.
        operator = call.token is not None
        if operator:
            self._require_operator(call)
        size = lobby.page_size(request.page_size)
        listing = lobby.parse_filter(request.filter, set(GAMES))
        listing_id = lobby.listing_id(operator, listing)
        secret = await self._page_token_secret()
        cursor = (
            lobby.decode_token(secret, listing_id, request.page_token)
            if request.page_token
            else None
        )
        index_keys = lobby.index_keys("", listing, lobby=not operator)
        response = pb.ListGamesResponse()
        scanned = 0
        now = lobby.now_ms()
        while len(response.games) < size and scanned < lobby.MAX_SCANNED:
            entries = await self._store.index_page(index_keys, cursor, size)
            if not entries:
                return response  # the end: no token
            scanned += len(entries)
            found = await self._store.load_many([e.game_id for e in entries])
            gone: list[IndexEntry] = []
            for entry, snapshot in zip(entries, found, strict=True):
                if len(response.games) == size:
                    break
                cursor = (entry.score, entry.game_id)
                if snapshot is None:
                    # Expired (or never written): the game's own hash is the truth.
                    if now - entry.score > lobby.MISSING_GRACE_MS:
                        gone.append(entry)
                    continue
                game = LoadedGame.decode(entry.game_id, snapshot.version, snapshot.data)
                if lobby.matches(game, listing, lobby=not operator):
                    response.games.append(lobby.summary(game))
                elif entry.key.startswith(LOBBY_PREFIX) and game.over:
                    # A lobby entry of a finished game: never open again. A started or full
                    # game may be left (LeaveGame), so its lobby entry stays; a player's
                    # entries stay for the operator's listing.
                    gone.append(entry)
            if gone:
                await self._store.index_remove(gone)
            if len(entries) < size and len(response.games) < size:
                # Every bucket is exhausted past this point (unless the page filled first).
                last = entries[-1]
                if cursor == (last.score, last.game_id):
                    return response
        assert cursor is not None
        response.next_page_token = lobby.encode_token(secret, listing_id, cursor)
        return response

    async def _page_token_secret(self) -> bytes:
        """The deployment's page-token key: the setting, else one kept in the store (made by
        the first replica to need it, so that every replica accepts every replica's tokens)."""
        if self._page_secret is None:
            self._page_secret = await self._store.shared_secret(
                keys.page_token_secret(), secrets.token_bytes(32)
            )
        return self._page_secret

    @streaming
    async def WatchGame(
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> AsyncIterator[pb.WatchGameResponse]:
        call.game = game_id = _game_id(request.name)
        since = _since_version(request.since_etag)
        if not self._watchers.enter(game_id):
            raise errors.resource_exhausted(
                errors.Reason.WATCHER_LIMIT,
                f"this game has {self._settings.max_watchers_per_game} watch streams on this"
                " server already",
            )
        cutoff = _Cutoff(context, call)
        try:
            async for response in self._watch(game_id, since, cutoff, call):
                # While the client does not read, gRPC's flow control holds this write.
                cutoff.writing = True
                yield response
                cutoff.writing = False
                if cutoff.error is not None:
                    # gRPC closes a stream it ended, so this is the web gateway's, whose
                    # context cannot end it from another task: it ends here.
                    raise cutoff.error
        finally:
            self._watchers.leave(game_id)

    async def _watch(
        self, game_id: str, since: int | None, cutoff: _Cutoff, call: CallLog
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """Subscribe first, then read: a move is either in what was read or notified after it.
        Every move is sent once, in order: a notification of a version already sent is
        skipped, and a gap (a full queue, a notification lost in a failover, the moves before a
        resume) is filled from the store's move log, never jumped over."""
        async with self._store.watch(game_id) as notifications:
            notifications.on_overflow = lambda: cutoff.overflowed(notifications)
            if since is None:
                game = await self._load(game_id, call)
                seat = self._seat(game, call, required=False)
                yield pb.WatchGameResponse(view=game.view(seat))
            else:
                game, log = await self._load_with_log(game_id, call)
                seat = self._seat(game, call, required=False)
                _check_resumable(since, game)
                async for update in _replayed(game, log, since, seat):
                    yield update
            while not game.over:
                if notifications.skipped:
                    # The stream fell far behind while its client was reading (the server was
                    # busy): what did not fit in the queue is in the log.
                    _drain(notifications)
                    behind = True
                else:
                    try:
                        payload = await asyncio.wait_for(
                            notifications.get(), self._settings.watch_poll_seconds
                        )
                    except TimeoutError:
                        # A notification can be lost (a failover, a pub/sub reconnection).
                        snapshot = await self._read(game_id)
                        behind = snapshot.version > game.version
                        if not behind:
                            # A bot seat left waiting (the process playing it stopped).
                            self._start_bots(game)
                    else:
                        published = self._notifications.decode(game_id, payload)
                        if published.game.version == game.version + 1:
                            game = published.game
                            _check_still_seated(game, seat, call)
                            yield published.update_for(seat)
                        behind = published.game.version > game.version
                if behind:
                    current, log = await self._load_with_log(game_id, call)
                    if current.version - game.version > MAX_RESUMED_MOVES:
                        raise errors.watch_too_slow(current.version - game.version)
                    _check_still_seated(current, seat, call)
                    async for update in _replayed(current, log, game.version, seat):
                        yield update
                    game = current

    async def _load_with_log(self, game_id: str, call: CallLog) -> tuple[LoadedGame, list[bytes]]:
        found = await self._store.load_with_log(game_id)
        if found is None:
            self._states.forget(game_id)
            raise errors.game_not_found(game_name(game_id))
        return self._decode(game_id, found[0], call), found[1]


def _check_still_seated(game: LoadedGame, seat: int | None, call: CallLog) -> None:
    """End a seat's watch stream once its credential is revoked (reissued, or the seat left):
    from then on it shows that seat's hand to nobody."""
    if seat is None or call.token is None:
        return
    if game.stored.credential_hashes[seat] != auth.credential_hash(call.token):
        raise errors.credential_rejected()


def pb_notification(version: int) -> MoveNotification:
    """The notification of a write that is not a move: the game, no events."""
    return MoveNotification(version=version)


def _index_entries(game: LoadedGame) -> list[IndexEntry]:
    """The listing entries of a new game: every game's index, the lobby's when it is public
    with open seats, each player's."""
    stored, game_id = game.stored, game.game_id
    score = stored.create_time_ms
    index = [lobby.index_keys(game_id, lobby=False)[0]]
    if stored.public and open_seats(stored):
        index.append(lobby.index_keys(game_id, lobby=True)[0])
    index += [keys.player_index(p) for p in dict.fromkeys(stored.player_ids) if p]
    return [IndexEntry(key, score, game_id) for key in index]


def _rematch_of(old: LoadedGame) -> LoadedGame:
    """A new game with `old`'s setup and a new seed: each seat keeps its credential (open
    seats stay open, with the same join code)."""
    engine = old.engine
    setup = engine.setup_of(old.state)
    state, _ = engine.new_game(setup.options, setup.seats, rng.new_seed())
    before = old.stored
    stored = StoredGame(
        game_type=before.game_type,
        display_names=before.display_names,
        credential_hashes=before.credential_hashes,
        player_ids=before.player_ids,
        join_code_hash=before.join_code_hash,
        public=before.public,
        create_time_ms=lobby.now_ms(),
        rematch_of=old.game_id,
        bot_levels=before.bot_levels,
    )
    if before.clock.seconds:
        stored.clock.seconds = before.clock.seconds
        stored.clock.on_timeout = before.clock.on_timeout
        stored.clock.abandon_after = before.clock.abandon_after
        stored.clock.bank_ms = before.clock.bank_ms
    getattr(stored, before.game_type).CopyFrom(state)
    game_id = secrets.token_hex(12)
    return LoadedGame(game_id, 1, stored, engine, getattr(stored, before.game_type))


def _since_version(since_etag: str) -> int | None:
    """The version of a WatchGame's since_etag (None: none given)."""
    if not since_etag:
        return None
    if not since_etag.isascii() or not since_etag.isdigit() or len(since_etag) > 18:
        raise errors.invalid_etag()
    version = int(since_etag)
    if version < 1:
        raise errors.invalid_etag()
    return version


def _check_resumable(since: int, game: LoadedGame) -> None:
    if since > game.version:
        raise errors.resume_out_of_range(
            etag_of(since), game.etag, "this game has not reached that etag"
        )
    if game.version - since > MAX_RESUMED_MOVES:
        raise errors.resume_out_of_range(
            etag_of(since),
            game.etag,
            f"{game.version - since} moves ago; a resume replays at most {MAX_RESUMED_MOVES}",
        )


async def _replayed(
    game: LoadedGame, log: list[bytes], after: int, seat: int | None
) -> AsyncIterator[pb.WatchGameResponse]:
    for update in replayed_updates(game, log, after, seat):
        if update is None:
            await asyncio.sleep(0)  # a long replay lets the other calls run meanwhile
        else:
            yield update


def _drain(queue: WatchQueue) -> None:
    """Forget what a queue holds (the log has it all) and start counting again."""
    while not queue.empty():
        queue.get_nowait()
    queue.skipped = 0


class _Cutoff:
    """Ends a stream whose client does not read. A write that gRPC's flow control holds
    (the client's window is full) while moves keep coming fills the stream's queue; the next
    move that does not fit ends the stream with RESOURCE_EXHAUSTED (WATCH_TOO_SLOW), sent after
    everything already written, so the client learns it and resumes with since_etag. A stream
    that is merely behind (not waiting on a write) catches up from the log instead."""

    def __init__(self, context: grpc.aio.ServicerContext, call: CallLog) -> None:
        self.writing = False
        self.error: errors.ServiceError | None = None
        self._context = context
        self._call = call
        self._abort: asyncio.Task[None] | None = None

    def overflowed(self, queue: WatchQueue) -> None:
        if not self.writing or self.error is not None:
            return
        self.error = error = errors.watch_too_slow(queue.qsize() + queue.skipped)
        self._call.fail(error)
        metrics.WATCH_CUT_OFF.inc()
        # The status waits behind the held write until the client reads or goes away: hold
        # nothing meanwhile.
        queue.close()
        # From a task of its own: the stream's coroutine is suspended in the write.
        self._abort = asyncio.create_task(self._end(error))

    async def _end(self, error: errors.ServiceError) -> None:
        # abort raises AbortError once the status is on its way, or fails when the call ended
        # otherwise first (the client went away, the server is stopping): nothing left to do.
        with contextlib.suppress(Exception):
            await self._context.abort_with_status(error.to_status())
