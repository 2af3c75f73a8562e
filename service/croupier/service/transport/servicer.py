"""The GameService: each RPC's contract, read as the API gives it: the request's checks, then the
application's step that serves it, then the response. What every call passes before and after
(credential read, bounds, rate limits, log line, metrics, status) is the call wrapper's
(service/croupier/service/transport/calls.py). Rules live in the engines, storage in the store; a
move's checks, write and commit loop are in service/croupier/service/application/moves.py, the
lobby's RPCs in service/croupier/service/application/lobby_calls.py, bot seats in
service/croupier/service/application/bot_seats.py, the turn clocks' sweep in
service/croupier/service/application/clock_sweep.py, and the reads and writes they share in
service/croupier/service/application/writes.py. The watch streams' loop is here."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Callable

import grpc

from croupier.engines.core import descriptors
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.registry import GAMES
from croupier.service.application import (
    auth,
    bots,
    callers,
    clocks,
    display_names,
    errors,
    lobby,
    moves,
)
from croupier.service.application.bot_seats import BotSeats
from croupier.service.application.callers import CallLog
from croupier.service.application.clock_sweep import ClockSweep
from croupier.service.application.config import Settings
from croupier.service.application.games import (
    LoadedGame,
    Published,
    etag_of,
    replayed_updates,
)
from croupier.service.application.limits import peer_address
from croupier.service.application.lobby_calls import LobbyCalls, game_record
from croupier.service.application.recent_states import RecentStates
from croupier.service.application.writes import GameWrites
from croupier.service.observability import metrics
from croupier.service.store.fanout import Inbound, WatchQueue
from croupier.service.store.protocol import Commit, Store
from croupier.service.transport import sessions
from croupier.service.transport.calls import Admission, session_move, streaming, unary
from croupier.v1 import game_service_pb2 as pb
from croupier.v1 import game_service_pb2_grpc, storage_pb2

MAX_JOIN_CODE = 256

# Matched whole (fullmatch): `$` would also accept a trailing newline.
_ID = re.compile(r"[0-9a-f]{24}")
# AIP-155: a request id is a UUID (any version) in its canonical 8-4-4-4-12 hex form, so that
# a retry id cannot be guessed by another caller; matched whole, either case, kept as sent.
_REQUEST_ID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
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
    """The one rule of CreateGame's, ApplyMove's and JoinGame's request ids: empty (none), or
    a UUID."""
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


class GameService(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, store: Store, settings: Settings) -> None:
        # Made once rather than on every read of a repeated field
        # (engines/croupier/engines/core/descriptors.py).
        descriptors.keep((pb.DESCRIPTOR, storage_pb2.DESCRIPTOR))
        self._store = store
        self._settings = settings
        keys = (settings.operator_key or "").split(",")
        self._operator_hashes = [auth.credential_hash(k.strip()) for k in keys if k.strip()]
        self._states = RecentStates(settings.state_cache_size)
        # The call wrapper's (service/croupier/service/transport/calls.py): the bounds and rate
        # limits every call passes.
        self.admission = Admission(settings, bool(self._operator_hashes))
        self._writes = GameWrites(store, settings, self._states)
        self._watchers = self._writes.watchers
        self._notifications = self._writes.notifications
        self._bots = BotSeats(self._writes)
        self._clocks = ClockSweep(self._writes, self._bots)
        page_secret = settings.page_token_secret.encode() if settings.page_token_secret else None
        self._lobby = LobbyCalls(self._writes, self._bots, page_secret)
        self._moves = moves.Moves(self._writes, self._bots.start_bots_of)

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
        for name in names:
            display_names.check(name, "display_names")
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
        if request.spectators not in pb.Spectators.values():
            raise errors.invalid_argument(
                errors.Reason.INVALID_SPECTATORS,
                "spectators",
                "spectators is SPECTATORS_ALLOWED, SPECTATORS_OFF or unset",
            )
        clock = clocks.check(request.clock if request.HasField("clock") else None)
        _check_request_id(request.request_id)
        # With operator keys the record is the key's own: another key (or a guess) sending the
        # same request id gets a game of its own, never this one's seat credentials.
        record_id = auth.scoped_request_id(
            call.token if self._operator_hashes else None, request.request_id
        )
        return await self._lobby.create(
            request, engine, names, players, levels, clock, record_id, call
        )

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
            or request.spectators
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
        old = await self._writes.load(old_id, call)
        self._caller_of(old, call)
        return await self._lobby.rematch(old, call)

    def _caller_of(self, game: LoadedGame, call: CallLog) -> int | None:
        """A seat of the game (its seat), or the operator (None); refused otherwise."""
        return callers.caller_of(game, call, self._operator_hashes)

    @unary
    async def GetGame(
        self, request: pb.GetGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.GetGameResponse:
        call.game = game_id = _game_id(request.name)
        game = await self._writes.load(game_id, call)
        self._bots.start_bots(game)
        seat = callers.seat(game, call, required=False)
        response = pb.GetGameResponse()
        game.fill_view(response.view, seat)
        return response

    @unary
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ListLegalMovesResponse:
        call.game = game_id = _game_id(request.name)
        game = await self._writes.load(game_id, call)
        seat = callers.seat(game, call, required=True)
        assert seat is not None
        response = pb.ListLegalMovesResponse(etag=game.etag, seat=seat)
        if seat in game.engine.active_seats(game.state):
            game.fill_legal_moves(response.moves, seat)
        return response

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
        response, _ = await self._moves.apply(
            game_id, request, request_id, _deadline_ms(context), call
        )
        return response

    @unary
    async def JoinGame(
        self, request: pb.JoinGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.JoinGameResponse:
        call.game = game_id = _game_id(request.name)
        # Without a code: only a public game's seat (checked once the game is read).
        if len(request.join_code) > MAX_JOIN_CODE:
            raise errors.invalid_argument(
                errors.Reason.INVALID_JOIN_CODE,
                "join_code",
                "send the join code CreateGame returned",
            )
        lobby.check_player_id(request.player_id, "player_id")
        display_names.check(request.display_name, "display_name")
        _check_request_id(request.request_id)
        return await self._lobby.join(game_id, request, call)

    @unary
    async def LeaveGame(
        self, request: pb.LeaveGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.LeaveGameResponse:
        call.game = game_id = _game_id(request.name)
        return await self._lobby.leave(game_id, call)

    @unary
    async def ReissueCredential(
        self, request: pb.ReissueCredentialRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ReissueCredentialResponse:
        call.game = game_id = _game_id(request.name)
        self._require_operator(call)
        return await self._lobby.reissue(game_id, request, call)

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

    async def run_clocks(self) -> None:
        """Every replica's sweep of the due index (ClockSweep.run_clocks); runs until
        cancelled."""
        await self._clocks.run_clocks()

    async def sweep_clocks(self) -> int:
        """One sweep of the due index (tests with an injectable clock call it between their
        moves). Returns the entries found."""
        return await self._clocks.sweep_clocks()

    def _require_operator(self, call: CallLog) -> None:
        callers.require_operator(call, self._operator_hashes)

    @unary
    async def GetGameRecord(
        self, request: pb.GetGameRecordRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.GetGameRecordResponse:
        call.game = game_id = _game_id(request.name)
        game, entries = await self._writes.load_with_log(game_id, call)
        self._caller_of(game, call)
        return game_record(game, entries)

    @unary
    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> pb.ListGamesResponse:
        # With a token the caller asks as the operator; without one, the lobby.
        operator = call.token is not None
        if operator:
            self._require_operator(call)
        return await self._lobby.list_games(request, operator)

    # The stream yields messages, or updates already serialized (games.Published.update_for:
    # the same bytes for every stream of a seat), which server.py's serializer passes through.
    @streaming
    async def WatchGame(  # type: ignore[override]
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext, call: CallLog
    ) -> AsyncIterator[pb.WatchGameResponse | bytes]:
        call.game = game_id = _game_id(request.name)
        since = _since_version(request.since_etag)
        async for response in self._stream(game_id, since, context, call, None):
            yield response

    # A session's messages are serialized by service/croupier/service/transport/sessions.py.
    @streaming
    async def PlayGame(  # type: ignore[override]
        self,
        requests: AsyncIterator[sessions.Request],
        context: grpc.aio.ServicerContext,
        call: CallLog,
    ) -> AsyncIterator[pb.WatchGameResponse | bytes]:
        start = await sessions.first_message(requests)
        if start is None:
            return  # the client closed its side before starting
        call.game = game_id = _game_id(start.name)
        since = _since_version(start.since_etag)
        if call.token is None:
            raise errors.credential_missing()
        session = _Session(self, requests, context, call)
        try:
            async for response in self._stream(game_id, since, context, call, session):
                yield response
        finally:
            await session.reader.close()

    async def _stream(
        self,
        game_id: str,
        since: int | None,
        context: grpc.aio.ServicerContext,
        call: CallLog,
        session: _Session | None,
    ) -> AsyncIterator[pb.WatchGameResponse | bytes]:
        """A watch stream's or a session's messages, within the game's bound of streams here,
        ended with WATCH_TOO_SLOW when its client stops reading (`_Cutoff`)."""
        stream = self._watchers.enter(game_id, call.token, peer_address(context.peer()))
        cutoff = _Cutoff(context, call)
        try:
            async for response in self._watch(game_id, since, cutoff, call, session):
                # While the client does not read, gRPC's flow control holds this write.
                cutoff.writing = True
                yield response
                cutoff.writing = False
                if cutoff.error is not None:
                    # gRPC closes a stream it ended, so this is the web gateway's, whose
                    # context cannot end it from another task: it ends here.
                    raise cutoff.error
        finally:
            self._watchers.leave(stream)

    async def _watch(
        self,
        game_id: str,
        since: int | None,
        cutoff: _Cutoff,
        call: CallLog,
        session: _Session | None = None,
    ) -> AsyncIterator[pb.WatchGameResponse | bytes]:
        """Subscribe first, then read: a move is either in what was read or notified after it.
        Every move is sent once, in order: a notification of a version already sent is
        skipped, and a gap (a full queue, a notification lost in a failover, the moves before a
        resume) is filled from the store's move log, never jumped over. A resumed stream's
        first messages bring the client to the view now: the missed moves, the last of which
        is the view now, or with nothing missed the view now alone. A session's moves come
        through the same queue (sessions.Reader), each answered in turn."""
        sent: Callable[[pb.WatchGameResponse | bytes], pb.WatchGameResponse | bytes] = (
            _as_is if session is None else sessions.update_message
        )
        required = session is not None
        async with self._store.watch(game_id) as notifications:
            notifications.on_overflow = lambda: cutoff.overflowed(notifications)
            if since is None:
                game = await self._writes.load_shared(game_id, call)
                seat = callers.seat(game, call, required=required)
                yield sent(pb.WatchGameResponse(view=game.view(seat)))
            else:
                game, log = await self._writes.load_with_log(game_id, call)
                seat = callers.seat(game, call, required=required)
                _check_resumable(since, game)
                if since == game.version:
                    # Nothing missed: the view now, without events, rather than silence until
                    # the next move, so that the client knows at once that it is back (and a
                    # seat sees its clock and legal moves as they are now).
                    yield sent(pb.WatchGameResponse(view=game.view(seat)))
                else:
                    async for update in _replayed(game, log, since, seat):
                        yield sent(update)
            # Hashed once: every move's update checks that the seat is still this credential's.
            digest = None if call.token is None else auth.credential_hash(call.token)
            if session is not None:
                assert seat is not None
                session.start(notifications, game_id, seat)
            over = game.over  # `game`'s, kept with it (a move's is its notification's)
            while not over:
                behind = False
                if notifications.skipped:
                    # The stream fell far behind while its client was reading (the server was
                    # busy): what did not fit in the queue is in the log.
                    _drain(notifications)
                    behind = True
                else:
                    try:
                        payload = await notifications.next(self._settings.watch_poll_seconds)
                    except TimeoutError:
                        # A notification can be lost (a failover, a pub/sub reconnection).
                        snapshot = await self._writes.read(game_id)
                        behind = snapshot.version > game.version
                        if not behind:
                            # A bot seat left waiting (the process playing it stopped).
                            self._bots.start_bots(game)
                    else:
                        if isinstance(payload, Inbound):
                            assert session is not None
                            if payload.message is None:
                                return  # the client closed its side: the session is over
                            try:
                                answer, moved = await session.answer(payload.message, game)
                            finally:
                                payload.handled.set()
                            if moved is not None:
                                game, over = moved.game, moved.over
                            yield answer
                            continue
                        published = self._notifications.decode(
                            game_id, payload, self._watchers.count(game_id)
                        )
                        if published.game.version == game.version + 1:
                            game, over = published.game, published.over
                            _check_still_seated(game, seat, digest)
                            yield sent(published.update_for(seat))
                        behind = published.game.version > game.version
                if behind:
                    current, log = await self._writes.load_with_log(game_id, call)
                    if current.version - game.version > MAX_RESUMED_MOVES:
                        raise errors.watch_too_slow(current.version - game.version)
                    _check_still_seated(current, seat, digest)
                    async for update in _replayed(current, log, game.version, seat):
                        yield sent(update)
                    game, over = current, current.over


class _Session:
    """A PlayGame session's moves: each read in turn with the game's notifications
    (sessions.Reader), applied as ApplyMove applies a move (moves.Moves.apply), and answered
    with its outcome; an applied move's outcome carries the update it made when that is the
    next one the session sends (else the update follows in turn, from the queue or the log)."""

    def __init__(
        self,
        service: GameService,
        requests: AsyncIterator[sessions.Request],
        context: grpc.aio.ServicerContext,
        call: CallLog,
    ) -> None:
        self.reader = sessions.Reader(requests)
        self._service = service
        self._context = context
        self._call = call
        self._game_id = ""
        self._seat = 0

    def start(self, queue: WatchQueue, game_id: str, seat: int) -> None:
        self._game_id, self._seat = game_id, seat
        self.reader.start(queue)

    async def answer(self, message: object, game: LoadedGame) -> tuple[bytes, Published | None]:
        """The message answering the client's `message` on `game` (the last version the
        session sent), and the move as published when the answer carries its update."""
        move = sessions.move_of(message)
        service, game_id = self._service, self._game_id
        call = CallLog("PlayGame.Move", game=game_id, token=self._call.token)
        outcome = pb.MoveOutcome(request_id=move.request_id)

        async def apply() -> tuple[pb.ApplyMoveResponse, Commit | None]:
            _check_request_id(move.request_id)
            assert call.token is not None
            request_id = (
                auth.scoped_request_id(call.token, move.request_id) if move.request_id else None
            )
            request = pb.ApplyMoveRequest(move=move.move, etag=move.etag)
            return await service._moves.apply(game_id, request, request_id, 0, call)

        try:
            response, commit = await session_move(service.admission, self._context, call, apply)
        except errors.ServiceError as error:
            outcome.status.CopyFrom(error.status_message())
            outcome.etag = game.etag
            return sessions.outcome_message(outcome), None
        outcome.etag = response.etag
        if commit is None or commit.expected_version != game.version:
            # Applied before (a retried request id), or after moves this session has not sent
            # yet: their updates come first, this one's in turn.
            return sessions.outcome_message(outcome), None
        published = service._notifications.written(game_id, commit.notification_head + commit.data)
        if published is None:
            # Forgotten meanwhile (a busy process): the update is the response's view.
            update = pb.WatchGameResponse(view=response.view, events=response.events)
            moved = LoadedGame.decode(game_id, commit.expected_version + 1, commit.data)
            published = Published(moved, ())
            published.updates[self._seat] = update.SerializeToString()
        return sessions.outcome_message(outcome, published.update_for(self._seat)), published


def _as_is(update: pb.WatchGameResponse | bytes) -> pb.WatchGameResponse | bytes:
    return update


def _check_still_seated(game: LoadedGame, seat: int | None, digest: bytes | None) -> None:
    """End a seat's watch stream once its credential (`digest`: the stream's credential hash,
    None for a spectator) is revoked (reissued, or the seat left): from then on it shows that
    seat's hand to nobody."""
    if seat is None or digest is None:
        return
    if game.stored.credential_hashes[seat] != digest:
        raise errors.credential_rejected()


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
