"""ApplyMove on its own: complete games are first played with the bots and recorded (options,
seed, every (seat, move)); then fresh games are created with the same seeds and options (the
same deal, the same legal moves) and only their recorded moves are sent with ApplyMove, each
validated, applied and stored by the server as any other move."""

from __future__ import annotations

import random
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from croupier.bench.load import Load
from croupier.bench.spec import Recorded
from croupier.bots import RandomBot
from croupier.v1 import game_service_pb2 as pb

MAX_GAME_MOVES = 50_000
RECORDED_GAMES = 8  # per game type; workers cycle through them (each replay is a new game)
MIN_REPLAY_GAMES = 8  # games in play at once, even at --concurrency 1 (see lanes_per_game)


def record_games(
    games: list[str], seats: dict[str, int], seed: int, count: int = RECORDED_GAMES
) -> dict[str, tuple[Recorded, ...]]:
    """`count` complete games of each type, played with random bots by the engines in this
    process (the server runs the same engines: a replay that diverges is an error)."""
    from croupier.engines.registry import GAMES

    chooser = random.Random(f"replay/{seed}")
    recorded: dict[str, tuple[Recorded, ...]] = {}
    for game in games:
        engine = GAMES[game]
        out = []
        for _ in range(count):
            create = pb.CreateGameRequest(seats=seats.get(game, 4), seed=chooser.getrandbits(63))
            getattr(create, game).SetInParent()
            bot = RandomBot(chooser.getrandbits(63))
            state, _ = engine.new_game(getattr(create, game), create.seats, create.seed)
            moves: list[tuple[int, bytes]] = []
            while engine.result(state) is None:
                if len(moves) >= MAX_GAME_MOVES:
                    raise RuntimeError(f"a {game} game did not end after {MAX_GAME_MOVES} moves")
                seat = bot.choose(engine.active_seats(state))
                move = bot.choose(engine.legal_moves(state, seat))
                wrapped = pb.Move()
                getattr(wrapped, game).CopyFrom(move)
                moves.append((seat, wrapped.SerializeToString()))
                engine.apply(state, seat, move)
            out.append(Recorded(game, create.SerializeToString(), tuple(moves)))
        recorded[game] = tuple(out)
    return recorded


def request_id(position: int) -> str:
    """The request id of a game's move: a UUID (as the server requires), unique within the game
    (the server keys its records by game and seat), so stored records are as large as a real
    client's."""
    return str(uuid.UUID(int=position))


def lanes_per_game(concurrency: int, game_types: int) -> int:
    """Games of each type in play at once: enough for every worker, and MIN_REPLAY_GAMES in
    all even at --concurrency 1, so that calls spread over several games and credentials (the
    server's rate limit is per credential)."""
    return max(-(-concurrency // game_types), -(-MIN_REPLAY_GAMES // game_types))


@dataclass
class _Game:
    create: pb.CreateGameRequest
    moves: list[tuple[int, pb.Move]]


@dataclass
class Lane:
    """One game after another of one type, replayed move by move."""

    game: str
    next_game: int
    name: str = ""
    metadata: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    moves: list[tuple[int, pb.Move]] = field(default_factory=list)
    position: int = 0


class Replay:
    """Each worker, one call at a time, takes the next game type in turn (so that calls are
    spread evenly over the types, as in game play) and the game of that type that has waited
    longest: a CreateGame when that lane has no game, else its next recorded ApplyMove."""

    def __init__(self, load: Load) -> None:
        self.load = load
        self.recorded = {
            game: [
                _Game(
                    pb.CreateGameRequest.FromString(r.create),
                    [(seat, pb.Move.FromString(move)) for seat, move in r.moves],
                )
                for r in load.spec.recorded[game]
            ]
            for game in load.phase.games
        }
        if load.spec.clock_seconds:
            # Long enough that no deadline passes: every move sets and clears deadlines, and
            # the service never acts for a seat (which would end the replay).
            for games in self.recorded.values():
                for recorded in games:
                    recorded.create.clock.seconds_per_decision = load.spec.clock_seconds
        lanes = lanes_per_game(load.spec.concurrency, len(load.phase.games))
        self.idle = {
            game: deque(Lane(game, load.spec.index * 7 + k) for k in range(lanes))
            for game in load.phase.games
        }

    async def worker(self, number: int) -> None:
        load = self.load
        stub = load.games[number % len(load.games)]
        games = load.phase.games
        turn = number
        while load.running():
            game = games[turn % len(games)]
            turn += 1
            idle = self.idle[game]
            lane = idle.popleft() if idle else Lane(game, turn)
            try:
                await self.step(stub, lane)
            finally:
                idle.append(lane)

    async def step(self, stub: Any, lane: Lane) -> None:
        load, game = self.load, lane.game
        if not lane.name:
            recorded = self.recorded[game]
            chosen = recorded[lane.next_game % len(recorded)]
            lane.next_game += 1
            created = await load.call("create_game", stub.CreateGame, chosen.create, (), game)
            if created is None:
                return
            lane.name, lane.moves, lane.position = created.name, chosen.moves, 0
            lane.metadata = [
                (("authorization", f"Bearer {credential}"),)
                for credential in created.seat_credentials
            ]
            return
        seat, move = lane.moves[lane.position]
        lane.position += 1
        request = pb.ApplyMoveRequest(
            name=lane.name, move=move, request_id=request_id(lane.position - 1)
        )
        applied = await load.call("apply_move", stub.ApplyMove, request, lane.metadata[seat], game)
        last = lane.position == len(lane.moves)
        if applied is None:
            lane.name = ""
        elif applied.view.HasField("result") != last:
            load.fail("apply_move", game, "replay diverged from the recorded game")
            lane.name = ""
        elif last:
            load.sample.finished[game] += 1
            load.sample.keep_name(game, lane.name)
            lane.name = ""
