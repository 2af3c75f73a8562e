"""Bot seats: seats the service plays itself, from their own view, each move its own
write. Real server processes on a single Redis and on a three-master cluster."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import cast

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.application.bots import BOT_SEAT_HASH
from croupier.service.store import keys
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import LoggedMove
from tests.service.helpers import assert_replays, game_id, stored

OPERATOR_KEY = "op-bots-key"
SEATS = {"whats_your_name": 3, "one_card": 3, "pig_mau_mau": 3, "vampire_queen": 3, "trinity": 3}


@pytest.fixture(scope="module")
def operator(store_url: str) -> Iterator[Croupier]:
    """A server with an operator key, and a client that sends it."""
    with (
        LocalServer(store_url, env={"CROUPIER_OPERATOR_KEY": OPERATOR_KEY}) as server,
        Croupier(server.target, operator_key=OPERATOR_KEY) as croupier,
    ):
        yield croupier


def wait_for_turn(
    croupier: Croupier, name: str, credential: str, seat: int, timeout: float = 30.0
) -> pb.GameView:
    """The seat's view once it may act or the game is over (the bots play in between)."""
    limit = time.monotonic() + timeout
    while True:
        view = croupier.get(name, credential)
        if view.HasField("result") or seat in view.active_seats:
            return view
        assert time.monotonic() < limit, f"the bots did not play on: {view}"
        time.sleep(0.005)


def logged(redis_client: redis.Redis, name: str) -> list[LoggedMove]:
    entries = cast(list[bytes], redis_client.lrange(keys.log(game_id(name)), 0, -1))
    return [LoggedMove.FromString(e) for e in entries]


def games_indexed(redis_client: redis.Redis) -> int:
    counts: list[int] = [redis_client.zcard(keys.games_index(b)) for b in range(keys.INDEX_BUCKETS)]
    return sum(counts)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_human_plays_a_whole_game_against_bots(
    client: Croupier, client_b: Croupier, redis_client: redis.Redis, game: str
) -> None:
    """Seat 1 is the human (the bots at seats 0 and 2 open and close each round); every move
    of the bot seats is the service's, logged as a move of that seat, and the log replays."""
    seats = SEATS[game]
    levels = ["strong", "", "random"]
    created = client.create(options_for(game), seats, seed=19, bot_levels=levels)
    assert list(created.seat_credentials) == ["", created.seat_credentials[1], ""]
    assert created.seat_credentials[1].startswith("cs_")
    assert list(created.view.bot_levels) == levels
    credential = created.seat_credentials[1]
    rng = random.Random(19)
    human_moves = 0
    clients = [client, client_b]
    while True:
        view = wait_for_turn(clients[human_moves % 2], created.name, credential, 1)
        if view.HasField("result"):
            break
        assert view.viewer_seat == 1 and list(view.bot_levels) == levels
        moves = client.legal_moves(created.name, credential)
        if not moves:  # active for an instant (a bot's move ends the chance): read again
            continue
        try:
            clients[human_moves % 2].apply(created.name, credential, rng.choice(moves))
        except CroupierError as error:
            # A bot's move landed between the read and the write (a simultaneous decision).
            if error.reason not in ("ILLEGAL_MOVE", "ETAG_MISMATCH"):
                raise
            continue
        human_moves += 1
        assert human_moves < 5_000
    entries = logged(redis_client, created.name)
    seats_moved = {e.seat for e in entries}
    assert 1 in seats_moved and seats_moved & {0, 2}
    assert sum(1 for e in entries if e.seat == 1) == human_moves
    assert_replays(redis_client, created.name)
    _, game_stored = stored(redis_client, created.name)
    assert list(game_stored.bot_levels) == levels
    assert game_stored.credential_hashes[0] == BOT_SEAT_HASH
    assert game_stored.credential_hashes[2] == BOT_SEAT_HASH


def test_a_bot_seat_plays_at_once_after_create(client: Croupier) -> None:
    """A bot at the seat that leads has played before the human's turn comes."""
    engine = GAMES["one_card"]
    state, _ = engine.new_game(engine.options_type(), 2, 5)
    leader = engine.active_seats(state)[0]
    levels = ["random" if seat == leader else "" for seat in range(2)]
    created = client.create(options_for("one_card"), 2, seed=5, bot_levels=levels)
    human = 1 - leader
    view = wait_for_turn(client, created.name, created.seat_credentials[human], human, timeout=10)
    assert view.move_count >= 1


def test_the_watch_stream_sends_one_update_per_bot_move(
    client: Croupier, server_a: LocalServer
) -> None:
    created = client.create(options_for("one_card"), 2, seed=6, bot_levels=["", "strong"])
    name, credential = created.name, created.seat_credentials[0]
    rng = random.Random(6)
    with Croupier(server_a.target, timeout=30) as reader:
        stream = reader.watch(name, credential)
        view = next(stream).view
        etag = int(view.etag)
        updates = 0
        while not view.HasField("result") and updates < 40:
            if 0 in view.active_seats and int(view.etag) == int(client.get(name).etag):
                client.apply(name, credential, rng.choice(client.legal_moves(name, credential)))
            view = next(stream).view
            # Every write is its own update, in order, none skipped.
            assert int(view.etag) == etag + 1
            etag += 1
            updates += 1
        assert updates > 4
        stream.close()


def test_the_operator_runs_a_simulation_of_bots_only(
    operator: Croupier, redis_client: redis.Redis
) -> None:
    created = operator.create(
        options_for("pig_mau_mau"), 3, seed=7, bot_levels=["strong", "random", "random"]
    )
    assert list(created.seat_credentials) == ["", "", ""]
    limit = time.monotonic() + 60
    view = created.view
    while not view.HasField("result"):
        assert time.monotonic() < limit
        time.sleep(0.05)
        view = operator.get(created.name)
    assert assert_replays(redis_client, created.name) == view.move_count > 0


@pytest.mark.parametrize(
    ("levels", "reason", "code"),
    [
        (["strong", ""], None, None),  # the control: a valid request
        (["", "expert", ""], "INVALID_BOT_LEVEL", grpc.StatusCode.INVALID_ARGUMENT),
        (["strong"], "INVALID_BOT_LEVEL", grpc.StatusCode.INVALID_ARGUMENT),
        (["", "Strong"], "INVALID_BOT_LEVEL", grpc.StatusCode.INVALID_ARGUMENT),
        (["", "\x00\ud7ff" * 40], "INVALID_BOT_LEVEL", grpc.StatusCode.INVALID_ARGUMENT),
        (["random", "strong"], "ALL_SEATS_BOTS", grpc.StatusCode.PERMISSION_DENIED),
    ],
)
def test_bad_bot_seats_are_refused_and_create_nothing(
    client: Croupier,
    redis_client: redis.Redis,
    levels: list[str],
    reason: str | None,
    code: grpc.StatusCode | None,
) -> None:
    seats = 3 if len(levels) == 3 else 2
    before = games_indexed(redis_client)
    if reason is None:
        client.create(options_for("one_card"), seats, bot_levels=levels[:seats])
        assert games_indexed(redis_client) == before + 1
        return
    with pytest.raises(CroupierError) as raised:
        client.create(options_for("one_card"), seats, bot_levels=levels)
    assert raised.value.reason == reason and raised.value.code == code
    assert games_indexed(redis_client) == before


def test_a_bot_seat_has_no_player_id_and_no_rematch_change(client: Croupier) -> None:
    with pytest.raises(CroupierError) as raised:
        client.create(
            options_for("one_card"), 2, bot_levels=["strong", ""], player_ids=["alice", ""]
        )
    assert raised.value.reason == "INVALID_BOT_LEVEL"
    with pytest.raises(CroupierError) as raised:
        client._call(  # a request the client never sends
            "CreateGame",
            pb.CreateGameRequest(rematch_of="games/" + "0" * 24, bot_levels=["strong", ""]),
            None,
        )
    assert raised.value.reason == "INVALID_REMATCH"


def test_a_bot_seat_is_never_open_nor_reissued(
    operator: Croupier, redis_client: redis.Redis
) -> None:
    created = operator.create(
        options_for("one_card"), 3, bot_levels=["", "strong", ""], open_seats=True
    )
    assert list(created.view.open_seats) == [0, 2]
    assert list(created.seat_credentials) == ["", "", ""]
    with pytest.raises(CroupierError) as raised:
        operator.reissue(created.name, 1)
    assert raised.value.reason == "BOT_SEAT"
    joined = [operator.join(created.name, created.join_code) for _ in range(2)]
    assert sorted(j.seat for j in joined) == [0, 2]
    with pytest.raises(CroupierError) as raised:
        operator.join(created.name, created.join_code)
    assert raised.value.reason == "GAME_FULL"
    # Once full, the game runs: the bot plays its turn when it comes.
    credentials = {j.seat: j.seat_credential for j in joined}
    rng = random.Random(1)
    limit = time.monotonic() + 30
    while not any(e.seat == 1 for e in logged(redis_client, created.name)):
        assert time.monotonic() < limit
        view = operator.get(created.name)
        assert view.status == pb.GameStatus.GAME_STATUS_ACTIVE
        humans = [s for s in view.active_seats if s in credentials]
        if humans:
            moves = operator.legal_moves(created.name, credentials[humans[0]])
            operator.apply(created.name, credentials[humans[0]], rng.choice(moves))
        else:
            time.sleep(0.01)


def test_a_rematch_keeps_the_bot_seats(operator: Croupier) -> None:
    created = operator.create(
        options_for("whats_your_name"), 2, seed=3, bot_levels=["strong", "strong"]
    )
    view = created.view
    limit = time.monotonic() + 60
    while not view.HasField("result"):
        assert time.monotonic() < limit
        time.sleep(0.05)
        view = operator.get(created.name)
    again = operator.rematch(created.name)
    assert list(again.view.bot_levels) == ["strong", "strong"]
    limit = time.monotonic() + 60
    view = again.view
    while not view.HasField("result"):
        assert time.monotonic() < limit
        time.sleep(0.05)
        view = operator.get(again.name)


def test_a_stranded_bot_seat_is_played_by_the_next_read_on_any_replica(
    client: Croupier, client_b: Croupier, redis_client: redis.Redis
) -> None:
    """The process that made a bot seat active may die before playing it: the game then holds
    a bot seat due and nothing running. The next read of the game by any replica plays it
    (here the bot seat is made by hand in the store, as such a process leaves it)."""
    created = client.create(options_for("one_card"), 2, seed=11)
    name = created.name
    credentials = list(created.seat_credentials)
    view = client.get(name, credentials[0])
    seat = view.active_seats[0]
    client.apply(name, credentials[seat], client.legal_moves(name, credentials[seat])[0])
    other = 1 - seat
    version, game = stored(redis_client, name)
    assert other in client.get(name).active_seats
    del game.bot_levels[:]
    game.bot_levels.extend(["random" if s == other else "" for s in range(2)])
    game.credential_hashes[other] = BOT_SEAT_HASH
    redis_client.hset(keys.game(game_id(name)), "s", game.SerializeToString())
    # Nothing plays it until a read: then it is played once.
    time.sleep(0.3)
    assert stored(redis_client, name)[0] == version
    client_b.get(name)
    view = wait_for_turn(client_b, name, credentials[seat], seat, timeout=10)
    assert view.move_count >= 2
    assert_replays(redis_client, name)
