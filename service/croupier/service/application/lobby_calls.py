"""The lobby's RPCs, past their checks in GameService: CreateGame (a new game, or a rematch),
JoinGame, LeaveGame, ReissueCredential, ListGames and GetGameRecord. Each change of a game is a
write with the version's compare-and-set, decided again when another write lands first. The
listings, page tokens and feed entries they use are in
service/croupier/service/application/lobby.py."""

from __future__ import annotations

import dataclasses
import hmac
import secrets

from croupier.engines.core import rng
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.registry import GAMES, AnyEngine
from croupier.service.application import auth, bots, callers, clocks, errors, lobby, moves
from croupier.service.application.bot_seats import BotSeats
from croupier.service.application.callers import CallLog
from croupier.service.application.games import LoadedGame, game_name, open_seats, player_ids
from croupier.service.application.writes import GameWrites
from croupier.service.store import keys
from croupier.service.store.protocol import IndexEntry
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import IdempotencyRecord, LoggedMove, StoredClock, StoredGame

LOBBY_PREFIX = keys.lobby_index(0).rsplit(":", 1)[0] + ":"


class LobbyCalls:
    def __init__(self, writes: GameWrites, bot_seats: BotSeats, page_secret: bytes | None) -> None:
        self._writes = writes
        self._bots = bot_seats
        self._store = writes.store
        self._settings = writes.settings
        self._states = writes.states
        self._page_secret = page_secret

    async def create(
        self,
        request: pb.CreateGameRequest,
        engine: AnyEngine,
        names: list[str],
        players: list[str],
        levels: list[str],
        clock: StoredClock | None,
        record_id: str,
        call: CallLog,
    ) -> pb.CreateGameResponse:
        """CreateGame past its checks: a new game of `engine`'s, its seats' credentials (none
        for a bot seat, or an open seat without a player), written with its listing entries and
        its clock's deadline; with a request id, made once (`record_id`: the store's name of
        it, auth.scoped_request_id)."""
        game_type = engine.game_type
        digest = moves.digest_of(request.SerializeToString(deterministic=True))
        if request.request_id:
            kept = await self._store.get_create_record(record_id)
            if kept is not None:
                return _replayed_create(kept, digest, call)

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
            spectators_off=request.spectators == pb.SPECTATORS_OFF,
        )
        game_id = secrets.token_hex(12)
        call.game = game_id
        # The state is packed into `stored` when the game is written (LoadedGame.encode).
        game = LoadedGame(game_id, 1, stored, engine, state)
        clocks.refresh(game, None, clocks.now_ms())
        await self._writes.schedule(game)
        await self._writes.write_new(game)
        self._bots.start_bots(game)
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
            return _replayed_create(kept, digest, call)
        return response

    async def rematch(self, old: LoadedGame, call: CallLog) -> pb.CreateGameResponse:
        """The rematch of `old` (its caller a seat or the operator): the finished game's setup
        with a new seed, made once however many calls ask at the same time."""
        old_id = old.game_id
        new: LoadedGame | None = None
        for _ in range(self._settings.max_commit_attempts):
            if old.stored.rematch:
                if new is not None:  # another call named its rematch first: keep that one
                    await self._store.delete(new.game_id)
                    self._states.forget(new.game_id)
                made = await self._writes.load(old.stored.rematch, call)
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
                await self._writes.schedule(new)
                await self._writes.write_new(new)
            old.stored.rematch = new.game_id
            current = await self._writes.update(old)
            if current is None:
                call.game = new.game_id
                self._bots.start_bots(new)
                return pb.CreateGameResponse(
                    name=game_name(new.game_id), etag=new.etag, view=new.view(None)
                )
            old = self._writes.decode(old_id, current, call)
        raise errors.contention()

    async def join(
        self, game_id: str, request: pb.JoinGameRequest, call: CallLog
    ) -> pb.JoinGameResponse:
        """Claim the first open seat of the game with its join code (the request checked).
        With a request id, once: its record (the first response) is kept by the same write as
        the seat, and a retry, on any replica, is answered from it."""
        name = request.display_name
        code_hash = auth.credential_hash(request.join_code)
        digest = moves.digest_of(request.SerializeToString(deterministic=True))
        # The record is the game's (keyed by the game and the id): it is answered only to a
        # caller with the game's join code and this very request (the digest).
        request_id = f"join:{request.request_id}" if request.request_id else None
        snapshot = await self._writes.read(game_id, request_id)
        game = self._writes.decode(game_id, snapshot, call)
        kept = snapshot.record
        indexed = False
        for _ in range(self._settings.max_commit_attempts):
            stored = game.stored
            if not request.join_code:
                # A public game is listed in the lobby for anyone to take a seat, and the
                # lobby cannot show its secret code (only its hash is kept): no code needed.
                if not stored.public:
                    raise errors.invalid_argument(
                        errors.Reason.INVALID_JOIN_CODE,
                        "join_code",
                        "send the join code CreateGame returned (a public game's seat is"
                        " joined without one)",
                    )
            # Compared in constant time; a game without a code matches no code.
            elif not stored.join_code_hash or not hmac.compare_digest(
                code_hash, stored.join_code_hash
            ):
                raise errors.join_code_rejected()
            if kept is not None:
                return _replayed_join(kept, digest, call)
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
            await self._writes.schedule(game)
            # The response is the written version's, made before the write to be its record.
            written = dataclasses.replace(game, version=game.version + 1)
            response = pb.JoinGameResponse(
                seat=seat, seat_credential=credential, view=written.view(seat)
            )
            record = None
            if request_id is not None:
                kept_now = IdempotencyRecord(
                    request_digest=digest, response=response.SerializeToString()
                )
                record = (request_id, kept_now.SerializeToString())
            current = await self._writes.update(game, record=record)
            if current is None:
                call.seat = seat
                await self._writes.feed(
                    pb.FeedEvent.Kind.KIND_SEAT_JOINED,
                    game_id,
                    game.version,
                    game.engine.game_type,
                    players,
                    seat=seat,
                )
                self._bots.start_bots(game)
                return response
            # Another write won, or this request was made before (its record): decide again.
            game = self._writes.decode(game_id, current, call)
            kept = current.record
        raise errors.contention()

    async def leave(self, game_id: str, call: CallLog) -> pb.LeaveGameResponse:
        """Free the caller's seat (before the first move of a game with a join code)."""
        game = await self._writes.load(game_id, call)
        for _ in range(self._settings.max_commit_attempts):
            seat = callers.seat(game, call, required=True)
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
            # Waiting again: the clock stops (no deadlines), and starts afresh at the next join
            # that fills the table (a deadline kept from now would be long past by then).
            clocks.refresh(game, None, clocks.now_ms())
            if stored.public:
                # The game is open again: back in the lobby (before the write, as at creation).
                await self._store.index_add(
                    [
                        IndexEntry(
                            lobby.index_keys(game_id, lobby=True)[0], stored.create_time_ms, game_id
                        )
                    ]
                )
            current = await self._writes.update(game)
            if current is None:
                return pb.LeaveGameResponse(view=game.view(None))
            game = self._writes.decode(game_id, current, call)
        raise errors.contention()

    async def reissue(
        self, game_id: str, request: pb.ReissueCredentialRequest, call: CallLog
    ) -> pb.ReissueCredentialResponse:
        """A new credential for a seat (the operator's call), the seat's old one revoked."""
        game = await self._writes.load(game_id, call)
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
            current = await self._writes.update(game)
            if current is None:
                return pb.ReissueCredentialResponse(seat_credential=credential)
            game = self._writes.decode(game_id, current, call)
        raise errors.contention()

    async def list_games(
        self, request: pb.ListGamesRequest, operator: bool
    ) -> pb.ListGamesResponse:
        """A page of the games the operator (`operator`) or the lobby lists."""
        size = lobby.page_size(request.page_size)
        listing = lobby.parse_filter(request.filter, set(GAMES))
        listing_id = lobby.listing_id(operator, listing)
        secret = await self._page_token_secret()
        cursor = (
            lobby.decode_token(secret, operator, listing, request.page_token)
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
                try:
                    game = LoadedGame.decode(entry.game_id, snapshot.version, snapshot.data)
                except errors.ServiceError:
                    continue  # GAME_UNREADABLE: stored in an older format, listed by no page
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


def game_record(game: LoadedGame, entries: list[bytes]) -> pb.GetGameRecordResponse:
    """The record of a finished game (its caller a seat or the operator), its moves from
    the log `entries`."""
    game_id = game.game_id
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
    if stored.spectators_off:
        record.setup.spectators = pb.SPECTATORS_OFF
    getattr(record.setup, game.engine.game_type).CopyFrom(setup.options)
    for entry in entries:
        logged = LoggedMove.FromString(entry)
        record.moves.add(seat=logged.seat, move=logged.move)
    clocks.add_to_record(game, record)
    return pb.GetGameRecordResponse(record=record)


def _replayed_create(kept: bytes, digest: bytes, call: CallLog) -> pb.CreateGameResponse:
    record = IdempotencyRecord.FromString(kept)
    if record.request_digest != digest:
        raise errors.request_id_reused()
    response = pb.CreateGameResponse.FromString(record.response)
    call.game = response.name.removeprefix("games/")
    return response


def _replayed_join(kept: bytes, digest: bytes, call: CallLog) -> pb.JoinGameResponse:
    """The first response to a JoinGame request id, to the same request only."""
    record = IdempotencyRecord.FromString(kept)
    if record.request_digest != digest:
        raise errors.request_id_reused()
    response = pb.JoinGameResponse.FromString(record.response)
    call.seat = response.seat
    return response


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
        spectators_off=before.spectators_off,
    )
    if before.clock.seconds:
        stored.clock.seconds = before.clock.seconds
        stored.clock.on_timeout = before.clock.on_timeout
        stored.clock.abandon_after = before.clock.abandon_after
        stored.clock.bank_ms = before.clock.bank_ms
    # Packed into `stored` when the game is written (LoadedGame.encode).
    return LoadedGame(secrets.token_hex(12), 1, stored, engine, state)
