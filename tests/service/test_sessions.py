"""PlayGame sessions against real servers sharing one store (a single Redis and a Redis
Cluster): whole games played by sessions only, across replicas; legal moves in every view equal
to ListLegalMoves'; refusals answered on the session with the reason and rule id; malformed
messages, wrong credentials and a client that never reads; idempotent request ids over two
sessions of one seat; a resume that misses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2

from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from tests.service.helpers import assert_replays

SEATS = {"whats_your_name": 3, "one_card": 4, "pig_mau_mau": 3, "vampire_queen": 4, "trinity": 3}
FEWEST_SEATS = {
    "whats_your_name": 2,
    "one_card": 2,
    "pig_mau_mau": 2,
    "vampire_queen": 3,
    "trinity": 3,
}
TIMEOUT = 120.0


def _auth(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


def _start(name: str, since_etag: str = "") -> pb.PlayGameRequest:
    return pb.PlayGameRequest(start=pb.PlayGameStart(name=name, since_etag=since_etag))


def _move(move: pb.Move, request_id: str = "", etag: str = "") -> pb.PlayGameRequest:
    return pb.PlayGameRequest(move=pb.PlayGameMove(move=move, request_id=request_id, etag=etag))


def _reason(status: object) -> tuple[str, str]:
    """The ErrorInfo reason and rule id of a google.rpc.Status."""
    assert hasattr(status, "details")
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason, info.metadata.get("rule_id", "")
    raise AssertionError("no ErrorInfo in the status")


async def _create(
    stub: GameServiceStub, game: str, seed: int, seats: int | None = None
) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(seats=seats or SEATS[game], seed=seed)
    getattr(request, game).CopyFrom(options_for(game))
    response: pb.CreateGameResponse = await stub.CreateGame(request)
    return response


class Seat:
    """One seat's session, played by random legal moves from its own updates."""

    def __init__(self, stub: GameServiceStub, name: str, credential: str, seed: int) -> None:
        self.call = stub.PlayGame(metadata=_auth(credential))
        self.name = name
        self.rng = random.Random(seed)
        self.updates: list[pb.GameUpdate] = []
        self.outcomes: list[pb.MoveOutcome] = []
        self.with_update = 0  # outcomes that carried their move's update
        self.refused = 0
        self.first = pb.PlayGameResponse()

    async def open(self) -> None:
        """Start the session and hold its first view (the table starts once every seat has
        its own: a seat that started later would see a later first view)."""
        await self.call.write(_start(self.name))
        first = await asyncio.wait_for(self.call.read(), TIMEOUT)
        assert isinstance(first, pb.PlayGameResponse)
        self.first = first

    async def play(self) -> None:
        await self._handle(self.first)
        while (message := await self.call.read()) is not grpc.aio.EOF:
            assert isinstance(message, pb.PlayGameResponse)
            await self._handle(message)
        assert await self.call.code() == grpc.StatusCode.OK

    async def _handle(self, message: pb.PlayGameResponse) -> None:
        if message.HasField("outcome") and message.outcome.status.code:
            # Another seat's move (a catch, a simultaneous play) landed after the view
            # this move was chosen from, whose etag it carries.
            assert _reason(message.outcome.status)[0] == "ETAG_MISMATCH"
            self.refused += 1
        elif message.HasField("outcome"):
            self.outcomes.append(message.outcome)
            if message.HasField("update"):
                assert message.update.view.etag == message.outcome.etag
                self.with_update += 1
        if not message.HasField("update"):
            return
        self.updates.append(message.update)
        view = message.update.view
        if view.status == pb.GAME_STATUS_FINISHED:
            await self.call.done_writing()
        elif view.legal_moves:
            move = self.rng.choice(list(view.legal_moves))
            await self.call.write(_move(move, str(uuid.uuid4()), view.etag))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_is_played_to_the_end_by_sessions_alone_across_replicas(
    game: str, server_a: LocalServer, server_b: LocalServer, redis_client: object
) -> None:
    """Each seat plays over its own session, the seats' sessions split over two replicas, each
    move chosen from the legal moves of the seat's own update and sent with its etag: every
    seat receives every update once and in order, ends on the same result, and every move is
    answered: applied, or refused as stale when another seat's move came first."""
    name, moves = asyncio.run(_play_by_sessions(game, [server_a.target, server_b.target]))
    assert assert_replays(redis_client, name) == moves  # type: ignore[arg-type]


async def _play_by_sessions(game: str, targets: list[str]) -> tuple[str, int]:
    channels = [grpc.aio.insecure_channel(target) for target in targets]
    try:
        stubs = [GameServiceStub(channel) for channel in channels]
        created = await _create(stubs[0], game, seed=71)
        seats = [
            Seat(stubs[seat % len(stubs)], created.name, credential, seed=seat)
            for seat, credential in enumerate(created.seat_credentials)
        ]
        await asyncio.gather(*(seat.open() for seat in seats))
        await asyncio.wait_for(asyncio.gather(*(seat.play() for seat in seats)), TIMEOUT)
    finally:
        for channel in channels:
            await channel.close()
    moves = sum(len(seat.outcomes) for seat in seats)
    for seat in seats:
        assert [int(u.view.etag) for u in seat.updates] == list(range(1, moves + 2))
        assert seat.updates[-1].view.result == seats[0].updates[-1].view.result
        assert all(not u.view.legal_moves for u in seat.updates[-1:])
    # The mover's own update comes with its outcome whenever nothing came between.
    assert sum(seat.with_update for seat in seats) >= moves * 0.9
    return created.name, moves


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_view_lists_the_legal_moves_that_list_legal_moves_lists(
    game: str, server_a: LocalServer
) -> None:
    """At every move of a whole game, for every seat: GetGame's view carries exactly the moves
    ListLegalMoves lists (none for a seat that may not act, none for a spectator), and so does
    the mover's ApplyMove response after its move."""
    compared = asyncio.run(_compare_legal_moves(game, server_a.target))
    assert compared["with_moves"] > 0


async def _compare_legal_moves(game: str, target: str) -> dict[str, int]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        # The fewest seats each game allows: every seat's view is read at every move.
        created = await _create(stub, game, seed=72, seats=FEWEST_SEATS[game])
        credentials = list(created.seat_credentials)
        rng = random.Random(72)
        counts = {"views": 0, "with_moves": 0}
        spectator = await stub.GetGame(pb.GetGameRequest(name=created.name))
        assert not spectator.view.legal_moves
        while True:
            acting: list[tuple[int, list[pb.Move]]] = []
            for seat, credential in enumerate(credentials):
                got = await stub.GetGame(
                    pb.GetGameRequest(name=created.name), metadata=_auth(credential)
                )
                listed = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(name=created.name), metadata=_auth(credential)
                )
                assert listed.etag == got.view.etag
                assert list(got.view.legal_moves) == list(listed.moves)
                assert bool(listed.moves) == (seat in got.view.active_seats)
                counts["views"] += 1
                if listed.moves:
                    counts["with_moves"] += 1
                    acting.append((seat, list(listed.moves)))
            if not acting:
                assert got.view.status == pb.GAME_STATUS_FINISHED
                return counts
            seat, legal = rng.choice(acting)
            applied = await stub.ApplyMove(
                pb.ApplyMoveRequest(name=created.name, move=rng.choice(legal)),
                metadata=_auth(credentials[seat]),
            )
            after = await stub.ListLegalMoves(
                pb.ListLegalMovesRequest(name=created.name), metadata=_auth(credentials[seat])
            )
            if after.etag == applied.etag:
                assert list(applied.view.legal_moves) == list(after.moves)


class Session:
    """A session driven step by step by a test."""

    def __init__(self, stub: GameServiceStub, credential: str | None) -> None:
        self.call = stub.PlayGame(metadata=_auth(credential) if credential else ())

    async def read(self) -> pb.PlayGameResponse:
        message = await asyncio.wait_for(self.call.read(), TIMEOUT)
        assert isinstance(message, pb.PlayGameResponse), f"the session ended: {message}"
        return message

    async def update(self) -> pb.GameUpdate:
        """The next message, which must be an update alone."""
        message = await self.read()
        assert not message.HasField("outcome")
        return message.update

    async def error(self) -> tuple[grpc.StatusCode, str]:
        """Read until the session ends: its status code and ErrorInfo reason."""
        try:
            while await asyncio.wait_for(self.call.read(), TIMEOUT) is not grpc.aio.EOF:
                pass
        except grpc.aio.AioRpcError as error:
            return error.code(), CroupierError.from_rpc_error(error).reason
        return await self.call.code(), ""


async def _read_to_end(call: object, updates: list[pb.GameUpdate] | None = None) -> None:
    """Read a session until it ends (an error status raises), keeping its updates."""
    assert isinstance(call, grpc.aio.StreamStreamCall)
    while (message := await asyncio.wait_for(call.read(), TIMEOUT)) is not grpc.aio.EOF:
        if updates is not None:
            updates.append(message.update)


@contextlib.asynccontextmanager
async def _table(target: str, game: str = "one_card", seed: int = 73) -> AsyncIterator[Table]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        yield Table(stub, await _create(stub, game, seed))


class Table:
    def __init__(self, stub: GameServiceStub, created: pb.CreateGameResponse) -> None:
        self.stub = stub
        self.created = created
        self.name = created.name
        self.credentials = list(created.seat_credentials)

    async def open(self, seat: int) -> tuple[Session, pb.GameUpdate]:
        session = Session(self.stub, self.credentials[seat])
        await session.call.write(_start(self.name))
        return session, await session.update()


def test_a_refused_move_is_answered_with_its_rule_and_the_session_goes_on(
    server_a: LocalServer,
) -> None:
    """A move the rules forbid gets an outcome with FAILED_PRECONDITION, ILLEGAL_MOVE and the
    rule id, as ApplyMove would raise; a move of another game gets MOVE_GAME_MISMATCH; the
    session stays open and the next legal move is applied."""

    async def run() -> None:
        async with _table(server_a.target) as table:
            first = table.created.view.active_seats[0]
            idle = (first + 1) % len(table.credentials)
            session, view = await table.open(idle)
            assert not view.view.legal_moves
            mover, mover_view = await table.open(first)
            legal = list(mover_view.view.legal_moves)
            assert legal
            # Not this seat's turn: the same move the acting seat may make.
            await session.call.write(_move(legal[0], "6d6f7665-0000-4000-8000-000000000001"))
            refused = (await session.read()).outcome
            assert refused.request_id == "6d6f7665-0000-4000-8000-000000000001"
            assert refused.status.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
            reason, rule_id = _reason(refused.status)
            assert reason == "ILLEGAL_MOVE" and rule_id
            assert refused.etag == view.view.etag
            other = pb.Move()
            other.trinity.SetInParent()
            await session.call.write(_move(other))
            mismatch = (await session.read()).outcome
            assert _reason(mismatch.status)[0] == "MOVE_GAME_MISMATCH"
            await mover.call.write(_move(legal[0]))
            applied = await mover.read()
            assert applied.outcome.status.code == 0
            assert applied.update.view.etag == applied.outcome.etag == "2"
            seen = await session.update()
            assert seen.view.etag == "2"
            for each in (session, mover):
                each.call.cancel()

    asyncio.run(run())


@pytest.mark.parametrize(
    ("first", "then", "reason"),
    [
        (None, None, "MALFORMED_REQUEST"),
        ("move", None, "INVALID_SESSION_MESSAGE"),
        ("start", "start", "INVALID_SESSION_MESSAGE"),
        ("start", None, "MALFORMED_REQUEST"),
    ],
    ids=["garbage first", "a move first", "a second start", "garbage later"],
)
def test_a_malformed_session_message_ends_the_session_with_invalid_argument(
    server_a: LocalServer, first: str | None, then: str | None, reason: str
) -> None:
    """Bytes that are no PlayGameRequest, a move before `start` or a second `start` end the
    session with INVALID_ARGUMENT and the reason: no outcome could name what was meant."""

    async def run() -> None:
        async with grpc.aio.insecure_channel(server_a.target) as channel:
            stub = GameServiceStub(channel)
            created = await _create(stub, "one_card", seed=74)
            send = channel.stream_stream(
                "/croupier.v1.GameService/PlayGame",
                request_serializer=lambda data: data,
                response_deserializer=pb.PlayGameResponse.FromString,
            )
            call = send(metadata=_auth(created.seat_credentials[0]))
            messages = {
                None: b"\xff\xff\xff",
                "move": _move(pb.Move()).SerializeToString(),
                "start": _start(created.name).SerializeToString(),
            }
            await call.write(messages[first])
            if first == "start":
                await call.read()  # the first view
                await call.write(messages[then])
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await _read_to_end(call)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert CroupierError.from_rpc_error(raised.value).reason == reason

    asyncio.run(run())


def test_a_session_needs_a_credential_of_that_game(server_a: LocalServer) -> None:
    """Without a credential: UNAUTHENTICATED; with another game's: PERMISSION_DENIED."""

    async def run() -> None:
        async with _table(server_a.target, seed=75) as table:
            other = await _create(table.stub, "one_card", seed=76)
            nobody = Session(table.stub, None)
            await nobody.call.write(_start(table.name))
            assert await nobody.error() == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_MISSING")
            stranger = Session(table.stub, other.seat_credentials[0])
            await stranger.call.write(_start(table.name))
            assert await stranger.error() == (
                grpc.StatusCode.PERMISSION_DENIED,
                "CREDENTIAL_REJECTED",
            )

    asyncio.run(run())


def test_one_request_id_on_two_sessions_of_one_seat_is_applied_once(
    server_a: LocalServer, server_b: LocalServer
) -> None:
    """A seat open on two devices (sessions on two replicas) sends the same move with the same
    request id on both at once: it is applied once, both outcomes say applied with the same
    etag, and each session receives the move's update exactly once."""

    async def run() -> None:
        async with (
            grpc.aio.insecure_channel(server_a.target) as channel_a,
            grpc.aio.insecure_channel(server_b.target) as channel_b,
        ):
            stub_a, stub_b = GameServiceStub(channel_a), GameServiceStub(channel_b)
            created = await _create(stub_a, "one_card", seed=77)
            seat = created.view.active_seats[0]
            credential = created.seat_credentials[seat]
            devices = [Session(stub_a, credential), Session(stub_b, credential)]
            views = []
            for device in devices:
                await device.call.write(_start(created.name))
                views.append(await device.update())
            move = views[0].view.legal_moves[0]
            request_id = str(uuid.uuid4())
            await asyncio.gather(*(d.call.write(_move(move, request_id)) for d in devices))
            for device in devices:
                # The outcome and the move's update, in either order (the update of the other
                # device's write may come first), each once.
                outcomes: list[pb.MoveOutcome] = []
                updates: list[pb.GameUpdate] = []
                while not (outcomes and updates):
                    message = await device.read()
                    if message.HasField("outcome"):
                        outcomes.append(message.outcome)
                    if message.HasField("update"):
                        updates.append(message.update)
                assert [(o.status.code, o.etag) for o in outcomes] == [(0, "2")]
                assert [u.view.etag for u in updates] == ["2"]
            got = await stub_a.GetGame(pb.GetGameRequest(name=created.name))
            assert got.view.move_count == 1
            for device in devices:
                await device.call.done_writing()
                left: list[pb.GameUpdate] = []
                await _read_to_end(device.call, left)
                assert left == []

    asyncio.run(run())


def test_a_resumed_session_misses_nothing(server_a: LocalServer, server_b: LocalServer) -> None:
    """A seat plays moves over one session, which goes away; another seat plays on; a session
    started with the etag of the last update received replays every move after it, in order,
    then goes on live on the other replica."""

    async def run() -> None:
        async with (
            grpc.aio.insecure_channel(server_a.target) as channel_a,
            grpc.aio.insecure_channel(server_b.target) as channel_b,
        ):
            stub_a, stub_b = GameServiceStub(channel_a), GameServiceStub(channel_b)
            created = await _create(stub_a, "whats_your_name", seed=78)
            credentials = list(created.seat_credentials)
            watcher = Session(stub_a, credentials[0])
            await watcher.call.write(_start(created.name))
            last = (await watcher.update()).view.etag
            watcher.call.cancel()
            rng = random.Random(78)
            for _ in range(12):
                got = await stub_b.GetGame(pb.GetGameRequest(name=created.name))
                seat = rng.choice(list(got.view.active_seats))
                listed = await stub_b.ListLegalMoves(
                    pb.ListLegalMovesRequest(name=created.name), metadata=_auth(credentials[seat])
                )
                await stub_b.ApplyMove(
                    pb.ApplyMoveRequest(name=created.name, move=rng.choice(list(listed.moves))),
                    metadata=_auth(credentials[seat]),
                )
            resumed = Session(stub_b, credentials[0])
            await resumed.call.write(_start(created.name, since_etag=last))
            etags = [int((await resumed.update()).view.etag) for _ in range(12)]
            assert etags == list(range(int(last) + 1, int(last) + 13))
            resumed.call.cancel()

    asyncio.run(run())


# A client on a small flow-control window (no window growth): once it stops reading, the
# server's writes wait after a few messages instead of after megabytes.
SMALL_WINDOW = (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024))


def test_a_session_that_never_reads_is_cut_off_with_the_reason(server_a: LocalServer) -> None:
    """A seat's client reads its first view, then nothing while the other seats play 200 moves:
    its session ends with RESOURCE_EXHAUSTED (WATCH_TOO_SLOW) after the messages already
    written, never skipping one; the game goes on for the others."""

    async def run() -> None:
        async with (
            grpc.aio.insecure_channel(server_a.target, options=SMALL_WINDOW) as slow,
            grpc.aio.insecure_channel(server_a.target) as fast,
        ):
            stub = GameServiceStub(fast)
            created = await _create(stub, "vampire_queen", seed=79)
            credentials = list(created.seat_credentials)
            idle = Session(GameServiceStub(slow), credentials[0])
            await idle.call.write(_start(created.name))
            received = [await idle.update()]
            rng = random.Random(79)
            played = 0
            while played < 200:
                got = await stub.GetGame(pb.GetGameRequest(name=created.name))
                if got.view.status == pb.GAME_STATUS_FINISHED:
                    break
                seat = rng.choice(list(got.view.active_seats))
                listed = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(name=created.name), metadata=_auth(credentials[seat])
                )
                await stub.ApplyMove(
                    pb.ApplyMoveRequest(name=created.name, move=rng.choice(list(listed.moves))),
                    metadata=_auth(credentials[seat]),
                )
                played += 1
            assert played > 100
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await _read_to_end(idle.call, received)
            assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert CroupierError.from_rpc_error(raised.value).reason == "WATCH_TOO_SLOW"
            etags = [int(update.view.etag) for update in received]
            assert etags == list(range(1, len(received) + 1)), "a gap before the cut-off"
            assert len(received) < played

    asyncio.run(run())


def test_each_move_of_a_session_has_its_log_line_and_the_session_one_at_its_end(
    server_a: LocalServer, server_log: Path
) -> None:
    """One JSON line per move (`rpc` PlayGame.Move, with the game, seat, move and outcome, a
    refusal's reason) and one for the session when it ends (`rpc` PlayGame)."""

    async def run() -> str:
        async with _table(server_a.target, seed=80) as table:
            first = table.created.view.active_seats[0]
            mover, view = await table.open(first)
            await mover.call.write(_move(view.view.legal_moves[0]))
            assert (await mover.read()).outcome.status.code == 0
            await mover.call.write(_move(view.view.legal_moves[0]))  # no longer its turn
            assert (await mover.read()).outcome.status.code != 0
            await mover.call.done_writing()
            await _read_to_end(mover.call)
            return table.name.removeprefix("games/")

    game = asyncio.run(run())
    deadline = time.monotonic() + 30
    while True:
        lines = [json.loads(line) for line in server_log.read_text().splitlines() if game in line]
        moves = [line for line in lines if line.get("rpc") == "PlayGame.Move"]
        ends = [line for line in lines if line.get("rpc") == "PlayGame"]
        if (len(moves) >= 2 and ends) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [(m["outcome"], m.get("reason")) for m in moves] == [
        ("OK", None),
        ("FAILED_PRECONDITION", "ILLEGAL_MOVE"),
    ]
    assert all(m["game_type"] == "one_card" and m["seat"] is not None for m in moves)
    assert moves[0]["move"]
    assert [e["outcome"] for e in ends] == ["OK"]
