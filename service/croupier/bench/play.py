"""The game-play workload: bots play complete games through the API, each move being one
ListLegalMoves and one ApplyMove of a listed move (GetGame once a game is over, CreateGame for
the next one), so its figures mix the costs of those calls."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from croupier.bench.load import Load
from croupier.v1 import game_service_pb2 as pb

RPCS = ("apply_move", "list_legal_moves", "get_game", "create_game")


@dataclass
class Table:
    """A game in the pool: created on first use, dropped when over or after an error."""

    game: str
    name: str = ""
    metadata: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    active: list[int] = field(default_factory=list)

    def reset(self) -> None:
        self.name, self.metadata, self.active = "", [], []


class GamePlay:
    """Workers take an idle game of the next game type from the pool (or an empty table, which
    a CreateGame fills), so a game is used by one worker at a time."""

    def __init__(self, load: Load) -> None:
        self.load = load
        self.idle: dict[str, list[Table]] = {game: [] for game in load.phase.games}
        self.moves = 0

    async def worker(self, number: int) -> None:
        load = self.load
        stub = load.games[number % len(load.games)]
        chooser = random.Random(f"{load.spec.seed}/{load.spec.index}/{number}")
        games = load.phase.games
        turn = number
        while load.running():
            game = games[turn % len(games)]
            turn += 1
            idle = self.idle[game]
            table = idle.pop() if idle else Table(game)
            try:
                await self.step(stub, table, chooser)
            finally:
                idle.append(table)

    async def step(self, stub: Any, table: Table, chooser: random.Random) -> None:
        """One move of a game (creating the game first when the table is empty)."""
        load, game = self.load, table.game
        if not table.name:
            create = pb.CreateGameRequest(
                seats=load.spec.seats.get(game, 4), seed=chooser.getrandbits(63)
            )
            getattr(create, game).SetInParent()
            created = await load.call("create_game", stub.CreateGame, create, (), game)
            if created is None:
                return
            table.name = created.name
            table.metadata = [
                (("authorization", f"Bearer {credential}"),)
                for credential in created.seat_credentials
            ]
            table.active = list(created.view.active_seats)
        if not table.active:
            load.fail("apply_move", game, "no active seat in a game that is not over")
            table.reset()
            return
        metadata = table.metadata[chooser.choice(table.active)]
        listed = await load.call(
            "list_legal_moves",
            stub.ListLegalMoves,
            pb.ListLegalMovesRequest(name=table.name),
            metadata,
            game,
        )
        if listed is None or not listed.moves:
            if listed is not None:
                load.fail("list_legal_moves", game, "no legal move for an active seat")
            table.reset()
            return
        self.moves += 1
        request = pb.ApplyMoveRequest(
            name=table.name,
            move=chooser.choice(listed.moves),
            request_id=str(uuid.uuid4()),
        )
        applied = await load.call("apply_move", stub.ApplyMove, request, metadata, game)
        if applied is None:
            table.reset()
            return
        view = applied.view
        if view.HasField("result"):
            await load.call("get_game", stub.GetGame, pb.GetGameRequest(name=table.name), (), game)
            load.sample.finished[game] += 1
            table.reset()
        else:
            table.active = list(view.active_seats)
