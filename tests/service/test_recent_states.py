"""A move decided on the state its process remembers: one round trip when that state is
current, and never a wrong answer when another process has moved the game since.

Two real server processes share one real Redis; round trips are Redis's own count of read
events around each call (the INFO calls left out; the servers send nothing else meanwhile)."""

from __future__ import annotations

import re
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.application.recent_states import RecentStates
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1 import game_service_pb2 as pb
from tests.service.helpers import assert_replays, create, game_id


@dataclass
class Replicas:
    redis: redis.Redis
    a: Croupier
    b: Croupier
    uncached: Croupier  # a process started with --state-cache-size 0
    a_metrics: str  # the /metrics address of process A


@pytest.fixture(scope="module")
def replicas() -> Iterator[Replicas]:
    metrics_port = free_port()
    # The turn clocks' sweep reads Redis every 0.2 s from every replica, whatever the calls;
    # these games have no clock, and the round trips counted are the calls' own: no sweep.
    # Nor the health monitor's ping: the lean client writes the commands of one turn of the
    # event loop together, so a ping sent in the same turn as a call's command shares its read
    # event, and taking the ping off as a read of its own counted one round trip too few.
    quiet = ("--clock-tick", "3600", "--health-interval", "3600")
    with (
        EmbeddedRedis() as store,
        LocalServer(
            store.url, extra_args=("--metrics-port", str(metrics_port), *quiet)
        ) as server_a,
        LocalServer(store.url, extra_args=quiet) as server_b,
        LocalServer(store.url, extra_args=("--state-cache-size", "0", *quiet)) as server_c,
        Croupier(server_a.target) as a,
        Croupier(server_b.target) as b,
        Croupier(server_c.target) as uncached,
    ):
        for process in (a, b, uncached):
            # A process's first write also loads the commit script into Redis.
            warm_up = create(process, "vampire_queen", 3, seed=30)
            credential, moves = turn(process, warm_up, warm_up.view)
            process.apply(warm_up.name, credential, moves[0])
        client = redis.Redis.from_url(store.url)
        yield Replicas(client, a, b, uncached, f"http://127.0.0.1:{metrics_port}/metrics")
        client.close()


def counted(r: redis.Redis, call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """What `call(*args, **kwargs)` returned (or the CroupierError it raised) and the Redis round
    trips it made."""
    before: dict[str, Any] = r.info("commandstats", "stats")
    try:
        result = call(*args, **kwargs)
    except CroupierError as error:
        result = error
    after: dict[str, Any] = r.info("commandstats", "stats")

    def calls(info: dict[str, Any], command: str) -> int:
        return int(info.get(f"cmdstat_{command}", {}).get("calls", 0))

    # A command sent by anything else would share read events with the call's: no count then.
    assert calls(after, "ping") == calls(before, "ping"), "a ping in the window"
    reads = after["total_reads_processed"] - before["total_reads_processed"]
    # The later INFO is a read event of its own (the earlier one is counted in its calls).
    return result, reads - (calls(after, "info") - calls(before, "info"))


def turn(
    via: Croupier, game: pb.CreateGameResponse, view: pb.GameView
) -> tuple[str, list[pb.Move]]:
    """The credential of the seat to move in `view`, and its legal moves (listed through
    `via`, which reads the game: use a process whose remembered state may change)."""
    credential = game.seat_credentials[view.active_seats[0]]
    return credential, via.legal_moves(game.name, credential)


def round_trips_of_moves(
    replicas: Replicas, via: Croupier, game: pb.CreateGameResponse, moves: int
) -> list[int]:
    """Play `moves` moves of `game` through `via` alone; the Redis round trips of each."""
    view, trips = game.view, []
    for _ in range(moves):
        credential, legal = turn(via, game, view)
        applied, made = counted(replicas.redis, via.apply, game.name, credential, legal[0])
        assert isinstance(applied, pb.ApplyMoveResponse), applied
        trips.append(made)
        view = applied.view
    return trips


def test_a_move_after_the_last_move_of_its_process_is_one_round_trip(
    replicas: Replicas,
) -> None:
    game = create(replicas.a, "vampire_queen", 3, seed=31)
    assert round_trips_of_moves(replicas, replicas.a, game, 5) == [1] * 5
    assert assert_replays(replicas.redis, game.name) == 5


def test_a_move_refused_on_a_stale_state_is_read_again_and_applied(
    replicas: Replicas,
) -> None:
    """Process A remembers the game before B's move: on that state it is not the next seat's
    turn, but A reads the game before refusing, and the move is applied."""
    a, b = replicas.a, replicas.b
    game = create(a, "vampire_queen", 3, seed=32)
    credential, moves = turn(b, game, game.view)
    after_b = b.apply(game.name, credential, moves[0]).view
    credential, moves = turn(b, game, after_b)
    applied, trips = counted(replicas.redis, a.apply, game.name, credential, moves[0])
    assert isinstance(applied, pb.ApplyMoveResponse), applied
    assert applied.view.move_count == 2
    assert trips == 2  # the write skipped on the stale state, the read, the write
    assert assert_replays(replicas.redis, game.name) == 2


def test_a_move_legal_only_on_a_stale_state_is_refused_and_changes_nothing(
    replicas: Replicas,
) -> None:
    """A remembers the game before B applied seat 0's move; seat 0 sends the same move to A.
    It is legal on A's state, so A writes; the store refuses (the game has moved on) and
    answers with the current state, on which the move is illegal."""
    a, b = replicas.a, replicas.b
    game = create(a, "vampire_queen", 3, seed=33)
    credential, moves = turn(b, game, game.view)
    b.apply(game.name, credential, moves[0])
    stored_before = replicas.redis.hgetall(keys.game(game_id(game.name)))
    refused, trips = counted(replicas.redis, a.apply, game.name, credential, moves[0])
    assert isinstance(refused, CroupierError), refused
    assert refused.code == grpc.StatusCode.FAILED_PRECONDITION
    assert trips == 1  # the write, answered with the current state
    assert replicas.redis.hgetall(keys.game(game_id(game.name))) == stored_before
    assert assert_replays(replicas.redis, game.name) == 1


def test_a_move_legal_on_both_states_is_decided_again_on_the_current_one(
    replicas: Replicas,
) -> None:
    """What's Your Name? seats choose their cards at the same time: seat 1's choice through A
    is legal on A's stale state and on the current one (after seat 0's through B)."""
    a, b = replicas.a, replicas.b
    game = create(a, "whats_your_name", 3, seed=34)
    first, second = game.seat_credentials[0], game.seat_credentials[1]
    b.apply(game.name, first, b.legal_moves(game.name, first)[0])
    move = b.legal_moves(game.name, second)[0]
    applied, trips = counted(replicas.redis, a.apply, game.name, second, move)
    assert isinstance(applied, pb.ApplyMoveResponse), applied
    assert applied.view.move_count == 2
    assert trips == 2  # the write refused as stale with the current state, the write
    assert assert_replays(replicas.redis, game.name) == 2


def test_a_retry_through_a_process_with_a_stale_state_returns_the_first_response(
    replicas: Replicas,
) -> None:
    """The request id's record is checked by the write itself: a retry decided on a state
    from before the first attempt is never applied again."""
    a, b = replicas.a, replicas.b
    game = create(a, "whats_your_name", 3, seed=35)
    credential = game.seat_credentials[0]
    move = b.legal_moves(game.name, credential)[0]
    request_id = str(uuid.uuid4())
    first = b.apply(game.name, credential, move, request_id=request_id)
    again, trips = counted(
        replicas.redis, a.apply, game.name, credential, move, request_id=request_id
    )
    assert again == first
    assert trips == 1  # the write, answered with the record
    assert b.get(game.name).move_count == 1
    assert assert_replays(replicas.redis, game.name) == 1


def test_a_retry_through_the_same_process_returns_the_first_response(
    replicas: Replicas,
) -> None:
    a = replicas.a
    game = create(a, "vampire_queen", 3, seed=36)
    credential, moves = turn(a, game, game.view)
    request_id = str(uuid.uuid4())
    first = a.apply(game.name, credential, moves[0], request_id=request_id)
    # On the remembered state the seat's turn has passed: the refusal is read again, with the
    # record, which gives the first response.
    again = a.apply(game.name, credential, moves[0], request_id=request_id)
    assert again == first
    assert len(moves) > 1  # the seed gives the seat a choice
    with pytest.raises(CroupierError) as caught:
        a.apply(game.name, credential, moves[-1], request_id=request_id)
    assert caught.value.reason == "REQUEST_ID_REUSED"
    assert a.get(game.name).move_count == 1


def test_etags_against_a_stale_state(replicas: Replicas) -> None:
    a, b = replicas.a, replicas.b
    game = create(a, "vampire_queen", 3, seed=37)
    credential, moves = turn(b, game, game.view)
    after_b = b.apply(game.name, credential, moves[0]).view
    credential, moves = turn(b, game, after_b)
    # The caller's etag is older than the game: ABORTED, with the game's current etag.
    with pytest.raises(CroupierError) as caught:
        a.apply(game.name, credential, moves[0], etag=game.etag)
    assert caught.value.reason == "ETAG_MISMATCH"
    assert caught.value.metadata["current_etag"] == after_b.etag
    # The caller's etag is newer than A's state: A reads the game, and the move applies.
    applied = a.apply(game.name, credential, moves[0], etag=after_b.etag)
    assert applied.view.move_count == 2


def test_a_game_gone_from_the_store_is_not_found_though_remembered(
    replicas: Replicas,
) -> None:
    a = replicas.a
    game = create(a, "vampire_queen", 3, seed=38)
    credential, moves = turn(a, game, game.view)
    replicas.redis.delete(keys.game(game_id(game.name)), keys.log(game_id(game.name)))
    with pytest.raises(CroupierError) as caught:
        a.apply(game.name, credential, moves[0])
    assert caught.value.code == grpc.StatusCode.NOT_FOUND


def test_a_process_that_remembers_no_state_reads_before_every_move(replicas: Replicas) -> None:
    game = create(replicas.uncached, "vampire_queen", 3, seed=39)
    assert round_trips_of_moves(replicas, replicas.uncached, game, 3) == [2] * 3


def remembered(replicas: Replicas) -> dict[str, float]:
    """Process A's counts of what ApplyMove found of the remembered state, by state."""
    text = urllib.request.urlopen(replicas.a_metrics, timeout=5).read().decode()
    found = re.findall(r'^croupier_remembered_states_total\{state="(\w+)"\} (\S+)$', text, re.M)
    return {state: float(count) for state, count in found}


def test_the_metrics_count_what_each_move_found(replicas: Replicas) -> None:
    a, b = replicas.a, replicas.b
    before = remembered(replicas)
    game = create(a, "vampire_queen", 3, seed=40)
    credential, moves = turn(a, game, game.view)
    view = a.apply(game.name, credential, moves[0]).view  # current
    credential, moves = turn(b, game, view)
    view = b.apply(game.name, credential, moves[0]).view
    with pytest.raises(CroupierError):
        a.apply(game.name, credential, moves[0])  # stale: the write refused, then refused
    credential, moves = turn(b, game, view)
    b.apply(game.name, credential, moves[0])
    credential, moves = turn(b, game, b.get(game.name))
    a.apply(game.name, credential, moves[0])  # rechecked: not this seat's turn on A's state
    elsewhere = create(b, "vampire_queen", 3, seed=41)
    credential, moves = turn(b, elsewhere, elsewhere.view)
    a.apply(elsewhere.name, credential, moves[0])  # none: A never saw that game
    after = remembered(replicas)
    assert {k: after.get(k, 0) - before.get(k, 0) for k in after} == {
        "current": 1,
        "stale": 1,
        "rechecked": 1,
        "none": 1,
    }


def test_recent_states_keep_the_latest_version_and_forget_the_oldest_games() -> None:
    states = RecentStates(size=2)

    def version(game: str) -> int | None:
        snapshot = states.get(game)
        return None if snapshot is None else snapshot.version

    states.put("g1", 3, b"three")
    states.put("g1", 2, b"two")  # a slower call's older read
    assert version("g1") == 3
    states.put("g2", 1, b"x")
    states.put("g1", 4, b"four")  # written again: now the most recent
    states.put("g3", 1, b"y")
    assert (version("g1"), version("g2"), version("g3")) == (4, None, 1)
    states.forget("g1")
    assert version("g1") is None and len(states) == 1
    nothing = RecentStates(size=0)
    nothing.put("g1", 1, b"x")
    assert nothing.get("g1") is None
