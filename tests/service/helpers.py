"""Playing through the API and checking the store, for the service tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import grpc
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from croupier.bots import RandomBot
from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.application.games import state_of
from croupier.service.store import keys
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.storage_pb2 import LoggedMove, StoredGame


def game_id(name: str) -> str:
    return name.removeprefix("games/")


def raw(redis_client: redis.Redis, name: str) -> tuple[bytes | None, bytes | None]:
    """The stored version and state bytes, as Redis holds them."""
    version, data = redis_client.hmget(keys.game(game_id(name)), "v", "s")
    return cast(bytes | None, version), cast(bytes | None, data)


def stored(redis_client: redis.Redis, name: str) -> tuple[int, StoredGame]:
    version, data = raw(redis_client, name)
    assert version is not None, f"{name} is not in Redis"
    assert data is not None
    return int(version), StoredGame.FromString(data)


# The game and its move log from `ARGV[1]` on, in one step: a game that is still moving (a
# replica's timeouts, say) never shows a state and a log of different versions.
_GAME_AND_LOG = """
local game = redis.call('HMGET', KEYS[1], 'v', 's')
return {game[1], game[2], redis.call('LRANGE', KEYS[2], ARGV[1], -1)}
"""


def stored_with_log(
    redis_client: redis.Redis, name: str, start: int = 0
) -> tuple[int, StoredGame, list[LoggedMove]]:
    """The stored version and state, and the logged moves from the `start`-th on, as one
    moment of Redis saw them."""
    gid = game_id(name)
    version, data, entries = cast(
        list[object], redis_client.eval(_GAME_AND_LOG, 2, keys.game(gid), keys.log(gid), start)
    )
    assert isinstance(version, bytes) and isinstance(data, bytes), f"{name} is not in Redis"
    logged = [LoggedMove.FromString(e) for e in cast(list[bytes], entries)]
    return int(version), StoredGame.FromString(data), logged


class StoredReplay:
    """The stored move log replayed from the seed, checked against the stored state byte for
    byte; kept between checks, so that checking after every move of a game applies only the
    entries logged since the last check instead of replaying the whole log each time."""

    def __init__(self, redis_client: redis.Redis, name: str) -> None:
        self.redis_client = redis_client
        self.name = name
        _, game = stored(redis_client, name)
        self.engine = GAMES[game.game_type]
        self.state = self.engine.replay(self.engine.setup_of(state_of(game)), [])
        self.replayed = 0

    def check(self) -> None:
        version, game, new = stored_with_log(self.redis_client, self.name, self.replayed)
        for entry in new:
            self.engine.apply(self.state, entry.seat, getattr(entry.move, game.game_type))
        self.replayed += len(new)
        replayed = self.state.SerializeToString(deterministic=True)
        assert replayed == state_of(game).SerializeToString(deterministic=True)
        assert self.replayed == game.move_count == version - 1


def assert_replays(redis_client: redis.Redis, name: str) -> int:
    """Replaying the stored move log from the seed gives the stored state byte for byte.
    Returns the number of logged moves."""
    replay = StoredReplay(redis_client, name)
    replay.check()
    return replay.replayed


def create(croupier: Croupier, game: str, seats: int, seed: int) -> pb.CreateGameResponse:
    return croupier.create(options_for(game), seats, seed=seed)


def play_to_end(
    clients: list[Croupier],
    created: pb.CreateGameResponse,
    seed: int,
    max_moves: int = 20_000,
    after_move: Callable[[], object] = lambda: None,
) -> tuple[pb.GameView, int]:
    """Random legal play to the end, each move through the next client in turn (and
    `after_move` called after each)."""
    bot = RandomBot(seed)
    credentials = list(created.seat_credentials)
    view = created.view
    moves = 0
    while not view.HasField("result"):
        assert moves < max_moves
        croupier = clients[moves % len(clients)]
        seat = bot.choose(list(view.active_seats))
        move = bot.choose(croupier.legal_moves(created.name, credentials[seat]))
        response = croupier.apply(created.name, credentials[seat], move)
        moves += 1
        after_move()
        view = clients[moves % len(clients)].get(created.name)
        assert view.etag == response.etag
    return view, moves


def finish(
    clients: list[Croupier], name: str, credentials: list[str], seed: int
) -> tuple[pb.GameView, int]:
    """Random legal play to the end through the clients in turn, reading as seat 0 (a seat's
    reads are limited per credential, not per address)."""
    bot = RandomBot(seed)
    view = clients[0].get(name, credentials[0])
    moves = 0
    while not view.HasField("result"):
        assert moves < 20_000
        croupier = clients[moves % len(clients)]
        seat = bot.choose(list(view.active_seats))
        move = bot.choose(croupier.legal_moves(name, credentials[seat]))
        croupier.apply(name, credentials[seat], move)
        moves += 1
        view = clients[moves % len(clients)].get(name, credentials[0])
    return view, moves


def status_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, float | None]:
    """The code, the ErrorInfo reason and the RetryInfo delay (seconds) of a refused call."""
    reason, delay = "", None
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            delay = retry.retry_delay.ToMilliseconds() / 1000
    return error.code(), reason, delay
