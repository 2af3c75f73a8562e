"""Faults of PlayGame sessions, against real redis-server and croupier-server processes on
loopback ports.

- A burst of sessions opened at once at a server whose bound of watch streams (which sessions
  count against, with WatchGame's streams) is lower: each is answered (its first update
  arrives) or refused with UNAVAILABLE / OVERLOADED and a retry delay; none is CANCELLED or
  UNKNOWN, and the server counted exactly the refusals its clients saw.
- Redis paused (SIGSTOP) or killed and started again (same port and folder, append-only file)
  while seats play over sessions: a move sent meanwhile is answered UNAVAILABLE
  (STORE_UNAVAILABLE), or its session ends UNAVAILABLE; never silence. Afterwards the move is
  sent again with its request id, over the same session or one resumed with since_etag, and the
  game is played on to its end.
- The replica holding sessions killed with SIGKILL while their seats play: each seat resumes on
  the other replica with since_etag, the etag of the last update it received, and sends its
  unanswered move again with the same request id.
- The same request id sent twice in a row on one session: the second outcome is the recorded
  one, and the move is applied once.

The proof, for every game: each seat received every update once, in order (its etags, over all
its sessions, are 1, 2, 3, ... with none missing or repeated); the game's move count is the number
of moves whose applied outcome reached the client; replaying the stored log from the seed gives
the stored state.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import grpc
import pytest
import redis
from google.rpc import error_details_pb2, status_pb2

from croupier.engines.registry import GAMES
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from tests.reliability.figures import record
from tests.reliability.support import (
    SERVING,
    LossyProxy,
    PersistentRedis,
    alive,
    assert_replays,
    has_record,
    redis_client,
    servers,
    wait_health,
)
from tests.scrape import metric, wait_metric
from tests.service.helpers import status_of

# The deadline of every PlayGame call: beyond any test's length, so that none ends by it.
SESSION_TIMEOUT = 600.0
# The longest wait for a message a test expects. A busy 2-core machine answers within a second;
# a server that never answers fails the test here instead of hanging it.
WAIT = 60.0
# Retries are off in these channels: the tests count what the server answered to each call.
NO_RETRIES = [("grpc.enable_retries", 0)]
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE


def _auth(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


def _start(name: str, since_etag: str = "") -> pb.PlayGameRequest:
    return pb.PlayGameRequest(start=pb.PlayGameStart(name=name, since_etag=since_etag))


def _reason(status: status_pb2.Status) -> str:
    """The ErrorInfo reason of a move's outcome status."""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason: str = info.reason
            return reason
    return ""


async def _create(stub: GameServiceStub, game: str, seats: int, seed: int) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(seats=seats, seed=seed)
    getattr(request, game).CopyFrom(options_for(game))
    response: pb.CreateGameResponse = await stub.CreateGame(request, timeout=WAIT)
    return response


# --- a burst of sessions against the bound of watch streams ---------------------------------

BURST = 3_000
BURST_MAX_STREAMS = 1_000
# WatchGame streams held open through the burst: they take slots of the same bound.
BURST_WATCHES = 200
BURST_GAMES = 25
BURST_SEATS = 4
BURST_CHANNELS = 8


async def _session_burst(
    target: str, metrics_port: int, fired: int, watches: int
) -> tuple[Counter[tuple[str, str]], dict[str, float]]:
    """Open `watches` WatchGame streams, then `fired` sessions at once, every one held open
    until each has its answer; the outcome of each session, by (code, reason)."""
    channels = [
        grpc.aio.insecure_channel(target, options=NO_RETRIES) for _ in range(BURST_CHANNELS)
    ]
    stubs = [GameServiceStub(channel) for channel in channels]
    seats: list[tuple[str, str]] = []  # (game, credential)
    for n in range(BURST_GAMES):
        created = await _create(stubs[0], "vampire_queen", BURST_SEATS, seed=n)
        seats += [(created.name, credential) for credential in created.seat_credentials]
    held = [
        stubs[i % BURST_CHANNELS].WatchGame(
            pb.WatchGameRequest(name=seats[i % len(seats)][0]), timeout=SESSION_TIMEOUT
        )
        for i in range(watches)
    ]
    for stream in held:
        assert isinstance(await asyncio.wait_for(stream.read(), WAIT), pb.WatchGameResponse)
    await asyncio.to_thread(wait_metric, metrics_port, "croupier_watch_streams", watches)

    outcomes: Counter[tuple[str, str]] = Counter()
    pending = fired
    answered = asyncio.Event()  # every session answered or refused
    release = asyncio.Event()  # the figures are read: the sessions may end

    def done() -> None:
        nonlocal pending
        pending -= 1
        if pending == 0:
            answered.set()

    async def requests(name: str) -> AsyncIterator[pb.PlayGameRequest]:
        yield _start(name)
        await release.wait()  # then the client closes its side, which ends the session

    async def session(i: int) -> None:
        name, credential = seats[i % len(seats)]
        call = stubs[i % BURST_CHANNELS].PlayGame(
            requests(name), metadata=_auth(credential), timeout=SESSION_TIMEOUT
        )
        try:
            first = await call.read()
        except grpc.aio.AioRpcError as error:
            code, reason, delay = status_of(error)
            if reason == "OVERLOADED":
                assert delay is not None and delay > 0, "OVERLOADED without a RetryInfo delay"
                trailers = dict(error.trailing_metadata() or ())
                pushback = trailers.get("grpc-retry-pushback-ms")
                assert isinstance(pushback, str) and int(pushback) > 0, "no retry pushback"
            outcomes[(code.name, reason)] += 1
            return
        finally:
            done()
        assert isinstance(first, pb.PlayGameResponse) and first.HasField("update"), first
        assert first.update.view.viewer_seat == i % len(seats) % BURST_SEATS
        outcomes[("OK", "")] += 1
        # Held open until every session has its answer; then closed by the client, cleanly.
        assert await call.read() is grpc.aio.EOF
        assert await call.code() == grpc.StatusCode.OK

    started = time.monotonic()
    tasks = [asyncio.create_task(session(i)) for i in range(fired)]
    try:
        await asyncio.wait_for(answered.wait(), WAIT * 2)
        elapsed = time.monotonic() - started
        gauges = {
            "sessions_open": metric(metrics_port, "croupier_sessions"),
            "watch_streams_open": metric(metrics_port, "croupier_watch_streams"),
            "refusals_counted": metric(
                metrics_port, "croupier_overloaded_calls_total", rpc="PlayGame"
            ),
            "seconds": elapsed,
        }
        release.set()
        await asyncio.gather(*tasks)
    finally:
        release.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for stream in held:
            stream.cancel()
    # The slots are free again: a new session is answered.
    await asyncio.to_thread(wait_metric_below, metrics_port, "croupier_sessions", 1)
    name, credential = seats[0]
    call = stubs[0].PlayGame(metadata=_auth(credential), timeout=WAIT)
    await call.write(_start(name))
    assert isinstance(await call.read(), pb.PlayGameResponse)
    call.cancel()
    for channel in channels:
        await channel.close()
    return outcomes, gauges


def wait_metric_below(port: int, name: str, below: float, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while (value := metric(port, name)) >= below:
        assert time.monotonic() < deadline, f"{name} stayed at {value}"
        time.sleep(0.05)


def run_session_burst(fired: int, max_streams: int, watches: int, label: str) -> None:
    metrics_port = free_port()
    with (
        EmbeddedRedis() as store,
        servers(
            store.url,
            1,
            "--max-watch-streams", str(max_streams),
            "--max-watchers", "0",  # per game: not the bound under test
            "--max-streams-per-address", "0",  # the held spectators all come from here
            "--max-streams-per-seat", "0",  # thousands of sessions share a few seats here
            "--rate-limit", "0",  # per credential: many sessions share one here
            "--metrics-port", str(metrics_port),
        ) as (server,),
    ):  # fmt: skip
        outcomes, gauges = asyncio.run(_session_burst(server.target, metrics_port, fired, watches))
        assert alive(server)
    assert sum(outcomes.values()) == fired
    unexpected = set(outcomes) - {("OK", ""), ("UNAVAILABLE", "OVERLOADED")}
    assert not unexpected, f"sessions neither answered nor refused with a reason: {outcomes}"
    ok, refused = outcomes[("OK", "")], outcomes[("UNAVAILABLE", "OVERLOADED")]
    # The held WatchGame streams are spectators', counted apart: every slot of the seats'
    # bound went to a session, and each kept it.
    assert ok == max_streams
    assert refused == fired - ok
    assert gauges["sessions_open"] == ok
    assert gauges["watch_streams_open"] == watches
    assert gauges["refusals_counted"] == refused
    record(
        label,
        sessions_fired=fired,
        max_watch_streams=max_streams,
        watch_streams_held=watches,
        sessions_answered=ok,
        sessions_refused_overloaded=refused,
        cancelled_or_unknown=0,
        seconds_to_answer_all=round(gauges["seconds"], 2),
    )


def test_a_burst_of_sessions_is_answered_or_refused_with_a_retry_delay() -> None:
    """3,000 sessions opened at once over a few channels at a server that keeps at most 1,000 seats'
    streams, beside 200 spectators' WatchGame streams held open (counted apart, so they take no
    seat's slot): 1,000 sessions have their first update, the other 2,000 are refused UNAVAILABLE /
    OVERLOADED with a retry delay. A refused session is answered once its `start` has come
    (service/croupier/service/transport/calls.py): a grpc.aio client, as here, whose `start` is
    written after the refusal came back reports INTERNAL otherwise, the refusal lost."""
    run_session_burst(BURST, BURST_MAX_STREAMS, BURST_WATCHES, "session_burst")


# --- seats that play over sessions ----------------------------------------------------------


class SessionEnded(Exception):
    """A session of the table ended before the game did."""


class Session:
    """One PlayGame call of one seat: a task reads every message as it comes, the updates into
    the seat's list (over all its sessions), the outcomes into the session's."""

    def __init__(self, table: Table, seat: int, stub: GameServiceStub, target: str) -> None:
        self.table, self.seat, self.target = table, seat, target
        self.call = stub.PlayGame(metadata=_auth(table.credentials[seat]), timeout=SESSION_TIMEOUT)
        self.outcomes: list[pb.MoveOutcome] = []
        # How the call ended, once it has: its code and ErrorInfo reason.
        self.ended: tuple[grpc.StatusCode, str] | None = None
        self.task: asyncio.Task[None] | None = None
        # The etag this session resumed from, until its first update has come ("": none).
        self.resumed_from = ""

    @classmethod
    async def open(
        cls, table: Table, seat: int, stub: GameServiceStub, target: str, since_etag: str = ""
    ) -> Session:
        """A session started (its `start` written before any move), its messages read."""
        session = cls(table, seat, stub, target)
        session.resumed_from = since_etag
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            # A session that fails at once: its reader learns how.
            await session.call.write(_start(table.name, since_etag))
        session.task = asyncio.create_task(session._read())
        return session

    async def _read(self) -> None:
        try:
            while (message := await self.call.read()) is not grpc.aio.EOF:
                assert isinstance(message, pb.PlayGameResponse)
                if message.HasField("outcome"):
                    self.outcomes.append(message.outcome)
                if message.HasField("update"):
                    update, since = message.update, self.resumed_from
                    self.resumed_from = ""
                    # Resumed with nothing missed, a session starts with the view now, which the
                    # seat has already: no update of its own, so not counted as one.
                    if not (since and update.view.etag == since and not update.events):
                        self.table.updates[self.seat].append(update)
                self.table.changed.set()
            self.ended = (await self.call.code(), "")
        except grpc.aio.AioRpcError as error:
            code, reason, _ = status_of(error)
            self.ended = (code, reason)
        finally:
            self.table.changed.set()

    async def close(self) -> None:
        self.call.cancel()
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)


class Table:
    """A game played by its seats, each over its own session, one move at a time (so that a
    move sent again finds the game as it left it): a random legal move of a seat that may act,
    from that seat's own last update, sent with a request id and the etag of that update."""

    def __init__(self, created: pb.CreateGameResponse, seed: int, store: redis.Redis) -> None:
        self.name = created.name
        self.store = store
        self.credentials = list(created.seat_credentials)
        self.rng = random.Random(seed)
        self.updates: list[list[pb.GameUpdate]] = [[] for _ in self.credentials]
        self.sessions: list[Session] = []
        self.changed = asyncio.Event()
        self.etag = created.view.etag  # the game's after the last move answered as applied
        self.acknowledged = 0  # moves answered as applied
        # The move sent and not answered as applied (none answered, or UNAVAILABLE): its seat
        # and message, sent again as it is until it is.
        self.pending: tuple[int, pb.PlayGameMove] | None = None
        self.moves_in_doubt = 0  # pending moves sent again
        self.found_applied = 0  # of which the store held the first sending already
        self._sent = ""  # the request id of the last move written
        self._checked = ""  # the request id of the last move looked up in the store
        self.unavailable = 0  # moves answered UNAVAILABLE (STORE_UNAVAILABLE)
        self.sessions_ended: Counter[str] = Counter()  # by code and reason
        # Called with the seat's session and the write of a move, which it makes: a fault
        # injected around one move (None: the move is just written).
        self.around_write: AroundWrite | None = None

    async def open(self, stubs: dict[str, GameServiceStub], targets: list[str]) -> None:
        """A session for every seat, seat s on targets[s % len(targets)]."""
        for seat in range(len(self.credentials)):
            target = targets[seat % len(targets)]
            self.sessions.append(await Session.open(self, seat, stubs[target], target))

    def synced(self) -> bool:
        """Every seat has the update of the last move answered as applied."""
        return all(updates and updates[-1].view.etag == self.etag for updates in self.updates)

    def finished(self) -> bool:
        return self.updates[0][-1].view.status == pb.GAME_STATUS_FINISHED

    def broken(self) -> list[Session]:
        """The sessions that ended, but those that ended as they should, with the game."""
        return [
            session
            for session in self.sessions
            if session.ended is not None
            and not (
                session.ended[0] == grpc.StatusCode.OK
                and bool(self.updates[session.seat])
                and self.updates[session.seat][-1].view.status == pb.GAME_STATUS_FINISHED
            )
        ]

    async def resume(self, stubs: dict[str, GameServiceStub], target: str | None) -> None:
        """Every ended session opened again on `target` (None: where it was), from the last
        update its seat got."""
        broken = self.broken()
        for index, session in enumerate(self.sessions):
            if session not in broken:
                continue
            assert session.ended is not None
            code, reason = session.ended
            self.sessions_ended[f"{code.name}_{reason}".strip("_")] += 1
            await session.close()
            seat = session.seat
            since = self.updates[seat][-1].view.etag
            where = target or session.target
            self.sessions[index] = await Session.open(self, seat, stubs[where], where, since)

    async def until(self, done: Callable[[], bool], what: str) -> None:
        try:
            async with asyncio.timeout(WAIT):
                while not done():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            raise AssertionError(f"{self.name}: no {what} within {WAIT} s") from None

    async def step(self) -> bool:
        """Send one move and read its outcome; False once the game is over. Raises
        SessionEnded when a session ends (the move sent, if any, stays pending)."""
        if self.pending is None:
            await self.until(
                lambda: bool(self.broken()) or self.synced(), "update of the last move everywhere"
            )
            if self.broken():
                raise SessionEnded
            views = [updates[-1].view for updates in self.updates]
            if views[0].status == pb.GAME_STATUS_FINISHED:
                return False
            chosen = self.rng.choice([s for s, view in enumerate(views) if view.legal_moves])
            self.pending = (
                chosen,
                pb.PlayGameMove(
                    move=self.rng.choice(list(views[chosen].legal_moves)),
                    etag=self.etag,
                    request_id=str(uuid.uuid4()),
                ),
            )
        seat, move = self.pending
        if self._sent == move.request_id and self._checked != move.request_id:
            # Sent before and not answered as applied: in doubt. What does the store hold?
            self._checked = move.request_id
            self.moves_in_doubt += 1
            self.found_applied += _in_doubt(self.store, self)
        session = self.sessions[seat]
        answered = len(session.outcomes)
        self._sent = move.request_id

        async def write() -> None:
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                # A write fails when the session has ended: its reader learns how.
                await session.call.write(pb.PlayGameRequest(move=move))

        if self.around_write is None:
            await write()
        else:
            await self.around_write(self, session, write)
        await self.until(
            lambda: len(session.outcomes) > answered or session.ended is not None,
            "outcome of a move",
        )
        if len(session.outcomes) == answered:
            raise SessionEnded
        outcome = session.outcomes[answered]
        assert outcome.request_id == move.request_id
        if outcome.status.code:
            # The only refusal of a move of a fault: the store is away (try it again later).
            assert (outcome.status.code, _reason(outcome.status)) == (
                UNAVAILABLE.value[0],
                "STORE_UNAVAILABLE",
            ), outcome
            self.unavailable += 1
            return True
        self.acknowledged += 1
        assert outcome.etag == str(self.acknowledged + 1), (outcome, self.acknowledged)
        self.etag, self.pending = outcome.etag, None
        return True

    async def close(self) -> None:
        for session in self.sessions:
            await session.close()

    def check(self, client: redis.Redis) -> int:
        """Every seat got every update once and in order; the stored game holds exactly the
        moves answered as applied, and its log replays to its state. Returns the moves."""
        last = self.acknowledged + 1
        for seat, updates in enumerate(self.updates):
            etags = [int(update.view.etag) for update in updates]
            assert etags == list(range(1, last + 1)), (self.name, seat, etags)
        assert self.updates[0][-1].view.status == pb.GAME_STATUS_FINISHED
        assert self.updates[0][-1].view.move_count == self.acknowledged
        assert assert_replays(client, self.name) == self.acknowledged
        return self.acknowledged


AroundWrite = Callable[[Table, Session, Callable[[], Awaitable[None]]], Awaitable[None]]

# one_card's games run to thousands of moves: these tables play the others to their end.
TABLE_GAMES = ("whats_your_name", "trinity", "pig_mau_mau", "vampire_queen")
WARM_UP = 4  # moves each table plays before the fault
# What a table does before it gives up: open its sessions again, or send a move again after an
# UNAVAILABLE, this many times, waiting this long before each.
RESUMES = 20
RETRIES = 300
RETRY_SECONDS = 0.1


async def _tables(
    stub: GameServiceStub, games: Sequence[str], seed: int, store: redis.Redis
) -> list[Table]:
    tables = []
    for n, game in enumerate(games):
        engine = GAMES[game]
        seats = min(max(3, engine.min_seats), engine.max_seats)
        created = await _create(stub, game, seats, seed + n)
        tables.append(Table(created, seed + n, store))
    return tables


async def _play_on(
    table: Table,
    stubs: dict[str, GameServiceStub],
    target: str | None,
    moves: int | None = None,
) -> None:
    """Play to the end (or until `moves` moves are applied), every session that ends opened
    again on `target` (None: where it was) from the last update its seat received, the move in
    doubt sent again; a move answered UNAVAILABLE is sent again a little later."""
    resumed = retried = 0
    while moves is None or table.acknowledged < moves:
        try:
            if not await table.step():
                return
        except SessionEnded:
            resumed += 1
            assert resumed <= RESUMES, f"{table.name}: sessions ended: {table.sessions_ended}"
            await asyncio.sleep(RETRY_SECONDS)
            await table.resume(stubs, target)
            continue
        if table.pending is not None:  # answered UNAVAILABLE: the store is not back yet
            retried += 1
            assert retried <= RETRIES, f"{table.name}: {retried} moves answered UNAVAILABLE"
            await asyncio.sleep(RETRY_SECONDS)


def _in_doubt(client: redis.Redis, table: Table) -> bool:
    """Whether the store holds the table's pending move already (its answer was lost)."""
    assert table.pending is not None
    seat, move = table.pending
    return has_record(client, table.name, table.credentials[seat], move.request_id)


# --- the replica of a session killed ---------------------------------------------------------

# How the replica is killed in one round, around one move of the first table:
# "unapplied": stopped (SIGSTOP) before the move is written, then killed (SIGKILL): the move
#   never reached it;
# "applied": its answers to the clients lost from the moment the move is written (a proxy
#   drops them), killed once the store holds the move: applied, the answer never came;
# "anytime": killed at a random moment while every table plays.
KILLS = ("unapplied", "applied")


async def _kill_round(
    victim: LocalServer,
    survivor: LocalServer,
    client: redis.Redis,
    how: str,
    games: Sequence[str],
    seed: int,
) -> Counter[str]:
    """Tables whose seats play over sessions split between the two replicas; `victim` is
    killed, each session it held resumes on `survivor`."""
    assert victim.process is not None
    process = victim.process
    proxy = LossyProxy(victim.target)
    via_proxy = await proxy.start()
    channels = {
        target: grpc.aio.insecure_channel(target, options=NO_RETRIES)
        for target in (via_proxy, survivor.target)
    }
    stubs = {target: GameServiceStub(channel) for target, channel in channels.items()}
    figures: Counter[str] = Counter()
    tables = await _tables(stubs[survivor.target], games, seed, client)
    for n, table in enumerate(tables):
        await table.open(stubs, [via_proxy, survivor.target][:: 1 if n % 2 == 0 else -1])
    killed = asyncio.Event()

    def kill() -> None:
        process.send_signal(signal.SIGKILL)
        killed.set()

    async def around_write(
        table: Table, session: Session, write: Callable[[], Awaitable[None]]
    ) -> None:
        if killed.is_set() or table.acknowledged < WARM_UP or session.target != via_proxy:
            await write()
            return
        table.around_write = None
        if how == "unapplied":
            process.send_signal(signal.SIGSTOP)
            await write()
            kill()
            return
        proxy.drop_answers = True
        await write()
        deadline = time.monotonic() + WAIT
        while not await asyncio.to_thread(_in_doubt, client, table):
            assert time.monotonic() < deadline, "the move never reached the store"
            await asyncio.sleep(0.005)
        kill()

    try:
        if how == "anytime":
            playing = [asyncio.create_task(_play_on(t, stubs, survivor.target)) for t in tables]
            await asyncio.sleep(random.Random(seed).uniform(0.5, 2.0))
            kill()
        else:
            tables[0].around_write = around_write
            playing = [asyncio.create_task(_play_on(t, stubs, survivor.target)) for t in tables]
        await asyncio.wait_for(asyncio.gather(*playing), WAIT * 4)
        assert killed.is_set(), "the tables finished before the kill"
        assert await asyncio.to_thread(process.wait, 10) == -signal.SIGKILL
    finally:
        for table in tables:
            await table.close()
        for channel in channels.values():
            await channel.close()
        await proxy.close()
    for table in tables:
        # The sessions of the killed replica ended UNAVAILABLE (its connection lost), and
        # those alone.
        assert set(table.sessions_ended) <= {"UNAVAILABLE"}, table.sessions_ended
        figures["moves"] += table.check(client)
        figures["sessions_resumed"] += sum(table.sessions_ended.values())
        figures["moves_sent_again"] += table.moves_in_doubt
        figures["moves_sent_again_found_applied"] += table.found_applied
    if how != "anytime":
        # The first table's move around the kill was sent again, and found as its mode says.
        assert tables[0].moves_in_doubt >= 1
        assert tables[0].found_applied == (1 if how == "applied" else 0)
    return figures


def run_kills(rounds: Sequence[str], games: Sequence[str], label: str) -> None:
    figures: Counter[str] = Counter()
    with EmbeddedRedis() as store, servers(store.url, 2) as (victim, survivor):
        client = redis_client(store.url)
        try:
            for n, how in enumerate(rounds):
                if n:
                    victim.start()  # the killed replica comes back, for the next round
                figures += asyncio.run(_kill_round(victim, survivor, client, how, games, 90 + n))
        finally:
            client.close()
        assert alive(survivor)
        wait_health(survivor.target, SERVING, 5)
    assert figures["moves_sent_again"] >= len([how for how in rounds if how != "anytime"])
    record(label, replicas_killed=len(rounds), kills=list(rounds), lost=0, doubled=0, **figures)


def test_sessions_of_a_killed_replica_resume_on_the_other_with_no_move_lost_or_doubled() -> None:
    """Two rounds, each a few games whose seats play over sessions split between two
    replicas: the first table's move is written, then its replica killed before it could read
    it (round one) or once it had applied it but every answer was lost (round two). The seats of
    the killed replica resume on the other with since_etag and send the move again with its
    request id: applied once, never lost; the games play on to their end."""
    run_kills(KILLS, TABLE_GAMES[:2], "session_replica_killed")


@pytest.mark.slow
def test_sessions_survive_many_replica_kills() -> None:
    run_kills((*KILLS, "anytime") * 4, TABLE_GAMES, "session_replica_killed_slow")


# --- Redis away mid-session -------------------------------------------------------------------

OUTAGES = ("paused", "restarted")
# Redis stays away at least this long: a move sent meanwhile waits for the store's timeout
# (2 s) when Redis is paused, and fails at once when it is not there. The servers' sessions
# read the game themselves after WATCH_POLL seconds without news (--watch-poll), which fails
# while Redis is away and ends them: each is idle for that long within the outage, with time
# to spare for the read's own timeout.
OUTAGE_SECONDS = 6.0
WATCH_POLL = "1"


async def _move_in_outage(table: Table) -> tuple[str, float]:
    """Send a move while the store is away: how it ended, and how long its answer took."""
    unavailable = table.unavailable
    started = time.monotonic()
    with contextlib.suppress(SessionEnded):
        await table.step()
    took = time.monotonic() - started
    if table.unavailable > unavailable:
        return "moves_in_outage_answered_unavailable", took
    ended = [session.ended for session in table.broken()]
    assert ended, f"{table.name}: a move was applied while the store was away"
    assert set(ended) == {(UNAVAILABLE, "STORE_UNAVAILABLE")}, ended
    if table.pending is None:
        # A session of the table ended (its own read of the game failed) before the move
        # was chosen: none sent.
        return "tables_whose_session_ended_before_their_move", took
    return "moves_in_outage_whose_session_ended", took


async def _outages(
    store: PersistentRedis,
    targets: list[str],
    client: redis.Redis,
    fault: str,
    games: Sequence[str],
    outages: int,
    seed: int,
) -> Counter[str]:
    """Tables whose seats play over sessions split between the replicas, through `outages`
    faults of Redis, then on to their end."""
    assert store.process is not None
    channels = [grpc.aio.insecure_channel(target, options=NO_RETRIES) for target in targets]
    stubs = {
        target: GameServiceStub(channel) for target, channel in zip(targets, channels, strict=True)
    }
    tables = await _tables(stubs[targets[0]], games, seed, client)
    figures: Counter[str] = Counter()
    slowest = 0.0
    try:
        for n, table in enumerate(tables):
            await table.open(stubs, targets[n % len(targets) :] + targets[: n % len(targets)])
        for _ in range(outages):
            for table in tables:  # a few moves, then at rest: the last one's update everywhere
                await _play_on(table, stubs, None, table.acknowledged + WARM_UP)
                await table.until(table.synced, "update of the last move everywhere")
            playing = [table for table in tables if not table.finished()]
            assert playing, "every game ended before the outage"
            away = time.monotonic()
            if fault == "paused":
                store.process.send_signal(signal.SIGSTOP)
            else:
                await asyncio.to_thread(store.kill)
            try:
                during = await asyncio.gather(*(_move_in_outage(table) for table in playing))
                await asyncio.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - away)))
            finally:
                if fault == "paused":
                    store.process.send_signal(signal.SIGCONT)
                else:
                    await asyncio.to_thread(store.restart)
            for target in targets:
                await asyncio.to_thread(wait_health, target, SERVING, WAIT)
            figures.update(how for how, _ in during)
            slowest = max(slowest, *(took for _, took in during))
        await asyncio.wait_for(
            asyncio.gather(*(_play_on(table, stubs, None) for table in tables)), WAIT * 4
        )
    finally:
        for table in tables:
            await table.close()
        for channel in channels:
            await channel.close()
    for table in tables:
        # Sessions ended by the outage: each with the reason that says the store was away.
        assert set(table.sessions_ended) <= {"UNAVAILABLE_STORE_UNAVAILABLE"}, table.sessions_ended
        figures["moves"] += table.check(client)
        figures["sessions_resumed"] += sum(table.sessions_ended.values())
        figures["moves_sent_again"] += table.moves_in_doubt
        figures["moves_sent_again_found_applied"] += table.found_applied
        figures["moves_answered_unavailable"] += table.unavailable
    figures["slowest_answer_in_outage_ms"] = round(slowest * 1000)
    return figures


def run_outages(fault: str, games: Sequence[str], outages: int, label: str) -> None:
    with (
        PersistentRedis() as store,
        servers(store.url, 2, "--watch-poll", WATCH_POLL) as processes,
    ):
        client = redis_client(store.url)
        try:
            figures = asyncio.run(
                _outages(
                    store, [p.target for p in processes], client, fault, games, outages, seed=70
                )
            )
        finally:
            client.close()
        assert all(alive(server) for server in processes)
    # Every move of the outage was answered; each was sent again afterwards, applied once.
    sent = (
        figures["moves_in_outage_answered_unavailable"]
        + figures["moves_in_outage_whose_session_ended"]
    )
    assert sent > 0
    assert figures["moves_sent_again"] == sent
    # Sessions ended in the outage, and resumed where they had ended.
    assert figures["sessions_resumed"] > 0
    record(label, fault=fault, outages=outages, lost=0, doubled=0, **figures)


@pytest.mark.parametrize("fault", OUTAGES)
def test_a_move_in_a_redis_outage_is_answered_and_the_session_plays_on(fault: str) -> None:
    """Redis paused (SIGSTOP, then SIGCONT) or killed and started again on its port and
    folder, while two games are played over sessions on two replicas: the move each sends
    meanwhile is answered UNAVAILABLE (STORE_UNAVAILABLE), or its session ends UNAVAILABLE,
    within the store's timeout, never left unanswered. Once health says SERVING again, every
    ended session resumes with since_etag, the move is sent again with its request id, and the
    games are played to their end, each move applied once."""
    run_outages(fault, TABLE_GAMES[:2], 1, f"session_redis_{fault}")


@pytest.mark.slow
@pytest.mark.parametrize("fault", OUTAGES)
def test_sessions_live_through_many_redis_outages(fault: str) -> None:
    run_outages(fault, TABLE_GAMES, 3, f"session_redis_{fault}_slow")


# --- one request id, twice on one session -----------------------------------------------------


def test_a_request_id_sent_twice_on_one_session_is_applied_once() -> None:
    """A client that sends its move again on the same session (it did not see the outcome
    come, say) with the same request id: sent twice back to back with the etag it was chosen
    at, then once more without an etag, every later outcome is the recorded one (applied, the
    same etag, no second update); the same request id with another move is refused
    (REQUEST_ID_REUSED) and the session goes on. The game holds the move once."""
    with EmbeddedRedis() as store, servers(store.url, 1) as (server,):
        client = redis_client(store.url)
        try:
            name = asyncio.run(_same_request_id_twice(server.target))
            assert assert_replays(client, name) == 1
        finally:
            client.close()


async def _same_request_id_twice(target: str) -> str:
    async with grpc.aio.insecure_channel(target, options=NO_RETRIES) as channel:
        stub = GameServiceStub(channel)
        created = await _create(stub, "one_card", 4, seed=77)
        seat = created.view.active_seats[0]
        call = stub.PlayGame(metadata=_auth(created.seat_credentials[seat]), timeout=WAIT)
        await call.write(_start(created.name))
        first = await call.read()
        legal = list(first.update.view.legal_moves)
        assert len(legal) >= 2, "the test wants two legal moves"
        request_id = str(uuid.uuid4())
        again = pb.PlayGameRequest(
            move=pb.PlayGameMove(move=legal[0], etag="1", request_id=request_id)
        )
        await call.write(again)
        await call.write(again)
        applied = await call.read()
        assert applied.outcome.request_id == request_id
        assert (applied.outcome.status.code, applied.outcome.etag) == (0, "2")
        assert applied.update.view.etag == "2"
        recorded = await call.read()
        assert not recorded.HasField("update")
        assert recorded.outcome == applied.outcome
        without_etag = pb.PlayGameRequest(
            move=pb.PlayGameMove(move=legal[0], request_id=request_id)
        )
        await call.write(without_etag)
        assert (await call.read()) == recorded
        other = pb.PlayGameRequest(move=pb.PlayGameMove(move=legal[1], request_id=request_id))
        await call.write(other)
        reused = (await call.read()).outcome
        assert reused.status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        assert _reason(reused.status) == "REQUEST_ID_REUSED"
        assert reused.etag == "2"
        await call.done_writing()
        assert await call.read() is grpc.aio.EOF  # no other update: the move was made once
        assert await call.code() == grpc.StatusCode.OK
        got = await stub.GetGame(pb.GetGameRequest(name=created.name), timeout=WAIT)
        assert got.view.move_count == 1
        return created.name
