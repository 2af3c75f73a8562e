"""What the lobby RPCs share: player ids, ListGames' filter and page tokens, game summaries and the
event feed's entries. The RPCs themselves are in service/croupier/service/application/lobby_calls.py
(their request checks in service/croupier/service/transport/servicer.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
import time
from dataclasses import dataclass

from google.protobuf.timestamp_pb2 import Timestamp

from croupier.service.application import errors
from croupier.service.application.games import LoadedGame, game_name, open_seats, player_ids
from croupier.service.store import keys
from croupier.service.store.protocol import FeedEntry
from croupier.v1 import game_service_pb2 as pb

MAX_PLAYER_ID = 128
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# Index entries a ListGames call reads at most, so that a filter few games match answers
# quickly with a short page (and a next page token) rather than reading every index.
MAX_SCANNED = 400
# An index entry is written before its game, so a listing may meet an entry whose game is not
# written yet: only entries older than this whose game is gone are dropped (the game expired,
# or its creation failed after the entry was written).
MISSING_GRACE_MS = 60_000


def check_player_id(player_id: str, field: str) -> None:
    if len(player_id) > MAX_PLAYER_ID or not player_id.isprintable():
        raise errors.invalid_argument(
            errors.Reason.INVALID_PLAYER_ID,
            field,
            f"a player id is printable and at most {MAX_PLAYER_ID} characters",
        )


STATUSES = {
    "waiting": pb.GameStatus.GAME_STATUS_WAITING,
    "active": pb.GameStatus.GAME_STATUS_ACTIVE,
    "finished": pb.GameStatus.GAME_STATUS_FINISHED,
}
_TERM = re.compile(r'\s*(player_id|game_type|status)\s*=\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_.-]+)\s*')


@dataclass(frozen=True, slots=True)
class Filter:
    """ListGames' filter: each field set must match."""

    player_id: str | None = None
    game_type: str | None = None
    status: pb.GameStatus.ValueType | None = None

    def canonical(self) -> bytes:
        """The filter's identity, for the page tokens bound to it."""
        return repr((self.player_id, self.game_type, self.status)).encode()


def parse_filter(text: str, game_types: set[str]) -> Filter:
    """AIP-160's conjunction of equalities: `player_id = "u-1" AND status = waiting`."""
    if len(text) > 1024:
        raise _bad_filter("a filter is at most 1024 characters")
    values: dict[str, str] = {}
    terms = re.split(r"\s+AND\s+", text.strip()) if text.strip() else []
    for term in terms:
        match = _TERM.fullmatch(term)
        if match is None:
            raise _bad_filter(
                'write terms like player_id = "u-17", game_type = one_card, status = waiting,'
                " joined by AND"
            )
        name, value = match.group(1), match.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        if name in values:
            raise _bad_filter(f"{name} appears twice")
        values[name] = value
    status = values.get("status")
    if status is not None and status not in STATUSES:
        raise _bad_filter("status is waiting, active or finished")
    game_type = values.get("game_type")
    if game_type is not None and game_type not in game_types:
        raise _bad_filter("game_type is one of " + ", ".join(sorted(game_types)))
    player_id = values.get("player_id")
    if player_id is not None:
        check_player_id(player_id, "filter")
    return Filter(player_id, game_type, STATUSES[status] if status else None)


def _bad_filter(message: str) -> errors.ServiceError:
    return errors.invalid_argument(errors.Reason.INVALID_FILTER, "filter", message)


def page_size(requested: int) -> int:
    if requested < 0:
        raise errors.invalid_argument(
            errors.Reason.INVALID_PAGE_SIZE, "page_size", "page_size is 0 (the default) or more"
        )
    return min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


# A page token: version byte, 16 bytes naming the listing (who lists and with which filter),
# the cursor (creation ms, 12-byte game id), and an HMAC-SHA256 (16 bytes) over all of it.
_TOKEN = struct.Struct(">B16sQ12s")
_TOKEN_VERSION = 1
_MAC_BYTES = 16


def listing_id(operator: bool, listing: Filter) -> bytes:
    """The listing a page token belongs to: the filter and the kind of caller, the operator's
    listing (every game) or the lobby's (public games waiting for players). The same cursor
    means another page in each, so a token is bound to both."""
    scope = b"operator" if operator else b"lobby"
    return hashlib.sha256(scope + b"\0" + listing.canonical()).digest()[:16]


def encode_token(secret: bytes, listing: bytes, cursor: tuple[int, str]) -> str:
    body = _TOKEN.pack(_TOKEN_VERSION, listing, cursor[0], bytes.fromhex(cursor[1]))
    mac = hmac.new(secret, body, hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.urlsafe_b64encode(body + mac).decode().rstrip("=")


def decode_token(secret: bytes, operator: bool, listing: Filter, token: str) -> tuple[int, str]:
    """The cursor of a token this deployment made for this same listing (`listing_id`: the
    filter and the kind of caller); INVALID_ARGUMENT (INVALID_PAGE_TOKEN) for anything else:
    a forged or altered token, or one of another filter or kind of caller, each told apart in
    the message."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (ValueError, TypeError):
        raw = b""
    if len(raw) != _TOKEN.size + _MAC_BYTES or not token.isascii():
        raise _bad_token("this is not a page token of ListGames")
    body, mac = raw[: _TOKEN.size], raw[_TOKEN.size :]
    if not hmac.compare_digest(mac, hmac.new(secret, body, hashlib.sha256).digest()[:_MAC_BYTES]):
        raise _bad_token("this is not a page token of ListGames")
    version, bound, score, game_id = _TOKEN.unpack(body)
    if version != _TOKEN_VERSION:
        raise _bad_token("this is not a page token of ListGames")
    if hmac.compare_digest(bound, listing_id(operator, listing)):
        return score, game_id.hex()
    # Signed by this deployment, so it was made for some listing: say which part differs. The
    # tokens are bound to the kind of caller, so a lobby token sent with the operator key (or
    # the reverse) is refused even with the same filter, and must not be told "another filter".
    if hmac.compare_digest(bound, listing_id(not operator, listing)):
        raise _bad_token(
            "this page token was made for the lobby (ListGames without a credential); the"
            " operator's listing starts without a page token"
            if operator
            else "this page token was made for the operator's listing; send it with the"
            " operator key, or list the lobby from its first page"
        )
    raise _bad_token("this page token was made for another filter; send the same filter")


def _bad_token(message: str) -> errors.ServiceError:
    return errors.invalid_argument(errors.Reason.INVALID_PAGE_TOKEN, "page_token", message)


def summary(game: LoadedGame) -> pb.GameSummary:
    stored, state = game.stored, game.state
    found = pb.GameSummary(
        name=game_name(game.game_id),
        game_type=game.engine.game_type,
        status=game.status(),
        seats=state.seats,
        player_ids=player_ids(stored, state.seats),
        display_names=stored.display_names,
        open_seats=open_seats(stored),
        create_time=timestamp(stored.create_time_ms),
        move_count=stored.move_count,
    )
    result = game.result()
    if result is not None:
        found.result.CopyFrom(result)
    return found


def matches(game: LoadedGame, listing: Filter, lobby: bool) -> bool:
    """Whether a listed game belongs on the page (the game's own hash is the truth; the index
    only says where to look)."""
    status = game.status()
    if lobby and not (game.stored.public and status == pb.GameStatus.GAME_STATUS_WAITING):
        return False
    if listing.status is not None and status != listing.status:
        return False
    if listing.game_type is not None and game.engine.game_type != listing.game_type:
        return False
    return listing.player_id is None or listing.player_id in game.stored.player_ids


def index_keys(game_id: str, listing: Filter | None = None, *, lobby: bool) -> list[str]:
    """Where a listing looks (with `listing`), or the keys of the bucket a game goes to."""
    if listing is not None and listing.player_id is not None:
        return [keys.player_index(listing.player_id)]
    make = keys.lobby_index if lobby else keys.games_index
    if listing is not None:
        return [make(bucket) for bucket in range(keys.INDEX_BUCKETS)]
    return [make(keys.bucket_of(game_id, keys.INDEX_BUCKETS))]


def timestamp(ms: int) -> Timestamp:
    """Unix ms as a Timestamp, built in one call (every feed entry has one)."""
    return Timestamp(seconds=ms // 1000, nanos=ms % 1000 * 1_000_000)


def now_ms() -> int:
    return int(time.time() * 1000)


# A feed entry's `kind` field: KIND_GAME_FINISHED is "game_finished".
_KIND_FIELDS = {
    value: name.removeprefix("KIND_").lower() for name, value in pb.FeedEvent.Kind.items()
}


def feed_event(
    kind: pb.FeedEvent.Kind.ValueType,
    game_id: str,
    version: int,
    game_type: str,
    players: list[str],
    seat: int = -1,
    result: pb.GameView | None = None,
    *,
    max_len: int,
) -> FeedEntry:
    """A feed entry: in the stream of the game's shard (so one game's events stay in order),
    the serialized FeedEvent, and plain fields for readers without the protos."""
    name = game_name(game_id)
    event = pb.FeedEvent(
        kind=kind,
        name=name,
        version=version,
        game_type=game_type,
        seat=seat,
        player_ids=players,
        time=timestamp(now_ms()),
    )
    if result is not None and result.HasField("result"):
        event.result.CopyFrom(result.result)
    fields = {"kind": _KIND_FIELDS[kind], "game": name, "version": str(version)}
    stream = keys.feed(keys.bucket_of(game_id, keys.FEED_SHARDS))
    return FeedEntry(stream, event.SerializeToString(), fields, max_len)
