"""Turn clocks driven by an injectable clock: FORFEIT, walking away, time banks,
exactly-once timeouts, and a timeout the game's rules give a meaning (Pig Mau Mau's bet decision,
PM-5.3), without sleeping. Two servicers (two replicas) run in this process on a Redis of their
own (single and three-master cluster: the fake clock is set in the year 2100, so the due index
must be theirs alone), served over real gRPC; `clocks.set_now` is their clock and each sweep of
the due index is called by the test (`GameService.sweep_clocks`), by both replicas at once. The
real-time tests (real processes, a SIGKILLed replica) are in test_clocks.py."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from functools import partial
from typing import Any, TypeVar, cast

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.human import describe_clock
from croupier.play import options_for
from croupier.service.application import clocks
from croupier.service.application.bots import BOT_SEAT_HASH
from croupier.service.application.config import Settings
from croupier.service.application.replay import replay
from croupier.service.store import keys
from croupier.service.store.redis_store import RedisStore
from croupier.service.transport.server import add_game_service
from croupier.service.transport.servicer import GameService
from croupier.v1 import game_service_pb2 as pb
from croupier.v1 import game_service_pb2_grpc
from croupier.v1.pig_mau_mau_pb2 import (
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauOptions,
    PigMauMauPhase,
)
from croupier.v1.storage_pb2 import LoggedMove
from tests.redis_cluster import direct_client, embedded_store
from tests.service.helpers import assert_replays, game_id, stored

T = TypeVar("T")
START_MS = 4_102_444_800_000  # 2100-01-01: no real-time replica's sweep ever sees these due
SECONDS = 30


class FakeClock:
    def __init__(self) -> None:
        self.now = START_MS

    def __call__(self) -> int:
        return self.now


class Replicas:
    """Two GameService servicers on one store in a background event loop; the first one
    serves gRPC (the second only sweeps: a replica whose sweep races the first's)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.servicers: list[GameService] = []
        self.stores: list[RedisStore] = []
        self.port = 0

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.submit(coroutine).result(timeout=60)

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def __enter__(self) -> Replicas:
        self.thread.start()
        self.run(self._start())
        return self

    def __exit__(self, *_: object) -> None:
        self.run(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _start(self) -> None:
        settings = Settings(anonymous_rate_limit=10_000, anonymous_rate_burst=10_000)
        for _ in range(2):
            store = RedisStore(self.url, timeout=settings.store_timeout_seconds)
            # Connected first, as croupier-server does (a cluster client's first commands
            # must not all be concurrent).
            assert await store.ping()
            self.stores.append(store)
            self.servicers.append(GameService(store, settings))
        self.server = grpc.aio.server()
        add_game_service(self.servicers[0], self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()

    async def _stop(self) -> None:
        await self.server.stop(1.0)
        for store in self.stores:
            await store.close()

    def sweep(self) -> None:
        """Both replicas sweep the due index at once; then every bot move they started."""
        self.run(self._sweep())

    async def _sweep(self) -> None:
        await asyncio.gather(*(s.sweep_clocks() for s in self.servicers))
        await self._settle()

    def settle(self) -> None:
        self.run(self._settle())

    async def _settle(self) -> None:
        """Wait for the bot moves the replicas are making (an away seat's, say)."""
        for _ in range(100):
            tasks = [t for s in self.servicers for t in s._bots.tasks.values()]
            if not tasks:
                return
            await asyncio.gather(*tasks)


@pytest.fixture(scope="module", params=["redis", "cluster"])
def own_store(request: pytest.FixtureRequest) -> Iterator[str]:
    with embedded_store(request.param) as url:
        yield url


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeClock]:
    clock = FakeClock()
    clocks.set_now(clock)
    yield clock
    clocks.set_now(None)


@pytest.fixture(scope="module")
def replicas(own_store: str, fake: FakeClock) -> Iterator[Replicas]:
    with Replicas(own_store) as running:
        yield running


@pytest.fixture(scope="module")
def own_redis(own_store: str) -> Iterator[redis.Redis]:
    client = direct_client(own_store)
    yield client
    client.close()


@pytest.fixture(scope="module")
def croupier(replicas: Replicas) -> Iterator[Croupier]:
    with Croupier(f"127.0.0.1:{replicas.port}") as client:
        yield client


def logged(own_redis: redis.Redis, name: str) -> list[LoggedMove]:
    entries = cast(list[bytes], own_redis.lrange(keys.log(game_id(name)), 0, -1))
    return [LoggedMove.FromString(e) for e in entries]


def new_game(
    croupier: Croupier, game: str, seed: int, clock: pb.Clock, seats: int = 0
) -> pb.CreateGameResponse:
    seats = seats or GAMES[game].min_seats
    return croupier.create(options_for(game), seats, seed=seed, clock=clock)


def first_move(croupier: Croupier, name: str, credential: str) -> pb.Move:
    return croupier.legal_moves(name, credential)[0]


def time_out(
    replicas: Replicas,
    croupier: Croupier,
    fake: FakeClock,
    name: str,
    credentials: list[str],
    idle: int,
    timeouts: int,
) -> None:
    """In a game of two seats, the other seat moves and the idle one lets its deadline pass
    (each sweep by both replicas), until the idle seat has timed out `timeouts` times."""
    other = 1 - idle
    while timeouts:
        deadline, seat = due(croupier.get(name))
        if seat == idle:
            fake.now = deadline
            replicas.sweep()
            timeouts -= 1
        else:
            croupier.apply(name, credentials[other], first_move(croupier, name, credentials[other]))
            replicas.settle()


def due(view: pb.GameView) -> tuple[int, int]:
    """The earliest deadline of the view and its seat."""
    first = min(view.deadlines, key=lambda d: (d.deadline.ToMilliseconds(), d.seat))
    return first.deadline.ToMilliseconds(), first.seat


def count_fired(own_redis: redis.Redis, names: list[str], now: int) -> tuple[int, int]:
    """(timeouts fired, deadlines passed) of these games, checking that no deadline was acted
    on twice and every move was a timeout."""
    fired = passed = 0
    for name in names:
        entries = logged(own_redis, name)
        deadlines = [(e.seat, e.timeout_deadline_ms) for e in entries]
        assert all(d for _, d in deadlines), "a move nobody made that is not a timeout"
        assert len(set(deadlines)) == len(deadlines), "a deadline acted on twice"
        _, game = stored(own_redis, name)
        assert game.clock.timeouts == len(entries)
        fired += len(entries)
        passed += len(entries) + sum(1 for d in game.clock.deadline_ms if d and d <= now)
    return fired, passed


def test_each_deadline_fires_once_by_two_replicas(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """Idle games, the clock moved on by whole decisions: every passed deadline fires once,
    at the sweep that sees it (lateness 0 on this clock), although both replicas sweep."""
    clock = pb.Clock(seconds_per_decision=SECONDS)
    names = [new_game(croupier, "one_card", s, clock).name for s in range(5)]
    names += [new_game(croupier, "whats_your_name", s, clock).name for s in range(3)]
    total = 0
    for _ in range(6):
        fake.now += SECONDS * 1000
        replicas.sweep()
        fired, passed = count_fired(own_redis, names, fake.now)
        assert fired == passed > total
        total = fired
    assert total >= 6 * 8
    for name in names:
        late = [e.timeout_fired_ms - e.timeout_deadline_ms for e in logged(own_redis, name)]
        assert late and max(late) < SECONDS * 1000
    print(f"fake clock: timeouts fired {total}, deadlines passed {total}, doubled 0")


def race(
    replicas: Replicas,
    croupier: Croupier,
    name: str,
    credential: str,
    move: pb.Move,
    etag: str,
    sweep_first: bool,
) -> bool:
    """A move made at the etag of the view that showed the deadline, racing the sweep of the
    deadline (`sweep_first`: the sweep is done before the move is sent, so the move's etag is
    stale); whether the move was written."""
    sweeping = replicas.submit(replicas._sweep())
    if sweep_first:
        sweeping.result(timeout=60)
    try:
        croupier.apply(name, credential, move, etag=etag)
        applied = True
    except CroupierError as error:
        if error.reason != "ETAG_MISMATCH":
            raise
        applied = False
    sweeping.result(timeout=60)
    return applied


def test_a_move_before_the_deadline_wins_and_never_both(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    clock = pb.Clock(seconds_per_decision=SECONDS)
    created = new_game(croupier, "one_card", 21, clock)
    credentials = list(created.seat_credentials)
    deadline, seat = due(croupier.get(created.name))
    # One millisecond before: the sweep finds nothing, the move is written.
    fake.now = deadline - 1
    replicas.sweep()
    move = croupier.legal_moves(created.name, credentials[seat])[0]
    croupier.apply(created.name, credentials[seat], move)
    fake.now = deadline + 1
    replicas.sweep()
    (entry,) = logged(own_redis, created.name)
    assert entry.timeout_deadline_ms == 0 and entry.seat == seat
    # The move and the timeout at the same moment (every other game: the timeout's sweep
    # first), each of the two replicas sweeping: exactly one of them is written.
    moved = tries = 0
    for seed in range(30, 42):
        # Made now, so that no other sweep acts on its first deadline.
        created = new_game(croupier, "one_card", seed, clock)
        tries += 1
        view = croupier.get(created.name)
        deadline, seat = due(view)
        credential = created.seat_credentials[seat]
        move = croupier.legal_moves(created.name, credential)[0]
        fake.now = deadline
        applied = race(replicas, croupier, created.name, credential, move, view.etag, seed % 2 == 1)
        (entry,) = logged(own_redis, created.name)  # one of the two, never both
        assert (entry.timeout_deadline_ms == 0) == applied
        moved += applied
    assert 0 < moved <= tries - 6
    print(f"move and timeout at once: the move won {moved} of {tries}, never both")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_forfeit_ends_the_game_with_that_seat_last(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis, game: str
) -> None:
    clock = pb.Clock(seconds_per_decision=SECONDS, on_timeout=pb.TIMEOUT_POLICY_FORFEIT)
    created = new_game(croupier, game, 5, clock)
    credentials = list(created.seat_credentials)
    # One move by the first active seat, then nobody moves.
    view = croupier.get(created.name)
    first = view.active_seats[0]
    croupier.apply(
        created.name, credentials[first], croupier.legal_moves(created.name, credentials[first])[0]
    )
    view = croupier.get(created.name)
    deadline, seat = due(view)
    pending = croupier.legal_moves(created.name, credentials[seat])
    fake.now = deadline
    replicas.sweep()
    view = croupier.get(created.name, credentials[seat])
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.forfeited_seat == seat
    assert not view.active_seats and not view.deadlines
    seats = view.seats
    places = {r.seat: r.placement for r in view.result.seats}
    assert places[seat] == seats and list(places.values()).count(seats) == 1
    if GAMES[game].cooperative:  # Trinity: the team loses
        assert not view.result.winners
        assert all(r.score == 0 for r in view.result.seats)
    else:
        assert list(view.result.winners) == [s for s in range(seats) if s != seat]
    # A forfeited game takes no move, from any seat: none is listed, a legal one is refused.
    for credential in credentials:
        assert croupier.legal_moves(created.name, credential) == []
    with pytest.raises(CroupierError) as refused:
        croupier.apply(created.name, credentials[seat], pending[0])
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.reason == "GAME_FORFEITED"
    # The record shows the forfeit, and its replay reaches the same result byte for byte.
    record = croupier.record(created.name, credentials[0])
    assert record.HasField("forfeit") and record.forfeit.seat == seat
    assert record.forfeit.deadline.ToMilliseconds() == deadline
    assert record.setup.clock.on_timeout == pb.TIMEOUT_POLICY_FORFEIT
    assert len(record.moves) == 1
    assert replay(record).SerializeToString(deterministic=True) == (
        view.result.SerializeToString(deterministic=True)
    )
    _, kept = stored(own_redis, created.name)
    assert kept.clock.timeouts == 1 and kept.clock.forfeit_fired_ms == deadline
    # Later sweeps find nothing more to do for it.
    fake.now += 10 * SECONDS * 1000
    replicas.sweep()
    assert croupier.get(created.name).etag == view.etag


def test_watchers_see_the_forfeit_live_and_resumed(
    replicas: Replicas, croupier: Croupier, fake: FakeClock
) -> None:
    clock = pb.Clock(seconds_per_decision=SECONDS, on_timeout=pb.TIMEOUT_POLICY_FORFEIT)
    created = new_game(croupier, "one_card", 9, clock)
    stream = croupier.watch(created.name)
    first = next(stream)
    deadline, seat = due(first.view)
    fake.now = deadline
    replicas.sweep()
    updates = list(stream)  # the forfeit's view, then the stream ends
    assert [u.view.forfeited_seat for u in updates] == [seat]
    assert updates[0].view.status == pb.GAME_STATUS_FINISHED
    resumed = list(croupier.watch(created.name, since_etag=first.view.etag))
    assert [u.view.SerializeToString() for u in resumed] == [
        u.view.SerializeToString() for u in updates
    ]


def test_a_seat_that_walks_away_is_played_until_its_credential_moves(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    clock = pb.Clock(seconds_per_decision=SECONDS, abandon_after=2)
    created = new_game(croupier, "one_card", 12, clock)
    credentials = list(created.seat_credentials)
    view = croupier.get(created.name)
    assert list(view.away) == [False, False]
    _, idle = due(view)
    other = 1 - idle
    # The idle seat times out twice in a row (the other seat moves in between): away.
    time_out(replicas, croupier, fake, created.name, credentials, idle, 2)
    view = croupier.get(created.name)
    assert list(view.away) == [seat == idle for seat in range(2)]
    # From now on the strong bot plays the idle seat at once, no deadline waited for.
    before = len(logged(own_redis, created.name))
    for _ in range(3):
        view = croupier.get(created.name)
        if view.HasField("result"):
            break
        assert list(view.active_seats) == [other]
        croupier.apply(
            created.name, credentials[other], first_move(croupier, created.name, credentials[other])
        )
        replicas.settle()
    entries = logged(own_redis, created.name)[before:]
    assert [e.seat for e in entries if e.seat == idle], "the away seat was not played"
    assert not any(e.timeout_deadline_ms for e in entries)
    assert stored(own_redis, created.name)[1].clock.timeouts == 2
    # Its credential calls ApplyMove (refused: not its turn): the seat is back.
    view = croupier.get(created.name)
    assert list(view.active_seats) == [other]
    with pytest.raises(CroupierError):
        croupier.apply(
            created.name, credentials[idle], first_move(croupier, created.name, credentials[other])
        )
    view = croupier.get(created.name)
    assert list(view.away) == [False, False]
    croupier.apply(
        created.name, credentials[other], first_move(croupier, created.name, credentials[other])
    )
    replicas.settle()
    view = croupier.get(created.name)
    assert list(view.active_seats) == [idle]  # its turn waits for it now
    assert due(view)[1] == idle


def caught_up(
    croupier: Croupier, name: str, credential: str, since_etag: str
) -> tuple[list[pb.WatchGameResponse], pb.GameView]:
    """A watch of the seat resumed from `since_etag`, read up to the game's version now (10 s at
    most: a stream that never sends it fails the test instead of hanging); and the view now."""
    now = croupier.get(name, credential)
    stub = game_service_pb2_grpc.GameServiceStub(croupier.channel)
    stream = stub.WatchGame(
        pb.WatchGameRequest(name=name, since_etag=since_etag),
        metadata=[("authorization", f"Bearer {credential}")],
        timeout=10,
    )
    updates: list[pb.WatchGameResponse] = []
    try:
        for update in stream:
            updates.append(update)
            if update.view.etag == now.etag:
                break
    finally:
        stream.cancel()
    return updates, now


def test_a_resumed_watch_ends_on_the_view_now_clock_and_all(
    replicas: Replicas, croupier: Croupier, fake: FakeClock
) -> None:
    """A watch resumed with since_etag catches up from the move log, which keeps no clock state
    (each moment's deadlines, away seats, banks): its last update is the view now, equal to
    GetGame's, so a client that catches up shows the right deadlines and away seats (the table
    page's away badge did not show when the last move came that way); and a write that is no
    move after the last move (an away seat coming back) reaches it too, as the view now."""
    clock = pb.Clock(seconds_per_decision=SECONDS, abandon_after=1)
    created = new_game(croupier, "one_card", 21, clock)
    credentials = list(created.seat_credentials)
    start = croupier.get(created.name)
    idle = due(start)[1]
    other = 1 - idle
    # One timeout: away, and from then on played by the strong bot at once.
    time_out(replicas, croupier, fake, created.name, credentials, idle, 1)
    croupier.apply(
        created.name, credentials[other], first_move(croupier, created.name, credentials[other])
    )
    replicas.settle()
    updates, now = caught_up(croupier, created.name, credentials[idle], start.etag)
    assert list(now.away) == [seat == idle for seat in range(2)] and now.deadlines
    assert len(updates) > 2 and updates[-1].view == now and updates[-1].events
    # The seat's credential calls ApplyMove, refused (not its turn): it is back, by a write
    # that is no move.
    with pytest.raises(CroupierError):
        croupier.apply(
            created.name, credentials[idle], first_move(croupier, created.name, credentials[other])
        )
    back, now = caught_up(croupier, created.name, credentials[idle], updates[-1].view.etag)
    assert list(now.away) == [False, False]
    assert [u.view for u in back] == [now] and not back[0].events


def test_a_time_bank_pays_for_slow_decisions(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    clock = pb.Clock(seconds_per_decision=10, time_bank_seconds=20)
    created = new_game(croupier, "one_card", 14, clock)
    credentials = list(created.seat_credentials)
    start = fake.now
    view = croupier.get(created.name)
    assert list(view.time_bank_ms) == [20_000, 20_000]
    deadline, slow = due(view)
    assert deadline == start + 30_000  # 10 s a decision and the whole bank
    # 25 s: 15 s beyond the 10 come out of the bank.
    fake.now = start + 25_000
    croupier.apply(
        created.name, credentials[slow], first_move(croupier, created.name, credentials[slow])
    )
    view = croupier.get(created.name)
    banks = {slow: 5_000, 1 - slow: 20_000}
    assert list(view.time_bank_ms) == [banks[0], banks[1]]
    deadline, quick = due(view)
    assert quick == 1 - slow and deadline == fake.now + 30_000
    # 4 s: within the 10, the bank is untouched.
    fake.now += 4_000
    croupier.apply(
        created.name, credentials[quick], first_move(croupier, created.name, credentials[quick])
    )
    view = croupier.get(created.name)
    assert list(view.time_bank_ms) == [banks[0], banks[1]]
    deadline, seat = due(view)
    assert seat == slow and deadline == fake.now + 15_000
    # The slow seat times out: its bank is spent, its next decisions have 10 s.
    fake.now = deadline
    replicas.sweep()
    view = croupier.get(created.name)
    banks[slow] = 0
    assert list(view.time_bank_ms) == [banks[0], banks[1]]
    fake.now += 1_000
    croupier.apply(
        created.name, credentials[quick], first_move(croupier, created.name, credentials[quick])
    )
    deadline, seat = due(croupier.get(created.name))
    assert seat == slow and deadline == fake.now + 10_000


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        (pb.Clock(seconds_per_decision=30, abandon_after=-1), "abandon_after"),
        (pb.Clock(seconds_per_decision=30, abandon_after=101), "abandon_after"),
        (
            pb.Clock(
                seconds_per_decision=30, abandon_after=2, on_timeout=pb.TIMEOUT_POLICY_FORFEIT
            ),
            "abandon_after",
        ),
        (pb.Clock(seconds_per_decision=30, time_bank_seconds=-1), "time_bank_seconds"),
        (pb.Clock(seconds_per_decision=30, time_bank_seconds=86_401), "time_bank_seconds"),
        (pb.Clock(abandon_after=3), "seconds_per_decision"),
    ],
)
def test_bad_clock_settings_are_refused_and_create_nothing(
    croupier: Croupier, own_redis: redis.Redis, clock: pb.Clock, field: str
) -> None:
    def indexed() -> int:
        return sum(int(own_redis.zcard(keys.games_index(b))) for b in range(keys.INDEX_BUCKETS))

    before = indexed()
    with pytest.raises(CroupierError) as raised:
        croupier.create(options_for("one_card"), 2, clock=clock)
    assert raised.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert raised.value.reason == "INVALID_CLOCK"
    assert [f for f, _ in raised.value.field_violations] == [f"clock.{field}"]
    assert indexed() == before


def test_the_terminal_table_shows_banks_and_away_seats() -> None:
    view = pb.GameView(
        clock_seconds=30, viewer_seat=0, away=[False, True], time_bank_ms=[60_000, 0]
    )
    view.deadlines.add(seat=0).deadline.FromMilliseconds(100_000)
    text = describe_clock(view, ["Ann", "Bob"], 80.0)
    assert text == (
        "Clock (30 s a move, then the server's bot moves): Ann (you) 20 s left (bank 60 s);"
        " away (the server's bot plays them): Bob"
    )


def test_a_rematch_keeps_the_whole_clock(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    clock = pb.Clock(
        seconds_per_decision=SECONDS, on_timeout=pb.TIMEOUT_POLICY_FORFEIT, time_bank_seconds=5
    )
    created = new_game(croupier, "one_card", 16, clock)
    deadline, _ = due(croupier.get(created.name))
    fake.now = deadline
    replicas.sweep()
    assert croupier.get(created.name).HasField("forfeited_seat")
    again = croupier.rematch(created.name, created.seat_credentials[0])
    assert not again.view.HasField("forfeited_seat")
    assert list(again.view.time_bank_ms) == [5_000, 5_000]
    _, kept = stored(own_redis, again.name)
    assert (kept.clock.seconds, kept.clock.on_timeout, kept.clock.bank_ms) == (
        SECONDS,
        pb.TIMEOUT_POLICY_FORFEIT,
        5_000,
    )


def test_a_sweep_puts_a_banked_game_back_no_later_than_now_plus_seconds(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """A stale entry (a write refused after it indexed its hint) of a game whose seat is in its
    bank: the sweep puts the game back at now + seconds, not at the bank's end, since a write
    decided meanwhile may end earlier (docs/architecture.md, "Turn clocks", 3)."""
    created = new_game(
        croupier, "one_card", 18, pb.Clock(seconds_per_decision=10, time_bank_seconds=100)
    )
    deadline, _ = due(croupier.get(created.name))
    assert deadline == fake.now + 110_000
    gid = game_id(created.name)
    key = keys.due_index(keys.bucket_of(gid, keys.DUE_BUCKETS))
    assert own_redis.zscore(key, gid) == deadline
    own_redis.zadd(key, {gid: fake.now})
    replicas.sweep()
    assert own_redis.zscore(key, gid) == fake.now + 10_000
    assert logged(own_redis, created.name) == []  # nothing was due


def entry(own_redis: redis.Redis, name: str) -> tuple[float | None, int]:
    """The game's score in the due index and the entry its state says its writes last gave."""
    gid = game_id(name)
    score = own_redis.zscore(keys.due_index(keys.bucket_of(gid, keys.DUE_BUCKETS)), gid)
    return score, stored(own_redis, name)[1].clock.indexed_ms


def fired(own_redis: redis.Redis, name: str) -> list[tuple[int, int]]:
    """The game's timeouts: (deadline, fired at) of each."""
    moves = logged(own_redis, name)
    return [(m.timeout_deadline_ms, m.timeout_fired_ms) for m in moves if m.timeout_deadline_ms]


def play_at(croupier: Croupier, fake: FakeClock, name: str, credentials: list[str], at: int) -> int:
    """The seat to act moves at `at` (fake ms); the game's next deadline then."""
    fake.now = at
    _, seat = due(croupier.get(name))
    croupier.apply(name, credentials[seat], first_move(croupier, name, credentials[seat]))
    view = croupier.get(name)
    assert not view.HasField("result")
    return due(view)[0]


def test_a_move_indexes_its_deadline_only_when_earlier_or_half_a_decision_later(
    croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """Rule 4 (docs/architecture.md, "Turn clocks"): the entry a game's writes gave stays while
    its deadlines are no earlier and less than half a decision later (most moves send none); a
    deadline half a decision past it, or earlier (a seat with less bank), is indexed at once."""
    created = new_game(croupier, "one_card", 14, pb.Clock(seconds_per_decision=10))
    name, credentials, start = created.name, list(created.seat_credentials), fake.now
    first = start + 10_000
    assert entry(own_redis, name) == (first, first)
    for at in (1_000, 2_000, 4_000):  # the next deadlines 11 to 14 s: kept
        assert play_at(croupier, fake, name, credentials, start + at) == start + at + 10_000
        assert entry(own_redis, name) == (first, first)
    later = play_at(croupier, fake, name, credentials, start + 5_000)  # 15 s: half a decision
    assert later == first + 5_000 and entry(own_redis, name) == (later, later)

    banked = new_game(
        croupier, "one_card", 14, pb.Clock(seconds_per_decision=10, time_bank_seconds=100)
    )
    name, credentials, start = banked.name, list(banked.seat_credentials), fake.now
    assert entry(own_redis, name) == (start + 110_000, start + 110_000)
    play_at(croupier, fake, name, credentials, start + 1_000)  # 111 s: kept
    assert entry(own_redis, name) == (start + 110_000, start + 110_000)
    # 79 s of the second seat's decision, 69 of them from its bank: the first seat's next
    # deadline, 190 s, is indexed; then the second seat's, 122 s, earlier, at once.
    assert play_at(croupier, fake, name, credentials, start + 80_000) == start + 190_000
    assert entry(own_redis, name) == (start + 190_000, start + 190_000)
    assert play_at(croupier, fake, name, credentials, start + 81_000) == start + 122_000
    assert entry(own_redis, name) == (start + 122_000, start + 122_000)


def test_an_entry_left_behind_by_the_moves_is_put_back_and_fires_on_time(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """The entry the moves kept comes due before the game's deadline: the sweep finds nothing
    due, puts the game back at its next deadline, and the timeout fires then, once."""
    created = new_game(croupier, "one_card", 14, pb.Clock(seconds_per_decision=SECONDS))
    name, credentials, start = created.name, list(created.seat_credentials), fake.now
    for at in (2_000, 4_000):
        deadline = play_at(croupier, fake, name, credentials, start + at)
    assert deadline == start + 4_000 + SECONDS * 1000
    assert entry(own_redis, name) == (start + SECONDS * 1000,) * 2
    fake.now = start + SECONDS * 1000
    replicas.sweep()
    assert fired(own_redis, name) == [] and entry(own_redis, name)[0] == deadline
    fake.now = deadline
    replicas.sweep()
    assert fired(own_redis, name) == [(deadline, deadline)]
    assert stored(own_redis, name)[1].clock.timeouts == 1
    # The timeout's own write indexed the next deadline (the sweep had removed the entry).
    after = due(croupier.get(name))[0]
    assert entry(own_redis, name) == (after, after)


def test_a_move_and_a_forfeit_at_the_same_moment_never_both(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    clock = pb.Clock(seconds_per_decision=SECONDS, on_timeout=pb.TIMEOUT_POLICY_FORFEIT)
    moved = 0
    for seed in range(50, 58):
        created = new_game(croupier, "one_card", seed, clock)
        view = croupier.get(created.name)
        deadline, seat = due(view)
        credential = created.seat_credentials[seat]
        move = first_move(croupier, created.name, credential)
        fake.now = deadline
        applied = race(replicas, croupier, created.name, credential, move, view.etag, seed % 2 == 1)
        after = croupier.get(created.name)
        assert after.HasField("forfeited_seat") != applied
        assert len(logged(own_redis, created.name)) == int(applied)
        moved += applied
    assert 0 < moved <= 4


# Pig Mau Mau: where the rules say what a timeout means, the rules win over the policy (PM-5.3).
PIG_PLAY = PigMauMauPhase.PIG_MAU_MAU_PHASE_PLAY
PIG_STEPS = PigMauMauPhase.PIG_MAU_MAU_PHASE_STEPS
PIG_BET = PigMauMauPhase.PIG_MAU_MAU_PHASE_BET
PLUS_TWOS = range(28, 32)  # the +2 cards' codes (docs/games/pig_mau_mau.md, "Card encoding")
END_STEPS = pb.Move(pig_mau_mau=PigMauMauMove(end_steps=PigMauMauMove.EndSteps()))
# The seat that drew in a move's events (as its mover sees them), of the draw a test is after.
Drawn = Callable[[list[PigMauMauEvent]], int | None]


def pig_move(view: pb.GameView, legal: list[pb.Move], forget: bool = False) -> pb.Move:
    """The test's own Pig Mau Mau player, deterministic, so that draws come quickly: end the
    steps, decline a bet, play a +2 where it can, else the first play, each with the call it
    needs; with `forget`, it answers a pending +2 from a hand of two with a +2 and no call."""
    own = view.pig_mau_mau
    moves = [m.pig_mau_mau for m in legal]
    kinds = [m.WhichOneof("kind") for m in moves]
    for wanted in ("end_steps", "decline_bet"):
        if wanted in kinds:
            return legal[kinds.index(wanted)]
    call_needed = own.mau and len(own.hand) <= 2
    plays = [i for i, m in enumerate(moves) if kinds[i] == "play"]
    if forget and own.pending_draw and call_needed:
        forgotten = [i for i in plays if moves[i].play.card in PLUS_TWOS and not moves[i].play.call]
        if forgotten:
            return legal[forgotten[0]]
    plays = [i for i in plays if bool(moves[i].play.call) == call_needed]
    twos = [i for i in plays if moves[i].play.card in PLUS_TWOS]
    return legal[(twos or plays or [0])[0]]


def drawer_of(events: list[PigMauMauEvent], plus_two: bool, forgotten: bool) -> int | None:
    """The seat that drew cards in `events`: one card for want of a play, or a +2 total; after
    a forgotten call (PM-7.3) or not."""
    if forgotten != any(e.HasField("mau_forgotten") for e in events):
        return None
    for event in events:
        drew = event.cards_drawn
        if event.HasField("cards_drawn") and drew.count and bool(drew.pending_total) == plus_two:
            return drew.seat
    return None


def at_bet_decision(
    croupier: Croupier, clock: pb.Clock, drawn: Drawn, mau: bool = False
) -> tuple[pb.CreateGameResponse, int]:
    """A two-seat game played by `pig_move` until a seat drew as `drawn` says (the first seed
    that gets there within 80 moves), its steps back ended by its own credential: the game and
    that seat, deciding on a bet."""
    for seed in range(1, 40):
        created = croupier.create(PigMauMauOptions(mau=mau), 2, seed=seed, clock=clock)
        name, credentials = created.name, list(created.seat_credentials)
        for _ in range(80):
            view = croupier.get(name)
            if view.HasField("result"):
                break
            seat = view.active_seats[0]
            own = croupier.get(name, credentials[seat])
            move = pig_move(own, croupier.legal_moves(name, credentials[seat]), forget=mau)
            response = croupier.apply(name, credentials[seat], move)
            drawer = drawn([e.pig_mau_mau for e in response.events])
            if drawer is None:
                continue
            if croupier.get(name).pig_mau_mau.phase == PIG_STEPS:
                croupier.apply(name, credentials[drawer], END_STEPS)
            view = croupier.get(name)
            assert (view.pig_mau_mau.phase, view.pig_mau_mau.turn) == (PIG_BET, drawer)
            return created, drawer
    raise AssertionError("no seed reached that bet decision")


def bet_timeout(
    replicas: Replicas,
    croupier: Croupier,
    fake: FakeClock,
    own_redis: redis.Redis,
    drawn: Drawn,
    mau: bool = False,
) -> tuple[pb.CreateGameResponse, int, int]:
    """A two-seat game (AUTO, abandon_after 2) at a seat's bet decision after the draw `drawn`
    names, whose deadline then passes: checks that the timeout was the decline (the strong bot,
    AUTO's player, bets whenever the seat has no bet, as here), the bet row unchanged, counted
    towards the seat's walking away as any timeout, and the log replaying to the stored state.
    Returns the game, the seat and the timeout's index in the move log."""
    clock = pb.Clock(seconds_per_decision=SECONDS, abandon_after=2)
    created, seat = at_bet_decision(croupier, clock, drawn, mau)
    before = croupier.get(created.name)
    assert seat not in [b.seat for b in before.pig_mau_mau.bet_row]
    deadline, due_seat = due(before)
    assert due_seat == seat
    index = len(logged(own_redis, created.name))
    fake.now = deadline
    replicas.sweep()
    (entry,) = logged(own_redis, created.name)[index:]
    assert (entry.seat, entry.timeout_deadline_ms) == (seat, deadline)
    assert entry.move.pig_mau_mau.HasField("decline_bet")
    after = croupier.get(created.name)
    assert after.pig_mau_mau.bet_row == before.pig_mau_mau.bet_row
    assert (after.pig_mau_mau.phase, after.pig_mau_mau.turn) == (PIG_PLAY, 1 - seat)
    _, kept = stored(own_redis, created.name)
    assert kept.clock.timeouts == 1 and kept.clock.consecutive_timeouts[seat] == 1
    assert not after.away[seat]
    assert assert_replays(own_redis, created.name) == index + 1
    return created, seat, index


def test_pm_5_3_a_timeout_after_a_draw_for_want_of_a_play_declines_the_bet(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """PM-5.3 (betting is optional; declining is a move of its own, or a timeout): a seat that
    drew for want of a play (PM-3.2) and lets its bet decision (PM-5.1) time out has declined,
    under AUTO, whose strong bot would have bet. Played to the end, the game's record holds
    the decline as the seat's move and replays to the recorded result."""
    drawn = partial(drawer_of, plus_two=False, forgotten=False)
    created, seat, index = bet_timeout(replicas, croupier, fake, own_redis, drawn)
    name, credentials = created.name, list(created.seat_credentials)
    view = croupier.get(name)
    while not view.HasField("result"):
        mover = view.active_seats[0]
        own = croupier.get(name, credentials[mover])
        croupier.apply(
            name, credentials[mover], pig_move(own, croupier.legal_moves(name, credentials[mover]))
        )
        view = croupier.get(name)
    record = croupier.record(name, credentials[0])
    timed_out = record.moves[index]
    assert timed_out.seat == seat and timed_out.move.pig_mau_mau.HasField("decline_bet")
    assert replay(record).SerializeToString(deterministic=True) == (
        view.result.SerializeToString(deterministic=True)
    )


def test_pm_5_3_a_timeout_after_a_plus_two_draw_declines_the_bet(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """PM-5.3: a seat that drew a +2 total (PM-4.1) and ended its steps back (PM-4.2) lets its
    bet decision time out: it has declined."""
    drawn = partial(drawer_of, plus_two=True, forgotten=False)
    bet_timeout(replicas, croupier, fake, own_redis, drawn)


def test_pm_5_3_a_timeout_after_a_forgotten_calls_draw_declines_the_bet(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """PM-5.3: a seat that answered a pending +2 with a +2 but forgot its call takes the total
    with the bet that follows such a draw (PM-7.3); letting that decision time out declines."""
    drawn = partial(drawer_of, plus_two=True, forgotten=True)
    bet_timeout(replicas, croupier, fake, own_redis, drawn, mau=True)


def test_pm_5_3_a_bot_seat_whose_deadline_passes_decides_its_bet_itself(
    replicas: Replicas, croupier: Croupier, fake: FakeClock, own_redis: redis.Redis
) -> None:
    """PM-5.3's timeout is a player's: a bot seat never times out, and when its deadline passes
    in a bet decision (its replica gone before it played) the sweep plays its own bot's choice,
    not the decline. The bot seat is made by hand in the store, as such a replica leaves it."""
    clock = pb.Clock(seconds_per_decision=SECONDS)
    drawn = partial(drawer_of, plus_two=False, forgotten=False)
    created, seat = at_bet_decision(croupier, clock, drawn)
    deadline, _ = due(croupier.get(created.name))
    _, game = stored(own_redis, created.name)
    del game.bot_levels[:]
    game.bot_levels.extend(["strong" if s == seat else "" for s in range(2)])
    game.credential_hashes[seat] = BOT_SEAT_HASH
    own_redis.hset(keys.game(game_id(created.name)), "s", game.SerializeToString())
    index = len(logged(own_redis, created.name))
    fake.now = deadline
    replicas.sweep()
    (entry,) = logged(own_redis, created.name)[index:]
    assert (entry.seat, entry.timeout_deadline_ms) == (seat, deadline)
    assert entry.move.pig_mau_mau.HasField("place_bet")  # the strong bot's, never a decline
    assert stored(own_redis, created.name)[1].clock.timeouts == 1
    assert assert_replays(own_redis, created.name) == index + 1
