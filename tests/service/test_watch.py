"""WatchGame streams, fed through Redis pub/sub across server processes: every move reaches
every watcher once and in order (a watcher cut off for falling behind resumes with since_etag
and misses nothing), a resume replays exactly what the live stream sent (with nothing missed,
the view now at once), and a client that stops reading is cut off with the reason instead of
skipped in silence."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import urllib.request

import grpc
import pytest
import redis
from redis.cluster import RedisCluster

from croupier.bots import RandomBot
from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import free_port
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.one_card_pb2 import OneCardOptions
from tests.service.helpers import create


class Watcher:
    """A watch stream read by a thread of its own, as a client should: when the server cuts it
    off for falling behind (WATCH_TOO_SLOW) it resumes from the last etag it received."""

    def __init__(self, client: Croupier, name: str, credential: str | None, since: str = ""):
        self.received: list[pb.WatchGameResponse] = []
        self.resumes = 0
        self.error: CroupierError | None = None
        self._first = threading.Event()
        self._args = (client, name, credential, since)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        client, name, credential, since = self._args
        try:
            while True:
                try:
                    for message in client.watch(name, credential, since_etag=since):
                        self.received.append(message)
                        self._first.set()
                    return
                except CroupierError as error:
                    if error.reason != "WATCH_TOO_SLOW":
                        raise
                    self.resumes += 1
                    since = self.received[-1].view.etag if self.received else since
        except CroupierError as error:
            self.error = error
        finally:
            self._first.set()

    def wait_first(self) -> None:
        assert self._first.wait(10), "no first message"

    def wait_count(self, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and self.thread.is_alive():
            assert time.monotonic() < deadline, f"{len(self.received)} of {count} messages"
            time.sleep(0.01)

    def join(self, timeout: float = 60) -> list[pb.WatchGameResponse]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the stream did not end"
        assert self.error is None, self.error
        return self.received


def collect(client: Croupier, name: str, credential: str | None) -> Watcher:
    watcher = Watcher(client, name, credential)
    watcher.wait_first()
    return watcher


def encoded(messages: list[pb.WatchGameResponse]) -> list[bytes]:
    return [m.SerializeToString(deterministic=True) for m in messages]


class Players:
    """Random legal play, one move at a time, through one client."""

    def __init__(self, client: Croupier, created: pb.CreateGameResponse, seed: int) -> None:
        self.client = client
        self.created = created
        self.bot = RandomBot(seed)
        self.view = created.view
        self.moves = 0

    def play(self, count: int) -> None:
        for _ in range(count):
            assert not self.view.HasField("result"), "the game ended too early"
            seat = self.bot.choose(list(self.view.active_seats))
            credential = self.created.seat_credentials[seat]
            move = self.bot.choose(self.client.legal_moves(self.created.name, credential))
            self.client.apply(self.created.name, credential, move)
            self.moves += 1
            # With the seat's credential: the spectators' calls of one address share a limit.
            self.view = self.client.get(self.created.name, credential)

    def play_to_end(self) -> None:
        while not self.view.HasField("result"):
            self.play(1)


def test_watchers_on_one_process_see_moves_applied_through_another(
    client: Croupier, client_b: Croupier
) -> None:
    """Every move, once, in order, whatever the machine's load: a watcher that falls behind is
    cut off with WATCH_TOO_SLOW and resumes with since_etag (no assertion on time)."""
    game = create(client, "vampire_queen", 3, seed=31)
    spectator_watcher = collect(client, game.name, None)
    seat_watcher = collect(client, game.name, game.seat_credentials[0])
    players = Players(client_b, game, seed=31)
    players.play_to_end()
    view, moves = client_b.get(game.name), players.moves
    spectator = spectator_watcher.join()
    seat0 = seat_watcher.join()
    for stream in (spectator, seat0):
        assert len(stream) == moves + 1
        assert [int(m.view.etag) for m in stream] == list(range(1, moves + 2))
        assert stream[-1].view.HasField("result")
        assert not stream[0].events
    assert not spectator[0].view.HasField("viewer_seat")
    assert all(m.view.viewer_seat == 0 for m in seat0)
    assert spectator[-1].view.result == view.result


def test_streams_opened_all_at_once_on_a_fresh_server_all_see_the_next_move(
    store_url: str,
) -> None:
    """Many first subscriptions at once (a fresh process has no pub/sub connection yet) must
    neither stall nor lose any channel's notifications: each stream has its first view at once
    and gets the move well before the poll that would otherwise hide the loss."""
    games, per_game = 16, 8
    # Every stream a spectator's from this one address: its limit is not the one under test.
    args = ("--watch-poll", "60", "--max-streams-per-address", "0")
    with LocalServer(store_url, extra_args=args) as server:
        asyncio.run(_watch_all_at_once(server.target, games, per_game))


async def _watch_all_at_once(target: str, games: int, per_game: int) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        created = []
        for seed in range(games):
            request = pb.CreateGameRequest(seats=3, seed=seed, one_card=OneCardOptions())
            created.append(await stub.CreateGame(request))
        counts = [0] * (games * per_game)
        changed = asyncio.Condition()

        async def watch(number: int) -> None:
            request = pb.WatchGameRequest(name=created[number % games].name)
            async for _ in stub.WatchGame(request):
                counts[number] += 1
                async with changed:
                    changed.notify_all()

        async def all_reach(count: int, seconds: float) -> None:
            async with asyncio.timeout(seconds), changed:
                await changed.wait_for(lambda: min(counts) >= count)

        streams = [asyncio.create_task(watch(n)) for n in range(games * per_game)]
        try:
            await all_reach(1, 4)  # below the 5 s a subscription may wait to be confirmed
            engine = GAMES["one_card"]
            for seed, game in enumerate(created):
                state, _ = engine.new_game(OneCardOptions(), 3, seed)
                seat = engine.active_seats(state)[0]
                move = pb.Move(one_card=engine.legal_moves(state, seat)[0])
                credential = (("authorization", f"Bearer {game.seat_credentials[seat]}"),)
                apply = pb.ApplyMoveRequest(name=game.name, move=move)
                await stub.ApplyMove(apply, metadata=credential)
            with contextlib.suppress(TimeoutError):
                await all_reach(2, 10)
            missed = sorted({n % games for n, count in enumerate(counts) if count < 2})
            assert not missed, f"games whose watchers missed the move: {missed}"
        finally:
            for stream in streams:
                stream.cancel()
            await asyncio.gather(*streams, return_exceptions=True)


def test_a_watcher_that_reconnects_with_since_etag_misses_no_move(
    client: Croupier, client_b: Croupier
) -> None:
    """Disconnect mid-game, play on, resume with since_etag: the resumed stream starts with
    exactly the missed moves, in order, byte for byte what an uninterrupted stream of the same
    seat received (views and events), and then goes on live to the end."""
    game = create(client, "vampire_queen", 3, seed=32)
    seat = game.seat_credentials[1]
    reference = collect(client, game.name, seat)
    spectator_reference = collect(client, game.name, None)
    players = Players(client_b, game, seed=32)

    spectator_stream = client.watch(game.name)
    spectator_before = [next(spectator_stream)]
    spectator_stream.close()  # a spectator goes away before the first move
    before: list[pb.WatchGameResponse] = []
    stream = client.watch(game.name, seat)
    before.append(next(stream))
    players.play(5)
    before += [next(stream) for _ in range(5)]
    stream.close()  # the seat's client goes away mid-game
    players.play(40)  # missed by both

    resumed = Watcher(client, game.name, seat, since=before[-1].view.etag)
    resumed.wait_count(40)
    spectator_resumed = Watcher(client, game.name, None, since=spectator_before[-1].view.etag)
    spectator_resumed.wait_count(45)
    assert [int(m.view.etag) for m in resumed.received[:40]] == list(range(7, 47))
    players.play_to_end()  # the resumed streams go on live

    for first, rest, whole in (
        (before, resumed, reference),
        (spectator_before, spectator_resumed, spectator_reference),
    ):
        stream_after = rest.join()
        expected = whole.join()
        assert len(expected) == players.moves + 1
        combined = first + stream_after
        assert [int(m.view.etag) for m in combined] == list(range(1, players.moves + 2))
        assert encoded(combined) == encoded(expected), "a resumed message differs"
    assert resumed.received[-1].view.HasField("result")


def test_since_etag_that_cannot_be_resumed_is_refused_with_a_reason(client: Croupier) -> None:
    game = create(client, "trinity", 3, seed=33)
    refusals = {
        "abc": ("INVALID_ARGUMENT", "INVALID_ETAG"),
        "0": ("INVALID_ARGUMENT", "INVALID_ETAG"),
        "-1": ("INVALID_ARGUMENT", "INVALID_ETAG"),
        "2": ("OUT_OF_RANGE", "RESUME_OUT_OF_RANGE"),  # the game is at etag 1
        "99999999999999999999": ("INVALID_ARGUMENT", "INVALID_ETAG"),
    }
    for since, (code, reason) in refusals.items():
        with pytest.raises(CroupierError) as refused:
            next(client.watch(game.name, since_etag=since))
        assert (refused.value.code.name, refused.value.reason) == (code, reason), since


def test_a_resume_that_missed_nothing_sends_the_view_now_at_once(
    client: Croupier, client_b: Croupier
) -> None:
    """Resumed from the etag of the view now, a stream and a session each send that view at
    once, without events (a client that reconnected knows it is back, and a seat has its legal
    moves), then the next move live: no silence until a move comes."""
    game = create(client, "one_card", 2, seed=36)
    players = Players(client_b, game, seed=36)
    players.play(3)
    seat = players.bot.choose(list(players.view.active_seats))
    credential = game.seat_credentials[seat]
    now = client.get(game.name, credential)
    assert now.legal_moves
    # With a deadline: a stream that waits for the next move fails here instead of hanging.
    stream = GameServiceStub(client.channel).WatchGame(
        pb.WatchGameRequest(name=game.name, since_etag=now.etag),
        metadata=[("authorization", f"Bearer {credential}")],
        timeout=30,
    )
    first = next(stream)  # before any other move
    assert first == pb.WatchGameResponse(view=now)
    with client.session(game.name, credential, since_etag=now.etag) as session:
        update = session.next_update(30)
        assert update is not None
        assert update.view == now and not update.events
        players.play(1)
        moved = next(stream)
        assert int(moved.view.etag) == int(now.etag) + 1 and moved.events
        update = session.next_update(30)
        assert update is not None and update.view.etag == moved.view.etag
    stream.cancel()


def test_resuming_a_finished_game_from_its_last_etag_sends_that_view_and_ends(
    client: Croupier, client_b: Croupier
) -> None:
    game = create(client, "trinity", 3, seed=34)
    players = Players(client_b, game, seed=34)
    players.play_to_end()
    view, moves = client.get(game.name), players.moves
    assert list(client.watch(game.name, since_etag=view.etag)) == [pb.WatchGameResponse(view=view)]
    last_two = list(client.watch(game.name, since_etag=str(moves - 1)))
    assert [m.view.etag for m in last_two] == [str(moves), str(moves + 1)]
    assert last_two[-1].view == view


# A real client on a small flow-control window (no window growth): once it stops reading, the
# server's writes wait after a few messages instead of after megabytes, so a short game shows it.
SMALL_WINDOW = (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024))


def test_a_watcher_that_never_reads_is_cut_off_with_the_reason(store_url: str) -> None:
    """The client reads the first view and then nothing while 200 moves are played: the
    server ends its stream with RESOURCE_EXHAUSTED (WATCH_TOO_SLOW) once 64 moves wait for it.
    When the client reads again it gets consecutive messages, then that status; a resume from
    the last etag received gives every remaining move."""
    metrics_port = free_port()
    with (
        LocalServer(store_url, extra_args=("--metrics-port", str(metrics_port))) as server,
        Croupier(server.target) as croupier,
    ):
        game = create(croupier, "vampire_queen", 6, seed=35)
        figures = asyncio.run(_never_reads(server.target, croupier, game, metrics_port))
    print(f"[watch] never-reading watcher: {figures}")


async def _never_reads(
    target: str, croupier: Croupier, game: pb.CreateGameResponse, metrics_port: int
) -> dict[str, int]:
    async with grpc.aio.insecure_channel(target, options=SMALL_WINDOW) as channel:
        stub = GameServiceStub(channel)
        call = stub.WatchGame(pb.WatchGameRequest(name=game.name))
        first = await call.read()
        assert isinstance(first, pb.WatchGameResponse)
        players = Players(croupier, game, seed=35)
        await asyncio.to_thread(players.play, 200)
        # The server counts the cut-off when it decides it (its status then waits behind the
        # messages the client has not read).
        deadline = time.monotonic() + 60
        while await asyncio.to_thread(_cut_off_count, metrics_port) < 1:
            assert time.monotonic() < deadline, "the stream was not cut off"
            await asyncio.sleep(0.05)
        received = [first]
        ended = await _read_until_error(call, received)
        assert ended.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        error = CroupierError.from_rpc_error(ended)
        assert error.reason == "WATCH_TOO_SLOW"
        assert "since_etag" in error.message
        etags = [int(m.view.etag) for m in received]
        assert etags == list(range(1, len(received) + 1)), "a gap before the cut-off"
        assert len(received) < 200 - 64, "cut off later than 64 waiting moves"
        resumed = stub.WatchGame(
            pb.WatchGameRequest(name=game.name, since_etag=received[-1].view.etag)
        )
        missed = 200 + 1 - len(received)
        rest = []
        for _ in range(missed):
            message = await resumed.read()
            assert isinstance(message, pb.WatchGameResponse)
            rest.append(message)
        resumed.cancel()
        assert [int(m.view.etag) for m in rest] == list(range(len(received) + 1, 202))
        return {"moves_played": 200, "messages_before_cut_off": len(received), "resumed": missed}


async def _read_until_error(
    call: grpc.aio.UnaryStreamCall[pb.WatchGameRequest, pb.WatchGameResponse],
    received: list[pb.WatchGameResponse],
) -> grpc.aio.AioRpcError:
    """Read the stream into `received` until it ends; the error it ends with."""
    try:
        while True:
            message = await call.read()
            assert message is not grpc.aio.EOF, "the stream ended without a status"
            assert isinstance(message, pb.WatchGameResponse)
            received.append(message)
    except grpc.aio.AioRpcError as error:
        return error


def _cut_off_count(metrics_port: int) -> float:
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("croupier_watch_cut_off_total "):
                return float(line.split()[1])
    return 0.0


def test_notifications_lost_with_the_pubsub_connection_are_filled_from_the_log(
    store_url: str, redis_client: redis.Redis
) -> None:
    """Redis drops the server's pub/sub connections (as in a failover) while moves go on: the
    moves published meanwhile never reach the process. The stream still has every move, in
    order: the next notification heard shows the gap, filled from the move log (the poll that
    would also find it is set to 60 s)."""
    with (
        LocalServer(store_url, extra_args=("--watch-poll", "60")) as server,
        Croupier(server.target) as croupier,
    ):
        game = create(croupier, "vampire_queen", 3, seed=36)
        watcher = collect(croupier, game.name, game.seat_credentials[0])
        players = Players(croupier, game, seed=36)
        players.play(3)
        watcher.wait_count(4)
        if isinstance(redis_client, RedisCluster):
            redis_client.client_kill_filter(_type="pubsub", target_nodes=RedisCluster.ALL_NODES)
        else:
            redis_client.client_kill_filter(_type="pubsub")
        players.play(5)  # published while the connection is down (for about 0.5 s)
        for _ in range(100):  # until the stream hears a move again
            players.play(1)
            time.sleep(0.1)
            if int(watcher.received[-1].view.etag) == players.moves + 1:
                break
        etags = [int(m.view.etag) for m in watcher.received]
        assert etags == list(range(1, players.moves + 2)), "a move was lost or repeated"
