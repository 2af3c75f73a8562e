"""Racing moves through two server processes, and request-id retries."""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.errors import CroupierError
from tests.service.helpers import assert_replays, create


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at the same moment in threads; each result or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except CroupierError as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.parametrize("with_etag", [False, True])
def test_same_move_from_two_processes_applies_once(
    client: Croupier, client_b: Croupier, redis_client: redis.Redis, with_etag: bool
) -> None:
    """The same seat sends the same move to two server processes at once, 25 times over:
    exactly one applies each time; with an etag the loser gets ABORTED."""
    game = create(client, "vampire_queen", 4, seed=21)
    applied = 0
    for _ in range(25):
        view = client.get(game.name)
        if view.HasField("result"):
            break
        seat = view.active_seats[0]
        credential = game.seat_credentials[seat]
        move = client.legal_moves(game.name, credential)[0]
        etag = view.etag if with_etag else ""
        outcomes = race(
            functools.partial(client.apply, game.name, credential, move, etag=etag),
            functools.partial(client_b.apply, game.name, credential, move, etag=etag),
        )
        wins = [o for o in outcomes if not isinstance(o, CroupierError)]
        losses = [o for o in outcomes if isinstance(o, CroupierError)]
        applied += len(wins)
        if len(wins) == 1:
            (loss,) = losses
            expected = {grpc.StatusCode.ABORTED} if with_etag else {
                grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED
            }  # fmt: skip
            assert loss.code in expected, loss
        else:
            # Both may legally apply only if the move is still legal for the seat afterwards
            # (never in Vampire Queen: the turn passes), so this must not happen.
            pytest.fail(f"{len(wins)} of 2 racing moves applied: {outcomes}")
    assert assert_replays(redis_client, game.name) == applied


def test_retried_request_id_applies_once_across_processes(
    client: Croupier, client_b: Croupier, redis_client: redis.Redis
) -> None:
    game = create(client, "vampire_queen", 3, seed=8)
    seat = game.view.active_seats[0]
    credential = game.seat_credentials[seat]
    move = client.legal_moves(game.name, credential)[0]
    request_id = str(uuid.uuid4())
    first = client.apply(game.name, credential, move, request_id=request_id)
    again = client_b.apply(game.name, credential, move, request_id=request_id)
    assert again == first
    assert client.get(game.name).move_count == 1
    assert assert_replays(redis_client, game.name) == 1


def test_racing_retries_apply_once(client: Croupier, client_b: Croupier) -> None:
    game = create(client, "vampire_queen", 3, seed=9)
    seat = game.view.active_seats[0]
    credential = game.seat_credentials[seat]
    move = client.legal_moves(game.name, credential)[0]
    request_id = str(uuid.uuid4())
    outcomes = race(
        lambda: client.apply(game.name, credential, move, request_id=request_id),
        lambda: client_b.apply(game.name, credential, move, request_id=request_id),
        lambda: client.apply(game.name, credential, move, request_id=request_id),
    )
    assert all(not isinstance(o, CroupierError) for o in outcomes), outcomes
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert client.get(game.name).move_count == 1


def test_request_id_reused_for_another_move_is_refused(client: Croupier) -> None:
    game = create(client, "vampire_queen", 3, seed=10)
    seat = game.view.active_seats[0]
    credential = game.seat_credentials[seat]
    moves = client.legal_moves(game.name, credential)
    request_id = str(uuid.uuid4())
    client.apply(game.name, credential, moves[0], request_id=request_id)
    with pytest.raises(CroupierError) as caught:
        client.apply(game.name, credential, moves[1], request_id=request_id)
    assert (caught.value.code, caught.value.reason) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
    )
    assert client.get(game.name).move_count == 1


def test_create_retry_with_request_id_returns_the_same_game(client: Croupier) -> None:
    from croupier.v1.vampire_queen_pb2 import VampireQueenOptions

    request_id = str(uuid.uuid4())
    first = client.create(VampireQueenOptions(), 3, seed=1, request_id=request_id)
    again = client.create(VampireQueenOptions(), 3, seed=1, request_id=request_id)
    assert again.name == first.name
    with pytest.raises(CroupierError) as caught:
        client.create(VampireQueenOptions(), 4, seed=1, request_id=request_id)
    assert caught.value.reason == "REQUEST_ID_REUSED"


def test_simultaneous_secret_plays_through_two_processes_all_succeed(
    client: Croupier, client_b: Croupier, redis_client: redis.Redis
) -> None:
    """What's Your Name?: every seat plays its secret card at the same moment through
    different server processes; none is refused as stale, none is revealed early, and a seat
    may not change its card."""
    from croupier.v1.whats_your_name_pb2 import WhatsYourNameMove

    game = create(client, "whats_your_name", 4, seed=17)
    credentials = game.seat_credentials
    assert sorted(client.get(game.name).active_seats) == [0, 1, 2, 3]
    plays = [client.legal_moves(game.name, credentials[seat])[0] for seat in range(4)]
    clients = [client, client_b, client, client_b]
    outcomes = race(
        *(
            functools.partial(clients[seat].apply, game.name, credentials[seat], plays[seat])
            for seat in range(4)
        )
    )
    assert all(not isinstance(o, CroupierError) for o in outcomes), outcomes
    assert assert_replays(redis_client, game.name) == 4

    # The next round: three seats play; nobody sees another's card before the fourth is in.
    view = client.get(game.name)
    while sorted(view.active_seats) != [0, 1, 2, 3]:  # finish drafting
        seat = view.active_seats[0]
        client.apply(
            game.name, credentials[seat], client.legal_moves(game.name, credentials[seat])[0]
        )
        view = client.get(game.name)
    for seat in range(3):
        move = client.legal_moves(game.name, credentials[seat])[0]
        client_b.apply(game.name, credentials[seat], move)
        changed = WhatsYourNameMove()
        changed.CopyFrom(move.whats_your_name)
        with pytest.raises(CroupierError) as caught:
            client.apply(game.name, credentials[seat], changed)
        assert caught.value.rule_id == "WN-3.1"
    for viewer in [None, 0, 1, 2, 3]:
        seen = client.get(game.name, credentials[viewer] if viewer is not None else None)
        wyn = seen.whats_your_name
        assert all(not p.HasField("played") for p in wyn.players)
        assert wyn.HasField("chosen_card") == (viewer in (0, 1, 2))
        assert [p.has_chosen for p in wyn.players] == [True, True, True, False]
