"""Between the wire and the engines: packs a game's own messages into the generic ones
(`Move`, `Event`, `GameView`, `StoredGame`) and builds each caller's redacted view.

The oneof members of the generic messages are named by game type, and a stored game holds its
state packed in an Any (`state_of`, `LoadedGame.encode`), so this module needs no knowledge of
any particular game.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from croupier.engines.core.engine import Emitted
from croupier.engines.core.scoring import forfeit_result
from croupier.engines.registry import GAMES, AnyEngine
from croupier.service.application import errors
from croupier.service.observability import metrics
from croupier.v1.common_pb2 import GameResult
from croupier.v1.game_service_pb2 import (
    GAME_STATUS_ACTIVE,
    GAME_STATUS_FINISHED,
    GAME_STATUS_WAITING,
    Event,
    GameStatus,
    GameView,
    Move,
    WatchGameResponse,
)
from croupier.v1.storage_pb2 import AudiencedEvent, LoggedMove, MoveNotification, StoredGame

NAME_PREFIX = "games/"

T = TypeVar("T")


def items_of(repeated: Sequence[T]) -> list[T]:
    """A repeated field's items, as a list. Loops over the field itself end in an IndexError
    raised and caught inside protobuf's container (it is iterated by index), which costs more
    than the copy, and a move runs several such loops. A slice of a repeated field is a list,
    made in one step."""
    return cast(list[T], repeated[:])


def game_name(game_id: str) -> str:
    return NAME_PREFIX + game_id


def etag_of(version: int) -> str:
    return str(version)


def open_seats(stored: StoredGame) -> list[int]:
    """The seats not yet claimed (an empty credential hash)."""
    return [seat for seat, digest in enumerate(items_of(stored.credential_hashes)) if not digest]


def player_ids(stored: StoredGame, seats: int) -> list[str]:
    """One player id per seat (games stored before player ids have none)."""
    return items_of(stored.player_ids) or [""] * seats


class UnreadableGame(Exception):
    """A stored game without a state this service can unpack: one stored in the format before
    the Any (docs/decisions.md), or of a game type this server does not serve."""


# The type URL of each game's state as `pack_state` writes it (Any's default prefix).
_STATE_TYPE_URLS = {
    game_type: f"type.googleapis.com/{engine.state_type.DESCRIPTOR.full_name}"
    for game_type, engine in GAMES.items()
}


def state_of(stored: StoredGame) -> Any:
    """The engine's state held in `stored`, unpacked into a new message: changing it leaves
    `stored` as it was until `pack_state` (or `LoadedGame.encode`) packs it again."""
    engine = GAMES.get(stored.game_type)
    if engine is None:
        raise UnreadableGame(f"no engine for game type {stored.game_type!r}")
    state = engine.state_type()
    packed = stored.state
    # What `Unpack` checks (the type named after the URL's last "/") costs about what the parse
    # costs: the URL that `pack_state` writes is compared whole, and any other goes through it.
    if packed.type_url == _STATE_TYPE_URLS[stored.game_type]:
        state.ParseFromString(packed.value)
    elif not packed.Unpack(state):
        raise UnreadableGame(
            f"the stored {stored.game_type} game holds no {state.DESCRIPTOR.full_name}"
            f" (type {stored.state.type_url!r}): stored in an older format"
        )
    return state


def pack_state(stored: StoredGame, state: Any) -> None:
    """Put the engine's `state` into `stored` (before every serialization of `stored`)."""
    stored.state.Pack(state)


@dataclass(slots=True, weakref_slot=True)
class LoadedGame:
    """A stored game decoded for one request. `state` is the live state the engine changes;
    `stored` holds it packed only as of the last `encode`, so every serialization of `stored`
    goes through `encode`. One that the watch streams share (`GameWrites.load_shared`, and a
    move's `Published.game`) is never changed."""

    game_id: str
    version: int
    stored: StoredGame
    engine: AnyEngine
    state: Any

    @classmethod
    def decode(cls, game_id: str, version: int, data: bytes) -> LoadedGame:
        stored = StoredGame.FromString(data)
        try:
            state = state_of(stored)
        except UnreadableGame as exc:
            raise errors.game_unreadable(game_name(game_id), str(exc)) from None
        return cls(game_id, version, stored, GAMES[stored.game_type], state)

    def encode(self) -> bytes:
        """The stored game serialized, with the current state packed into it."""
        pack_state(self.stored, self.state)
        return self.stored.SerializeToString()

    @property
    def etag(self) -> str:
        return etag_of(self.version)

    @property
    def waiting(self) -> bool:
        """Some seats are open (`open_seats` is not empty): no moves until every seat is
        claimed."""
        return not all(items_of(self.stored.credential_hashes))  # an open seat's is empty

    def result(self) -> GameResult | None:
        """The final result once the game is over: the engine's, or a forfeit's (a seat's
        deadline passed under TIMEOUT_POLICY_FORFEIT, which the engine's state does not know)."""
        clock = self.stored.clock
        if clock.HasField("forfeited_seat"):
            return forfeit_result(
                self.state.seats, clock.forfeited_seat, cooperative=self.engine.cooperative
            )
        return self.engine.result(self.state)

    @property
    def over(self) -> bool:
        return self.stored.clock.HasField("forfeited_seat") or (
            self.engine.result(self.state) is not None
        )

    def status(self) -> GameStatus.ValueType:
        if self.over:
            return GAME_STATUS_FINISHED
        return GAME_STATUS_WAITING if self.waiting else GAME_STATUS_ACTIVE

    def view(self, seat: int | None) -> GameView:
        view = GameView()
        self.fill_view(view, seat)
        return view

    def fill_view(self, view: GameView, seat: int | None) -> None:
        """Write `seat`'s view into `view` (a response's own field: no copy of a copy)."""
        self.fill_shared(view)
        if seat is not None and seat in items_of(view.active_seats):
            self.fill_legal_moves(view.legal_moves, seat)
        self.fill_own(view, seat)

    def fill_legal_moves(self, moves: RepeatedCompositeFieldContainer[Move], seat: int) -> None:
        """Append every move `seat` may make now to `moves` (a view's or ListLegalMoves' own
        field: each move copied once, in place). None while the game waits for players or
        after a forfeit (the engine does not know of either: its state goes on)."""
        if self.waiting or self.stored.clock.HasField("forfeited_seat"):
            return
        game_type = self.engine.game_type
        for move in self.engine.legal_moves(self.state, seat):
            getattr(moves.add(), game_type).CopyFrom(move)

    def fill_shared(self, view: GameView) -> None:
        """What every seat's view of this version holds alike: all but the viewer's seat and
        the game's own view (`fill_own`)."""
        self.fill_before_seat(view)
        self.fill_after_seat(view)

    def fill_before_seat(self, view: GameView) -> None:
        """The shared fields numbered before `viewer_seat`. Serialized apart from the others
        (`fill_after_seat`), the two parts are what an update puts before and after the seat's
        number (UpdateParts)."""
        view.name = game_name(self.game_id)
        view.game_type = self.engine.game_type
        view.etag = self.etag
        view.seats = self.state.seats
        view.display_names.extend(items_of(self.stored.display_names))

    def fill_after_seat(self, view: GameView) -> None:
        """The shared fields numbered after `viewer_seat`, up to the game's own view."""
        engine, state, stored = self.engine, self.state, self.stored
        # The open seats, read once: the field, and whether the game waits (some seat is open,
        # as `waiting` says). An empty repeated field is left alone: an extend by nothing
        # still costs a call into protobuf.
        unclaimed = open_seats(stored)
        clock = stored.clock
        forfeited = clock.HasField("forfeited_seat")
        # A game waiting for players accepts no move from any seat, nor a forfeited one.
        if not unclaimed and not forfeited:
            view.active_seats.extend(engine.active_seats(state))
        view.move_count = stored.move_count
        view.player_ids.extend(player_ids(stored, state.seats))
        if unclaimed:
            view.open_seats.extend(unclaimed)
        # The status as `status` says it, from what is computed here once.
        result = self.result()
        if result is not None:
            view.status = GAME_STATUS_FINISHED
        else:
            view.status = GAME_STATUS_WAITING if unclaimed else GAME_STATUS_ACTIVE
        if stored.rematch:
            view.rematch = game_name(stored.rematch)
        bot_levels = items_of(stored.bot_levels)
        if bot_levels:
            view.bot_levels.extend(bot_levels)
        if clock.seconds:
            view.clock_seconds = clock.seconds
            for deadline_seat, deadline in enumerate(items_of(clock.deadline_ms)):
                if deadline:
                    # Timestamp.FromMilliseconds's checks cost more than these two fields.
                    stamp = view.deadlines.add(seat=deadline_seat).deadline
                    stamp.seconds, stamp.nanos = deadline // 1000, deadline % 1000 * 1_000_000
            if clock.abandon_after:  # the away flags are kept only then, the banks with bank_ms
                view.away.extend(items_of(clock.away))
            if clock.bank_ms:
                view.time_bank_ms.extend(items_of(clock.banks_ms))
            if forfeited:
                view.forfeited_seat = clock.forfeited_seat
        if result is not None:
            view.result.CopyFrom(result)

    def fill_own(self, view: GameView, seat: int | None) -> None:
        """The viewer's seat and the game's own view as `seat` may see it (redacted by the
        engine)."""
        if seat is not None:
            view.viewer_seat = seat
        getattr(view, self.engine.game_type).CopyFrom(self.engine.view(self.state, seat))

    def unwrap_move(self, move: Move) -> Any | None:
        """The game's own move, or None when `move` is not a move of this game."""
        if move.WhichOneof("game") != self.engine.game_type:
            return None
        return getattr(move, self.engine.game_type)

    def wrap_move(self, move: Any) -> Move:
        wrapped = Move()
        getattr(wrapped, self.engine.game_type).CopyFrom(move)
        return wrapped

    def add_events(
        self,
        events: RepeatedCompositeFieldContainer[Event],
        emitted: Sequence[Emitted[Any]],
        seat: int | None,
    ) -> None:
        """Append the events of a move as `seat` may see them to `events` (a response's own
        field: each event is copied once, in place)."""
        game_type = self.engine.game_type
        for item in emitted:
            event = item.for_seat(seat)
            if event is not None:
                getattr(events.add(), game_type).CopyFrom(event)

    def notification(self, emitted: Sequence[Emitted[Any]]) -> MoveNotification:
        """The notification of the move that emitted `emitted`, without the game (see
        `notification_head`): every event with its audience."""
        game_type = self.engine.game_type
        note = MoveNotification(version=self.version)
        for item in emitted:
            entry = note.events.add()
            if item.public is not None:
                getattr(entry.public, game_type).CopyFrom(item.public)
            for seat, event in sorted(item.private.items()):
                getattr(entry.private.add(seat=seat).event, game_type).CopyFrom(event)
        return note


class MoveLogMismatch(Exception):
    """The move log does not replay to the stored state (never expected: a bug or lost data)."""


REPLAY_PAUSE_MOVES = 256  # replayed moves between two pauses (a None) of replayed_updates


def replayed_updates(
    current: LoadedGame, log: Sequence[bytes], after: int, seat: int | None
) -> Iterator[WatchGameResponse | None]:
    """The WatchGame messages of the moves after version `after`, rebuilt from the move log:
    the game is replayed from its setup (seed, options, seats: the engine is deterministic), and
    each message is the view after the move and the move's events as `seat` may see them, as
    the live stream sent it, but for the turn clock's state of that moment, which the log does
    not keep (deadlines, away seats, banks). The last message is the view now, clock and all,
    exactly the live stream's: the current version's move with its events, or, after writes
    that are no moves (a forfeit, a seat coming back, a join), the view now without events.
    Built one at a time, as the stream sends them, with a None every REPLAY_PAUSE_MOVES
    replayed moves, where the caller lets other work run (a long game takes about 0.1 s to
    replay).

    Raises MoveLogMismatch when the log does not lead to `current` (checked before the first
    message for its length, after the last for the state, byte for byte)."""
    engine = current.engine
    if len(log) != current.stored.move_count:
        raise MoveLogMismatch(f"{len(log)} logged moves, {current.stored.move_count} made")
    state, _ = engine.new_game(*_setup(engine, current.state))
    base = current.stored
    version = 0  # the last move's version (none yet)
    for index, entry in enumerate(log):
        logged = LoggedMove.FromString(entry)
        emitted = engine.apply(state, logged.seat, getattr(logged.move, engine.game_type))
        # Entries carry the version after their move (joins and other writes that are not
        # moves take versions too); older entries have none: then every version was a move.
        version = logged.version or index + 2
        if index % REPLAY_PAUSE_MOVES == REPLAY_PAUSE_MOVES - 1:
            yield None
        if version <= after:
            continue
        if version == current.version:
            # The move that made the game what it is now: the view now, as sent live.
            update = WatchGameResponse(view=current.view(seat))
            current.add_events(update.events, emitted, seat)
            yield update
            continue
        # Only what a view reads besides the state: names and the move count.
        stored = StoredGame(
            game_type=base.game_type,
            display_names=base.display_names,
            move_count=index + 1,
            player_ids=base.player_ids,
            credential_hashes=base.credential_hashes,
            bot_levels=base.bot_levels,
        )
        # The deadlines of that moment are not kept: a replayed view shows the clock only.
        stored.clock.seconds = base.clock.seconds
        game = LoadedGame(current.game_id, version, stored, engine, state)
        update = WatchGameResponse(view=game.view(seat))
        game.add_events(update.events, emitted, seat)
        yield update
    if current.version > max(after, version):
        # Writes that are no moves since the last move: their update is the view now, without
        # events (each one's own view is not kept: the last one's stands for them).
        yield WatchGameResponse(view=current.view(seat))
    if state.SerializeToString(deterministic=True) != current.state.SerializeToString(
        deterministic=True
    ):
        raise MoveLogMismatch(f"the log does not replay to version {current.version}")


def _setup(engine: AnyEngine, state: Any) -> tuple[Any, int, int]:
    setup = engine.setup_of(state)
    return setup.options, setup.seats, setup.seed


@dataclass(slots=True)
class Published:
    """A move as its notification told it (or as this process wrote it: `written`), and the
    update each seat's streams send for it."""

    game: LoadedGame
    events: Sequence[AudiencedEvent]
    # Whether several streams of this process watch the game: then even the first audience's
    # view is built from the shared view (below), which the others will need anyway.
    watched_by_several: bool = False
    updates: dict[int | None, bytes] = field(default_factory=dict)
    # What every seat's update holds alike, serialized once for the first seat asked for.
    parts: UpdateParts | None = None
    # The engine's shared view, for each audience after the first (from the first if
    # `watched_by_several`).
    shared: SharedView | None = None
    # Whether the move ended the game, asked once for every stream of the game here.
    over: bool = field(init=False)
    # Made by the process that wrote the move (`written`), until its notification finds it.
    filed: bool = False

    def __post_init__(self) -> None:
        self.over = self.game.over

    @classmethod
    def written(
        cls, game: LoadedGame, events: Sequence[AudiencedEvent], seat: int
    ) -> tuple[Published, bytes]:
        """A move as the process writing it knows it, for its watch streams there (see
        `RecentNotifications.remember`): every part the updates share made at once, and the
        mover's update; with the mover's view, serialized, for the response (the same bytes as
        `game.view(seat)`: parsing them costs a fraction of filling the message)."""
        engine, state = game.engine, game.state
        parts = UpdateParts.of(game, events)
        shared = None
        if engine.own_view_fields:
            shared = SharedView.of(engine, state)
            own = shared.put_in(engine.own_view(state, seat))
        else:
            # A game whose views share no split (the engine names no own fields): built whole.
            own = engine.view(state, seat).SerializeToString()
        view = parts.view(seat, own)
        published = cls(game, events, parts=parts, shared=shared, filed=True)
        published.updates[seat] = parts.update_with(seat, view)
        return published, view

    def update_for(self, seat: int | None) -> bytes:
        """The serialized WatchGameResponse that `seat`'s streams send for this move: the
        bytes of `WatchGameResponse(view=game.view(seat), events=<seat's events>)`, put
        together from the parts every seat shares and the seat's own view and events."""
        update = self.updates.get(seat)
        if update is None:
            if self.parts is None:
                self.parts = UpdateParts.of(self.game, self.events)
            update = self.updates[seat] = self.parts.update(seat, self._engine_view(seat))
        return update

    def _engine_view(self, seat: int | None) -> bytes:
        engine, state = self.game.engine, self.game.state
        if self.shared is not None:
            return self.shared.put_in(engine.own_view(state, seat))
        # The shared view costs about what a view built whole costs, and pays from the second
        # audience on: a game that one stream here watches has one audience, whose view is
        # built whole (docs/decisions.md, "Views in two parts").
        if not engine.own_view_fields or not (self.updates or self.watched_by_several):
            whole: bytes = engine.view(state, seat).SerializeToString()
            return whole
        if self.shared is None:
            self.shared = SharedView.of(engine, state)
        return self.shared.put_in(engine.own_view(state, seat))


# The varints of one byte, made once: several are written for every update.
_ONE_BYTE_VARINTS = tuple(bytes((value,)) for value in range(0x80))


def _varint(value: int) -> bytes:
    if value < 0x80:  # most: a tag here, a seat, the length of a small field
        return _ONE_BYTE_VARINTS[value]
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    """A field's tag in protobuf's wire format: its number, then its wire type (2:
    length-delimited, 0: a varint)."""
    return _varint((number << 3) | wire_type)


# The tags of the fields an update is put together from.
_UPDATE_VIEW_TAG = _tag(WatchGameResponse.VIEW_FIELD_NUMBER, 2)
_UPDATE_EVENT_TAG = _tag(WatchGameResponse.EVENTS_FIELD_NUMBER, 2)
_VIEWER_SEAT_TAG = _tag(GameView.VIEWER_SEAT_FIELD_NUMBER, 0)
# The tag of each game's own view in a GameView, by game type.
_GAME_VIEW_TAGS = {
    game_type: _tag(GameView.DESCRIPTOR.fields_by_name[game_type].number, 2) for game_type in GAMES
}
_LEGAL_MOVE_TAG = _tag(GameView.LEGAL_MOVES_FIELD_NUMBER, 2)
# The tag of each game's member in a Move, by game type.
_MOVE_TAGS = {
    game_type: _tag(Move.DESCRIPTOR.fields_by_name[game_type].number, 2) for game_type in GAMES
}


@dataclass(slots=True, frozen=True)
class UpdateParts:
    """A move's update, serialized, but for each seat's own part. A serialized GameView lists
    its fields by number: those before `viewer_seat` (`head`), the seat, the shared fields after
    it (`tail`), then the game's own view, each seat's (protobuf's serialization is
    deterministic for these messages: no maps, no unknown fields)."""

    head: bytes
    tail: bytes
    game_tag: bytes
    # Per event: the field of its public event (empty if it has none) and of each seat's own.
    events: tuple[tuple[bytes, dict[int, bytes]], ...]
    # The `legal_moves` field of each seat that may act, serialized (it comes after `tail`).
    legal: dict[int, bytes]

    @classmethod
    def of(cls, game: LoadedGame, entries: Sequence[AudiencedEvent]) -> UpdateParts:
        # Serialized apart, the fields before the seat's and those after it: no search for where
        # one part ends in the whole.
        head, tail = GameView(), GameView()
        game.fill_before_seat(head)
        game.fill_after_seat(tail)
        events = []
        for entry in items_of(entries):  # a notification's field: a list to loop over
            public = b""
            if entry.HasField("public"):
                public = _field(_UPDATE_EVENT_TAG, entry.public.SerializeToString())
            own: dict[int, bytes] = {}
            for private in items_of(entry.private):
                event = private.event.SerializeToString()
                own.setdefault(private.seat, _field(_UPDATE_EVENT_TAG, event))
            events.append((public, own))
        # Computed here once, for the seats that may act only: every other seat's is empty.
        legal = {seat: legal_moves_field(game, seat) for seat in items_of(tail.active_seats)}
        return cls(
            head.SerializeToString(),
            tail.SerializeToString(),
            _GAME_VIEW_TAGS[game.engine.game_type],
            tuple(events),
            legal,
        )

    def view(self, seat: int | None, own: bytes) -> bytes:
        """`seat`'s GameView, serialized, given its game's own view (`own`, serialized)."""
        if seat is None:
            return b"".join((self.head, self.tail, _field(self.game_tag, own)))
        return b"".join(
            (
                self.head,
                _VIEWER_SEAT_TAG + _varint(seat),
                self.tail,
                self.legal.get(seat, b""),
                _field(self.game_tag, own),
            )
        )

    def update(self, seat: int | None, own: bytes) -> bytes:
        """`seat`'s update, given its game's own view (`own`, serialized)."""
        return self.update_with(seat, self.view(seat, own))

    def update_with(self, seat: int | None, view: bytes) -> bytes:
        """`seat`'s update, given its view (`view`: from `view`)."""
        events = [
            public if seat is None else own_events.get(seat, public)
            for public, own_events in self.events
        ]
        return b"".join((_field(_UPDATE_VIEW_TAG, view), *events))


@dataclass(slots=True, frozen=True)
class SharedView:
    """A state's engine view as every audience sees it, serialized once, and where each of the
    engine's `own_view_fields` goes in it: an audience's view is its own fields put in there,
    byte for byte the view built whole (the shared view holds none of them, and protobuf
    writes fields in the order of their numbers)."""

    data: bytes
    positions: tuple[int, ...]

    @classmethod
    def of(cls, engine: AnyEngine, state: Any) -> SharedView:
        data = engine.shared_view(state).SerializeToString()
        return cls(data, _positions(data, engine.own_view_fields))

    def put_in(self, own: Sequence[bytes]) -> bytes:
        """The serialized view with `own` (an audience's own fields, from `own_view`)."""
        data = self.data
        pieces: list[bytes] = []
        start = 0
        for position, part in zip(self.positions, own, strict=True):
            pieces += (data[start:position], part)
            start = position
        pieces.append(data[start:])
        return b"".join(pieces)


def _field(tag: bytes, value: bytes) -> bytes:
    return tag + _varint(len(value)) + value


# Under public names for the messages put together elsewhere from serialized parts (sessions).
field_bytes = _field
tag_bytes = _tag


def legal_moves_field(game: LoadedGame, seat: int) -> bytes:
    """A GameView's `legal_moves` for `seat`, one of the view's `active_seats`, serialized:
    what `fill_legal_moves` writes, as protobuf would write it (each move a Move whose one
    member is the game's move)."""
    move_tag = _MOVE_TAGS[game.engine.game_type]
    return b"".join(
        _field(_LEGAL_MOVE_TAG, _field(move_tag, move.SerializeToString()))
        for move in game.engine.legal_moves(game.state, seat)
    )


def _positions(data: bytes, numbers: Sequence[int]) -> tuple[int, ...]:
    """For each of `numbers` (ascending), where the first field numbered that or more starts in
    the serialized message `data` (its fields in order of number), in one pass."""
    found: list[int] = []
    position, end, wanted = 0, len(data), len(numbers)
    while position < end and len(found) < wanted:
        # Tags and lengths of one byte are read in place: a call per varint cost most of the
        # pass.
        tag = data[position]
        after = position + 1
        if tag >= 0x80:
            tag, after = _read_varint(data, position)
        while len(found) < wanted and tag >> 3 >= numbers[len(found)]:
            found.append(position)
        wire_type = tag & 7
        if wire_type == 0:
            while data[after] >= 0x80:  # a varint value, skipped to its last byte
                after += 1
            after += 1
        elif wire_type == 2:
            size = data[after]
            if size < 0x80:
                after += 1 + size
            else:
                size, after = _read_varint(data, after)
                after += size
        elif wire_type in (1, 5):
            after += 8 if wire_type == 1 else 4
        else:
            raise ValueError(f"unexpected wire type {wire_type}")
        position = after
    return (*found, *[end] * (wanted - len(found)))


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


class RecentNotifications:
    """Notifications decoded once per process: every stream of a game receives the same
    payload, and the streams of one seat (or the spectators) send the same update, so each
    is built once instead of once per stream. Updates are shared: never modified. A move this
    process writes is filed here as it writes it (`remember`), so that none of it is decoded."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._recent: OrderedDict[tuple[str, bytes], Published] = OrderedDict()

    def decode(self, game_id: str, payload: bytes, streams: int) -> Published:
        """The move `payload` notifies, for the `streams` watch streams of the game here."""
        key = (game_id, payload)
        found = self._recent.get(key)
        if found is None:
            note = MoveNotification.FromString(payload)
            game = LoadedGame(
                game_id, note.version, note.game, GAMES[note.game.game_type], state_of(note.game)
            )
            found = Published(game, note.events, streams > 1)
            self._keep(key, found)
            metrics.WATCHED_MOVES.inc(_DECODED)
        elif found.filed:
            found.filed = False
            metrics.WATCHED_MOVES.inc(_FILED)
        return found

    def written(self, game_id: str, payload: bytes) -> Published | None:
        """The move this process wrote with the notification `payload` (`remember`), while it
        is kept."""
        return self._recent.get((game_id, payload))

    def remember(self, game_id: str, payload: bytes, published: Published) -> None:
        """A move this process is writing (`Published.written`), filed under its notification
        (`payload`): when that comes, `decode` finds the game the move was decided on and the
        parts every update shares already made. Filed before the write is sent (the
        notification may come back before the write's reply) and kept even if the write fails:
        such a notification is never sent, and the entry ages out."""
        key = (game_id, payload)
        if key not in self._recent:
            self._keep(key, published)

    def _keep(self, key: tuple[str, bytes], published: Published) -> None:
        """Keep `published`, forgetting the oldest entry beyond `size`."""
        self._recent[key] = published
        if len(self._recent) > self._size:
            self._recent.popitem(last=False)


# The labels of metrics.WATCHED_MOVES.
_DECODED, _FILED = ("decoded",), ("filed",)


def notification_head(note: MoveNotification, game_size: int) -> bytes:
    """`note` (a MoveNotification without its `game`) serialized, ending with the header of
    that field: followed by the serialized StoredGame it is the whole notification (protobuf
    fields may come in any order)."""
    return note.SerializeToString() + _GAME_FIELD_HEADER + _varint(game_size)


_GAME_FIELD_HEADER = _tag(MoveNotification.GAME_FIELD_NUMBER, 2)
