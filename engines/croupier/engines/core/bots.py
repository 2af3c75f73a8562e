"""Bot players on the engine layer: one `Bot` per seat, deciding from that seat's view alone.

A bot is given exactly what a player at that seat may know: the game's own View message for the
seat (`engine.view(state, seat)`, C-4) and the seat's legal moves (`engine.legal_moves(state,
seat)`), plus a seeded `random.Random`. It never receives the state, so it cannot read another
seat's hand, a face-down pile or the generator: the information barrier is the signature.

Levels: `random` (uniform among the legal moves) and `strong` (each game's own player, in
`engines/croupier/engines/<game>/bot.py`). `bot_for(game_type, level)` gives one;
`decision_rng(seed, move_count, seat)` is the generator the service and the bench hand to a
decision, derived from the game's seed and the number of moves applied so far, so a game with bot
seats replays exactly from its seed and move log.

`play_game` is the engine-only driver used by the bench and the tests.
"""

from __future__ import annotations

import hashlib
import importlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from google.protobuf.message import Message

from croupier.v1.common_pb2 import GameResult

LEVELS: Final = ("random", "strong")

# A safety net for the driver only: every game ends far sooner under any play (docs/games).
MAX_MOVES: Final = 50_000


class Bot(Protocol):
    """A player: picks one of `legal_moves` (never empty) of `seat` from that seat's `view`.

    `seat` is the seat deciding (views do not all name their viewer); a bot object keeps no
    state between calls, so one object may play several seats and games.
    """

    def choose(
        self, seat: int, view: Any, legal_moves: Sequence[Any], rng: random.Random
    ) -> Any: ...


class RandomBot:
    """Uniformly random legal play: the baseline the strong bots are measured against."""

    def choose(self, seat: int, view: Any, legal_moves: Sequence[Any], rng: random.Random) -> Any:
        if not legal_moves:
            raise ValueError("nothing to choose from")
        return legal_moves[rng.randrange(len(legal_moves))]


class ScoringBot:
    """A bot that scores every legal move and plays the best, ties broken by the generator.

    Subclasses implement `score(seat, view, move)`; the strong players of the shedding games are
    one-ply heuristics of this shape, which keeps every decision far under a millisecond.
    """

    def score(self, seat: int, view: Any, move: Any) -> float:
        raise NotImplementedError

    def choose(self, seat: int, view: Any, legal_moves: Sequence[Any], rng: random.Random) -> Any:
        if not legal_moves:
            raise ValueError("nothing to choose from")
        best: list[Any] = []
        best_score = float("-inf")
        for move in legal_moves:
            value = self.score(seat, view, move)
            if value > best_score:
                best, best_score = [move], value
            elif value == best_score:
                best.append(move)
        return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def bot_for(game_type: str, level: str) -> Bot:
    """The bot of `level` for `game_type`; KeyError for an unknown game or level."""
    from croupier.engines.registry import GAMES

    if game_type not in GAMES:
        raise KeyError(f"no game {game_type!r}")
    if level == "random":
        return RandomBot()
    if level == "strong":
        # Imported on demand so that a game's engine never depends on its bot.
        module = importlib.import_module(f"croupier.engines.{game_type}.bot")
        strong: Bot = module.StrongBot()
        return strong
    raise KeyError(f"no bot level {level!r} (levels: {', '.join(LEVELS)})")


def decision_rng(seed: int, move_count: int, seat: int) -> random.Random:
    """The generator for the decision of `seat` after `move_count` moves of the game `seed`.

    A hash of the three, so decisions are reproducible from the game's record and independent
    of each other (and of the engine's own generator, whose position the bot must not see).
    """
    digest = hashlib.blake2b(f"{seed}:{move_count}:{seat}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


@dataclass(slots=True)
class PlayedGame:
    """A finished engine-only game: its result, moves and each timed decision's wall-clock and
    CPU (this thread's) time in seconds. The CPU time leaves out the waits of a busy machine,
    whose preemptions (a few ms each) make the wall-clock tail."""

    result: GameResult
    moves: int
    decision_seconds: list[float] = field(default_factory=list)
    decision_cpu_seconds: list[float] = field(default_factory=list)


def play_game(
    engine: Any,
    bots: Sequence[Bot],
    seed: int,
    options: Message | None = None,
    timed: Callable[[int], bool] | None = None,
) -> PlayedGame:
    """Play one game with the engine alone, seat i played by `bots[i]`.

    Several seats may be active at once (secret simultaneous plays, out-of-turn catches): each
    active seat then acts in turn, in seat order rotated by the move count so that no seat is
    always first, and the legal moves of each are read again after every move applied (a move
    may end another seat's chance to act). `timed(seat)` says which seats' decisions to time
    (view, legal moves and choice, as the service would do them); default all.
    """
    state, _ = engine.new_game(
        engine.options_type() if options is None else options, len(bots), seed
    )
    played = PlayedGame(result=GameResult(), moves=0)
    clock, cpu_clock = time.perf_counter, time.thread_time
    while True:
        active = engine.active_seats(state)
        if not active:
            break
        shift = played.moves % len(active)
        for seat in active[shift:] + active[:shift]:
            if engine.result(state) is not None:
                break
            timing = timed is None or timed(seat)
            started, cpu_started = clock(), cpu_clock()
            legal = engine.legal_moves(state, seat)
            if not legal:
                continue
            view = engine.view(state, seat)
            move = bots[seat].choose(seat, view, legal, decision_rng(seed, played.moves, seat))
            if timing:
                played.decision_seconds.append(clock() - started)
                played.decision_cpu_seconds.append(cpu_clock() - cpu_started)
            engine.apply(state, seat, move)
            played.moves += 1
            if played.moves > MAX_MOVES:
                raise RuntimeError(f"a game did not end after {MAX_MOVES} moves (seed {seed})")
    result = engine.result(state)
    if result is None:
        raise RuntimeError(f"no seat may act but the game is not over (seed {seed})")
    played.result = result
    return played
