"""Bad input: hypothesis fuzzing of every RPC with random and mutated requests, sent as raw
bytes through a generic channel (identity serializers) to one long-lived server process.

Every case is judged by an oracle that knows the API's documented order of checks and asks the
engine itself about the move, on the state read from Redis just before the call: so each case
has one expected status code (never UNKNOWN or INTERNAL), and a refused call must leave the
game's version and stored bytes exactly as they were. After every test the process is alive and
reports SERVING.

Cases: unknown game types and ids, malformed names, moves of another game, real legal moves
mutated field by field (numbers, enums, oneof kinds, repeated fields duplicated, dropped,
extended to absurd sizes), another seat's move (out of turn, acting for another), stale and
random etags, invalid and reused request ids, missing, malformed, foreign and random
credentials, invalid UTF-8 in string fields, undecodable bytes, and oversized messages and
metadata."""

from __future__ import annotations

import random
import string
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias, TypeVar, cast

import grpc
import pytest
import redis
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.client import Croupier
from croupier.engines.core.errors import IllegalMove, InvalidOptions, MalformedMove
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.application.games import pack_state, state_of
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import StoredGame
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.reliability.figures import record
from tests.reliability.support import (
    GAME_TYPES,
    SERVING,
    alive,
    assert_replays,
    encode,
    expected_view,
    health,
    raw,
    redis_client,
    wrap_move,
)

Code: TypeAlias = grpc.StatusCode
T = TypeVar("T")
MAX_MESSAGE = 64 * 1024  # the server's --max-message-bytes (its default)
MAX_SEATS = 12
SERVICE = "/croupier.v1.GameService/"
REQUESTS: dict[str, type[Message]] = {
    "CreateGame": pb.CreateGameRequest,
    "GetGame": pb.GetGameRequest,
    "ListLegalMoves": pb.ListLegalMovesRequest,
    "ApplyMove": pb.ApplyMoveRequest,
    "WatchGame": pb.WatchGameRequest,
}


def named(method: str, name: str) -> Message:
    """A request of `method` naming the game `name` (the calls' requests that have a `name`)."""
    request = REQUESTS[method]()
    cast(Any, request).name = name
    return request


NEVER = {Code.UNKNOWN, Code.INTERNAL, Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED}

CASES: Counter[str] = Counter()
CODES: Counter[str] = Counter()
FAILED: Counter[str] = Counter()  # answers that broke a promise (UNKNOWN, INTERNAL, ...)

# --- the server and the games ----------------------------------------------------------------


@dataclass
class Table:
    name: str
    game_type: str
    credentials: list[str]


@dataclass
class Fuzz:
    server: LocalServer
    channel: grpc.Channel
    client: redis.Redis
    croupier: Croupier
    rng: random.Random
    tables: dict[str, Table] = field(default_factory=dict)  # game type -> game being fuzzed
    table_types: dict[str, str] = field(default_factory=dict)  # game name -> game type
    seats_of: dict[str, tuple[str, int]] = field(default_factory=dict)  # credential -> game
    # Used request ids: a move's are the seat's own (game name, seat, request id).
    records: dict[tuple[str, int, str], bytes] = field(default_factory=dict)
    create_records: dict[str, bytes] = field(default_factory=dict)

    def table(self, game_type: str) -> Table:
        """The game of that type being fuzzed; a new one once it is over."""
        current = self.tables.get(game_type)
        if current is not None and not self.over(current.name):
            return current
        engine = GAMES[game_type]
        seats = self.rng.randint(engine.min_seats, min(engine.max_seats, 6))
        created = self.croupier.create(options_for(game_type), seats, seed=self.rng.getrandbits(63))
        table = Table(created.name, game_type, list(created.seat_credentials))
        self.learn(created)
        self.tables[game_type] = table
        self.table_types[table.name] = game_type
        return table

    def learn(self, created: pb.CreateGameResponse) -> None:
        for seat, credential in enumerate(created.seat_credentials):
            self.seats_of[credential] = (created.name, seat)

    def over(self, name: str) -> bool:
        game = self.stored(name)
        return game is not None and GAMES[game.game_type].result(state_of(game)) is not None

    def stored(self, name: str) -> StoredGame | None:
        _, data = raw(self.client, name)
        return None if data is None else StoredGame.FromString(data)


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    log = tmp_path_factory.mktemp("fuzz") / "server.log"
    with (
        EmbeddedRedis() as store,
        log.open("wb") as sink,
        LocalServer(
            store.url,
            extra_args=(
                *("--rate-limit", "0", "--anonymous-rate-limit", "0"),
                *("--max-message-bytes", str(MAX_MESSAGE)),
            ),
            stderr=sink.fileno(),
        ) as server,
        grpc.insecure_channel(server.target) as channel,
        Croupier(server.target) as croupier,
    ):
        client = redis_client(store.url)
        try:
            yield Fuzz(server, channel, client, croupier, random.Random(7))
        finally:
            client.close()
    text = Path(log).read_text(errors="replace")
    assert "unexpected_error" not in text, "the server logged an unexpected error"


@pytest.fixture(autouse=True)
def still_serving(fuzz: Fuzz) -> Iterator[None]:
    yield
    assert alive(fuzz.server), "the server process died"
    assert health(fuzz.server.target, timeout=5) == SERVING
    for table in fuzz.tables.values():
        assert_replays(fuzz.client, table.name)


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    record(
        "fuzz",
        cases=sum(CASES.values()),
        by_kind=dict(sorted(CASES.items())),
        by_code=dict(sorted(CODES.items())),
        unknown_or_internal=FAILED["UNKNOWN"] + FAILED["INTERNAL"],
        failed_cases=dict(FAILED),
        state_changed_by_refused_call=0,
    )


# --- the oracle --------------------------------------------------------------------------------


@dataclass
class Expect:
    code: Code
    reason: str = ""
    after: StoredGame | None = None  # an applied move: the stored game it must give
    seat: int | None = None  # a read: the caller's seat
    record_key: tuple[str, int, str] | None = None
    record_digest: bytes = b""


def header_malformed(header: str) -> bool:
    """docs: 'authorization: Bearer <credential>' (a credential is at most 256 characters)."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return scheme.lower() != "bearer" or not token or len(token) > 256


def token_of(header: str | None) -> str | None:
    return None if header is None else header.partition(" ")[2].strip()


def valid_name(name: str) -> bool:
    rest = name.removeprefix("games/")
    return (
        name.startswith("games/") and len(rest) == 24 and all(c in "0123456789abcdef" for c in rest)
    )


def valid_display_name(name: str) -> bool:
    """docs/api.md, "Display names": at most 64 characters, none of them a control character,
    a line or paragraph separator, a bidi embedding, override or isolate, or no character."""
    bidi = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
    refused = {"Cc", "Zl", "Zp", "Cn", "Cs"}
    return len(name) <= 64 and not any(
        c in bidi or unicodedata.category(c) in refused for c in name
    )


def valid_request_id(request_id: str) -> bool:
    """docs/api.md: empty, or a UUID (8-4-4-4-12 hex digits)."""
    groups = request_id.split("-")
    return not request_id or (
        [len(g) for g in groups] == [8, 4, 4, 4, 12]
        and all(c in string.hexdigits for c in request_id.replace("-", ""))
    )


def expect(fuzz: Fuzz, method: str, payload: bytes, header: str | None) -> Expect:
    """The one status the API documents for this request, in the order the service checks."""
    if len(payload) > MAX_MESSAGE:
        return Expect(Code.RESOURCE_EXHAUSTED)
    if header is not None and header_malformed(header):
        return Expect(Code.UNAUTHENTICATED, "CREDENTIAL_MALFORMED")
    try:
        request: Any = REQUESTS[method].FromString(payload)
    except DecodeError:
        return Expect(Code.INVALID_ARGUMENT)
    if method == "CreateGame":
        return expect_create(fuzz, request)
    if not valid_name(request.name):
        return Expect(Code.INVALID_ARGUMENT, "INVALID_NAME")
    if method == "ApplyMove" and not valid_request_id(request.request_id):
        return Expect(Code.INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    version, data = raw(fuzz.client, request.name)
    if data is None or version is None:
        return Expect(Code.NOT_FOUND, "GAME_NOT_FOUND")
    token = token_of(header)
    seat: int | None = None
    if token is None:
        if method in ("ListLegalMoves", "ApplyMove"):
            return Expect(Code.UNAUTHENTICATED, "CREDENTIAL_MISSING")
    elif not token.startswith("cs_"):
        return Expect(Code.UNAUTHENTICATED, "CREDENTIAL_MALFORMED")
    else:
        owner = fuzz.seats_of.get(token)
        if owner is None or owner[0] != request.name:
            return Expect(Code.PERMISSION_DENIED, "CREDENTIAL_REJECTED")
        seat = owner[1]
    if method != "ApplyMove":
        return Expect(Code.OK, seat=seat)
    assert seat is not None
    digest = seat.to_bytes(2, "big") + encode(request.move)
    key = (request.name, seat, request.request_id)
    if request.request_id and key in fuzz.records:
        same = fuzz.records[key] == digest
        return Expect(Code.OK) if same else Expect(Code.ALREADY_EXISTS, "REQUEST_ID_REUSED")
    if request.etag and request.etag != version.decode():
        return Expect(Code.ABORTED, "ETAG_MISMATCH")
    outcome = engine_outcome(StoredGame.FromString(data), seat, request.move)
    if outcome.code == Code.OK and request.request_id:
        outcome.record_key, outcome.record_digest = key, digest
    return outcome


def engine_outcome(game: StoredGame, seat: int, move: pb.Move) -> Expect:
    """What the game's own engine says of the move (IllegalMove, MalformedMove or applied)."""
    if move.WhichOneof("game") != game.game_type:
        return Expect(Code.INVALID_ARGUMENT, "MOVE_GAME_MISMATCH")
    after = StoredGame()
    after.CopyFrom(game)
    state = state_of(after)
    try:
        GAMES[game.game_type].apply(state, seat, getattr(move, game.game_type))
    except IllegalMove:
        return Expect(Code.FAILED_PRECONDITION, "ILLEGAL_MOVE")
    except MalformedMove:
        return Expect(Code.INVALID_ARGUMENT, "MALFORMED_MOVE")
    after.move_count += 1
    pack_state(after, state)
    return Expect(Code.OK, after=after)


def expect_create(fuzz: Fuzz, request: pb.CreateGameRequest) -> Expect:
    game_type = request.WhichOneof("options")
    if game_type is None:
        return Expect(Code.INVALID_ARGUMENT, "GAME_TYPE_MISSING")
    try:
        GAMES[game_type].check_seats(request.seats)
    except InvalidOptions:
        return Expect(Code.INVALID_ARGUMENT, "INVALID_OPTIONS")
    if request.seats > MAX_SEATS:
        return Expect(Code.RESOURCE_EXHAUSTED, "SEAT_LIMIT")
    names = list(request.display_names)
    if names and len(names) != request.seats:
        return Expect(Code.INVALID_ARGUMENT, "INVALID_DISPLAY_NAMES")
    if not all(valid_display_name(n) for n in names):
        return Expect(Code.INVALID_ARGUMENT, "INVALID_DISPLAY_NAMES")
    if not valid_request_id(request.request_id):
        return Expect(Code.INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    digest = encode(request)
    if request.request_id in fuzz.create_records:
        same = fuzz.create_records[request.request_id] == digest
        return Expect(Code.OK) if same else Expect(Code.ALREADY_EXISTS, "REQUEST_ID_REUSED")
    engine = GAMES[game_type]
    try:
        engine.check_seats(request.seats)
        engine.new_game(getattr(request, game_type), request.seats, request.seed)
    except InvalidOptions:
        return Expect(Code.INVALID_ARGUMENT, "INVALID_OPTIONS")
    return Expect(Code.OK, record_key=("", -1, request.request_id), record_digest=digest)


# --- sending -------------------------------------------------------------------------------


@dataclass
class Answer:
    code: Code
    body: bytes
    reason: str


def send(fuzz: Fuzz, method: str, payload: bytes, header: str | None) -> Answer:
    metadata = [("authorization", header)] if header is not None else []
    path = SERVICE + method
    try:
        if method == "WatchGame":
            stream = fuzz.channel.unary_stream(path)(payload, metadata=metadata, timeout=10)
            try:
                body: bytes = next(stream)
            finally:
                stream.cancel()
        else:
            body = fuzz.channel.unary_unary(path)(payload, metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        refused = CroupierError.from_rpc_error(error)
        return Answer(refused.code, b"", refused.reason)
    return Answer(Code.OK, body, "")


def case(fuzz: Fuzz, kind: str, method: str, payload: bytes, header: str | None) -> Answer:
    """Send one request and hold the answer to the oracle's."""
    target = target_of(method, payload)
    before = raw(fuzz.client, target) if target else None
    expected = expect(fuzz, method, payload, header)
    answer = send(fuzz, method, payload, header)
    context = f"{kind} {method} header={header!r:.60} payload={payload[:120]!r}"
    if answer.code in NEVER:
        FAILED[answer.code.name] += 1
    assert answer.code not in NEVER, f"{answer.code.name} {answer.reason}: {context}"
    assert answer.code == expected.code, f"{answer.code.name} {answer.reason}, expected {expected}"
    if expected.reason and answer.code != Code.OK:
        assert answer.reason == expected.reason, context
    after = raw(fuzz.client, target) if target else None
    if expected.after is not None:
        assert target is not None and before is not None and after is not None
        assert after[0] == str(int(before[0] or b"0") + 1).encode()
        assert encode(StoredGame.FromString(after[1] or b"")) == encode(expected.after)
    else:
        assert after == before, f"a call that applied nothing changed the game: {context}"
    if answer.code == Code.OK:
        remember(fuzz, method, answer, expected)
        if method in ("GetGame", "WatchGame") and target:
            check_view(fuzz, method, answer.body, target, expected.seat)
    CASES[kind] += 1  # counted once every check has passed
    CODES[answer.code.name] += 1
    return answer


def target_of(method: str, payload: bytes) -> str | None:
    if method == "CreateGame" or len(payload) > MAX_MESSAGE:
        return None
    try:
        name: str = getattr(REQUESTS[method].FromString(payload), "name")  # noqa: B009
    except DecodeError:
        return None
    return name if valid_name(name) else None


def remember(fuzz: Fuzz, method: str, answer: Answer, expected: Expect) -> None:
    if expected.record_key is None:
        return
    if method == "CreateGame":
        created = pb.CreateGameResponse.FromString(answer.body)
        fuzz.learn(created)
        if expected.record_key[2]:
            fuzz.create_records[expected.record_key[2]] = expected.record_digest
    else:
        fuzz.records[expected.record_key] = expected.record_digest


def check_view(fuzz: Fuzz, method: str, body: bytes, name: str, seat: int | None) -> None:
    """A read answered OK shows the caller exactly its own documented view."""
    response: Any = (pb.GetGameResponse if method == "GetGame" else pb.WatchGameResponse)()
    response.ParseFromString(body)
    version, data = raw(fuzz.client, name)
    assert version is not None and data is not None
    wanted = expected_view(name, StoredGame.FromString(data), int(version), seat)
    assert encode(response.view) == encode(wanted)


# --- strategies ----------------------------------------------------------------------------
# The games move on under the fuzzer, so nothing hypothesis draws may depend on their state
# (it would call that a flaky strategy): every case is drawn as a plan of fixed shape first,
# then read against the state (a drawn index picks among what exists now).

PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "
INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.CPPTYPE_ENUM: (-(2**31), 2**31 - 1),  # proto3 enums are open
}
REPEATED_OPS = ("duplicate", "drop", "add", "reverse", "many", "inner")
SIZES = (40, 500, 3000, 20000)


@dataclass(frozen=True)
class Edit:
    """One change somewhere in a message: a number, an enum, a flag, a text, a oneof kind, a
    submessage cleared, a repeated field duplicated, dropped, reversed or made absurdly long."""

    path: tuple[int, ...]  # which field at each depth (modulo the fields there)
    op: str
    small: int | None  # a plausible number, else `number` (any 64-bit value, edges likely)
    number: int
    flag: bool
    text: str
    count: int


edits = st.builds(
    Edit,
    path=st.tuples(*[st.integers(0, 255)] * 4),
    op=st.sampled_from(REPEATED_OPS),
    small=st.none() | st.integers(-3, 120),
    number=st.sampled_from([-(2**63), -(2**31), -1, 2**31 - 1, 2**31, 2**32 - 1, 2**64 - 1])
    | st.integers(-(2**63), 2**64 - 1),
    flag=st.booleans(),
    text=st.text(max_size=40),
    count=st.sampled_from(SIZES),
)


def value_for(f: FieldDescriptor, edit: Edit) -> Any:
    cpp = f.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return edit.flag
    if cpp in INT_RANGES:
        low, high = INT_RANGES[cpp]
        number = edit.number if edit.small is None else edit.small
        return low + (number - low) % (high - low + 1)  # folded into the field's range
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        return edit.text
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return float(edit.number % 1000) / 7
    raise AssertionError(f"no value for {f.full_name}")


def mutate(message: Any, edit: Edit, depth: int = 0) -> None:
    fields = list(message.DESCRIPTOR.fields)
    if not fields:
        return
    f = fields[edit.path[depth % len(edit.path)] % len(fields)]
    deeper = depth + 1 < len(edit.path)
    if f.is_repeated:
        values = getattr(message, f.name)
        index = edit.number % len(values) if values else 0
        is_message = f.message_type is not None
        op = edit.op
        if op == "duplicate" and values:
            if is_message:
                values.add().CopyFrom(values[index])
            else:
                values.append(values[index])
        elif op == "drop" and values:
            del values[index]
        elif op == "reverse":
            items = list(values)
            del values[:]
            for item in reversed(items):
                if is_message:
                    values.add().CopyFrom(item)
                else:
                    values.append(item)
        elif op == "many":
            if is_message:
                model = values[0] if values else None
                for _ in range(edit.count):
                    added = values.add()
                    if model is not None:
                        added.CopyFrom(model)
            else:
                values.extend([values[0] if values else value_for(f, edit)] * edit.count)
        elif is_message:
            if op == "inner" and values and deeper:
                mutate(values[index], edit, depth + 1)
            else:
                added = values.add()
                if deeper:
                    mutate(added, edit, depth + 1)
        else:
            values.append(value_for(f, edit))
    elif f.message_type is not None:
        if not deeper or edit.flag:
            message.ClearField(f.name)
        else:
            inner = getattr(message, f.name)
            inner.SetInParent()  # for a oneof member: switches the kind
            mutate(inner, edit, depth + 1)
    else:
        setattr(message, f.name, value_for(f, edit))


CREDENTIAL_KINDS = ("own",) * 6 + ("other_seat", "none", "foreign", "random", "not_cs", "bad")
BAD_HEADERS = ("Bearer", "Bearer ", "Basic abc", "bearer", "Bearer cs_" + "a" * 300)


@dataclass(frozen=True)
class Caller:
    kind: str
    pick: int
    text: str


callers = st.builds(
    Caller,
    kind=st.sampled_from(CREDENTIAL_KINDS),
    pick=st.integers(0, 2**16),
    text=st.text(PRINTABLE, max_size=60),
)


def header_for(caller: Caller, fuzz: Fuzz, table: Table, seat: int) -> str | None:
    """The authorization header: the seat's own credential, another seat's, none, another
    game's, a random or non-`cs_` token, or a malformed header."""
    kind = caller.kind
    if kind == "own":
        return f"Bearer {table.credentials[seat]}"
    if kind == "other_seat":
        return f"Bearer {table.credentials[caller.pick % len(table.credentials)]}"
    if kind == "none":
        return None
    if kind == "foreign":
        others = sorted(t.name for t in fuzz.tables.values() if t.name != table.name)
        if others:
            other = fuzz.tables[fuzz.table_types[others[caller.pick % len(others)]]]
            return f"Bearer {other.credentials[0]}"
    if kind == "random":
        token = "".join(c for c in caller.text if c.isalnum() or c in "-_")
        return "Bearer cs_" + token
    if kind == "not_cs":
        return "Bearer x" + caller.text.strip()
    if caller.pick % 2:
        return BAD_HEADERS[caller.pick % len(BAD_HEADERS)]
    return caller.text.strip() or "x"


def pick(items: Sequence[T], index: int) -> T:
    return items[index % len(items)]


def request_id_for(kind: str, text: str, used: list[str], fuzz: Fuzz) -> str:
    if kind == "fresh":
        return str(uuid.UUID(int=fuzz.rng.getrandbits(128)))
    if kind == "reused" and used:
        return pick(used, len(text))
    if kind == "text":
        return text
    return ""


# --- the fuzz tests ------------------------------------------------------------------------


def examples(default: int) -> Callable[[Any], Any]:
    return settings(
        max_examples=default,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


SHAPES = ("legal", "mutated", "mutated", "mutated", "mutated", "other_seat", "other_game", "empty")


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_fuzz_apply_move(fuzz: Fuzz, game_type: str) -> None:
    """ApplyMove with real legal moves mutated, other seats' and other games' moves, odd
    etags, request ids and credentials; now and then a plain legal move moves the game on."""

    @examples(700)
    @given(
        shape=st.sampled_from(SHAPES),
        picks=st.tuples(st.integers(0, 2**16), st.integers(0, 2**16), st.integers(0, 2**16)),
        changes=st.lists(edits, min_size=1, max_size=3),
        caller=callers,
        request_id=st.tuples(st.sampled_from(["", "", "fresh", "reused", "text"]), st.text()),
        etag=st.tuples(st.sampled_from(["", "", "", "current", "1", "0", "text"]), st.text()),
    )
    def run(
        shape: str,
        picks: tuple[int, int, int],
        changes: list[Edit],
        caller: Caller,
        request_id: tuple[str, str],
        etag: tuple[str, str],
    ) -> None:
        table = fuzz.table(game_type)
        game = fuzz.stored(table.name)
        assert game is not None
        engine = GAMES[game_type]
        state = state_of(game)
        active = engine.active_seats(state)
        seat = pick(active, picks[0]) if active else 0
        legal = engine.legal_moves(state, seat)
        if shape == "legal" and legal:
            move = wrap_move(game_type, pick(legal, picks[1]))
        elif shape == "other_seat" and legal:
            # A seat's legal move sent with another seat's credential, or another seat's
            # legal move sent by this one.
            theirs = engine.legal_moves(state, picks[2] % len(table.credentials)) or legal
            move = wrap_move(game_type, pick(theirs, picks[1]))
        elif shape == "other_game":
            move = pb.Move()
            inner = getattr(move, pick([g for g in GAME_TYPES if g != game_type], picks[1]))
            inner.SetInParent()
            for change in changes:
                mutate(inner, change)
        elif shape == "empty":
            move = pb.Move()
        else:
            mutated = engine.move_type()
            if legal:
                mutated.CopyFrom(pick(legal, picks[1]))
            for change in changes:
                mutate(mutated, change)
            move = wrap_move(game_type, mutated)
        header = header_for(caller, fuzz, table, seat)
        used = sorted(rid for (name, _, rid) in fuzz.records if name == table.name)
        version = (raw(fuzz.client, table.name)[0] or b"").decode()
        etag_kind, etag_text = etag
        request = pb.ApplyMoveRequest(
            name=table.name,
            move=move,
            etag={"current": version, "text": etag_text}.get(etag_kind, etag_kind),
            request_id=request_id_for(*request_id, used, fuzz),
        )
        case(fuzz, f"apply:{shape}", "ApplyMove", request.SerializeToString(), header)

    run()


def test_fuzz_reads(fuzz: Fuzz) -> None:
    """GetGame, ListLegalMoves and WatchGame with real, unknown and malformed names and every
    kind of credential; an answered read shows exactly the caller's own view."""

    @examples(1000)
    @given(
        game_type=st.sampled_from(GAME_TYPES),
        method=st.sampled_from(["GetGame", "ListLegalMoves", "WatchGame"]),
        name=st.tuples(
            st.sampled_from(["real"] * 4 + ["unknown", "upper", "text"]),
            st.text(max_size=40) | st.text("0123456789abcdefABCDEF", min_size=20, max_size=28),
        ),
        seat=st.integers(0, 2**16),
        caller=callers,
    )
    def run(game_type: str, method: str, name: tuple[str, str], seat: int, caller: Caller) -> None:
        table = fuzz.table(game_type)
        kind, text = name
        names = {
            "real": table.name,
            "unknown": "games/" + "0" * 24,
            "upper": table.name.upper(),
            "text": text if not text.startswith(("0", "A", "a")) else "games/" + text,
        }
        header = header_for(caller, fuzz, table, seat % len(table.credentials))
        payload = named(method, names[kind]).SerializeToString()
        case(fuzz, f"read:{method}", method, payload, header)

    run()


def test_fuzz_create_game(fuzz: Fuzz) -> None:
    """CreateGame with random options (fields mutated) or options of an unknown game type, seat
    counts, display names, seeds and request ids (fresh, reused for the same request, reused
    for another)."""

    @examples(600)
    @given(
        game_type=st.sampled_from([*GAME_TYPES, None]),
        unknown_type=st.booleans(),
        changes=st.lists(edits, max_size=2),
        seats=st.integers(-2, 14) | st.sampled_from([-(2**31), 2**31 - 1, 100, 1000]),
        names=st.none() | st.lists(st.text(max_size=70) | st.text(PRINTABLE, max_size=64)),
        names_fit=st.booleans(),
        seed=st.none() | st.integers(0, 2**64 - 1),
        request_id=st.tuples(st.sampled_from(["", "", "fresh", "reused", "text"]), st.text()),
    )
    def run(
        game_type: str | None,
        unknown_type: bool,
        changes: list[Edit],
        seats: int,
        names: list[str] | None,
        names_fit: bool,
        seed: int | None,
        request_id: tuple[str, str],
    ) -> None:
        request = pb.CreateGameRequest(seats=seats)
        if game_type is not None:
            options = getattr(request, game_type)
            options.SetInParent()
            for change in changes:
                mutate(options, change)
        if names is not None:
            if names_fit and 0 < seats <= 14:  # one name per seat
                names = (names * seats)[:seats] if names else [""] * seats
            request.display_names.extend(names)
        if seed is not None:
            request.seed = seed
        used = sorted(fuzz.create_records)
        request.request_id = request_id_for(*request_id, used, fuzz)
        payload = request.SerializeToString()
        if game_type is None and unknown_type:  # the options of a game this server lacks
            payload += string_field(6 + len(request.request_id) % 4, b"\x08\x01")
        case(fuzz, "create", "CreateGame", payload, None)

    run()


def test_oversized_requests_and_metadata_are_resource_exhausted(fuzz: Fuzz) -> None:
    """Over --max-message-bytes, or metadata over gRPC's hard limit: RESOURCE_EXHAUSTED."""
    table = fuzz.table("vampire_queen")
    credential = table.credentials[0]
    big_name = pb.GetGameRequest(name="g" * (MAX_MESSAGE + 10)).SerializeToString()
    move = pb.Move()
    cast(Any, move.vampire_queen.play.cards).extend([1] * (MAX_MESSAGE + 100))
    big_move = pb.ApplyMoveRequest(name=table.name, move=move).SerializeToString()
    for method, payload in [("GetGame", big_name), ("ApplyMove", big_move)]:
        assert len(payload) > MAX_MESSAGE
        assert case(fuzz, "oversized_message", method, payload, f"Bearer {credential}").code == (
            Code.RESOURCE_EXHAUSTED
        )
    before = raw(fuzz.client, table.name)
    huge = "Bearer cs_" + "a" * 20000
    payload = pb.GetGameRequest(name=table.name).SerializeToString()
    assert send(fuzz, "GetGame", payload, huge).code == Code.RESOURCE_EXHAUSTED
    CASES["oversized_metadata"] += 1
    assert raw(fuzz.client, table.name) == before


# --- undecodable requests -----------------------------------------------------------------


def string_field(number: int, value: bytes) -> bytes:
    """A length-delimited field with these raw bytes (they need not be UTF-8)."""
    return bytes([number << 3 | 2, len(value)]) + value


INVALID_UTF8 = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"ok\xfe\xfd", b"\xf8\x88\x80\x80\x80"]
STRING_FIELDS = {
    "CreateGame": [11, 13],  # display_names, request_id
    "GetGame": [1],
    "ListLegalMoves": [1],
    "ApplyMove": [1, 3, 4],  # name, etag, request_id
    "WatchGame": [1],
}


def valid_payload(fuzz: Fuzz, method: str) -> tuple[bytes, str | None, Table]:
    table = fuzz.table("vampire_queen")
    if method == "CreateGame":
        request: Message = pb.CreateGameRequest(seats=3, vampire_queen=VampireQueenOptions())
        return request.SerializeToString(), None, table
    game = fuzz.stored(table.name)
    assert game is not None
    seat = GAMES["vampire_queen"].active_seats(state_of(game))[0]
    header = f"Bearer {table.credentials[seat]}"
    if method == "ApplyMove":
        legal = GAMES["vampire_queen"].legal_moves(state_of(game), seat)
        request = pb.ApplyMoveRequest(name=table.name, move=wrap_move("vampire_queen", legal[0]))
    else:
        request = named(method, table.name)
    return request.SerializeToString(), header, table


def test_invalid_utf8_in_every_string_field_is_invalid_argument(fuzz: Fuzz) -> None:
    for method, numbers in STRING_FIELDS.items():
        for number in numbers:
            for bad in INVALID_UTF8:
                payload, header, _ = valid_payload(fuzz, method)
                payload += string_field(number, bad)
                answer = case(fuzz, "invalid_utf8", method, payload, header)
                assert answer.code == Code.INVALID_ARGUMENT


def test_fuzz_raw_bytes(fuzz: Fuzz) -> None:
    """Random bytes, and valid requests with bytes flipped, inserted or cut, to every RPC."""

    @examples(500)
    @given(
        method=st.sampled_from(sorted(REQUESTS)),
        random_bytes=st.none() | st.binary(max_size=300),
        changes=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
    )
    def run(method: str, random_bytes: bytes | None, changes: list[tuple[int, int]]) -> None:
        payload, header, _ = valid_payload(fuzz, method)
        if random_bytes is not None:
            payload = random_bytes
        else:
            buffer = bytearray(payload)
            for position, value in changes:
                at = position % (len(buffer) + 1)
                choice = value % 3
                if choice == 0 and at < len(buffer):
                    buffer[at] = value
                elif choice == 1:
                    buffer.insert(at, value)
                else:
                    del buffer[at : at + 1]
            payload = bytes(buffer)
        case(fuzz, "raw_bytes", method, payload, header)

    run()
