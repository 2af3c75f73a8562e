"""The listing is the check, for every game: at random positions, for every seat, `apply` accepts
exactly the moves `legal_moves` lists, out of every move message the seat could send (each
game's tests/engines/<game_type>/generic.py; see tests/engines/move_space.py), and a refused
move leaves the state's bytes unchanged.

Positions come from random legal play over several seat counts, option sets and seeds. The
default run samples a few dozen positions per game; `--run-slow` walks many more and pairs
One Card's cards over the whole deck.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.engines.registry import GAMES, AnyEngine
from tests.engines.helpers import encode, generic_of
from tests.engines.move_space import Sweep, canonical


def quick(game_id: str) -> Sweep:
    """The default sweep: the game's own size (generic.SWEEP), a few seconds per game."""
    sweep: Sweep = generic_of(game_id).SWEEP
    return sweep


def slow(game_id: str) -> Sweep:
    """The long sweep (--run-slow): four times the games, twice the positions and the whole move
    space; about a minute or two per game."""
    sweep = quick(game_id)
    return Sweep(games=4 * sweep.games, positions=2 * sweep.positions, full=True)


# Random play with attack-heavy One Card decks can bounce attacks for a long time; positions
# are drawn from at most this many moves of a game.
WALK_LIMIT = 3000


def shape(move: Any) -> tuple[Any, ...]:
    """What kind of move this is, whatever its values: its variant and which fields it sets
    (with the length of a repeated one), e.g. a play of two cards with a call."""
    kind = move.WhichOneof("kind")
    fields = getattr(move, kind).ListFields()
    return (kind, *sorted((f.name, len(v) if f.is_repeated else 1) for f, v in fields))


def positions(engine: AnyEngine, sweep: Sweep, salt: int) -> Iterator[tuple[str, Any]]:
    """Positions of random legal play: `sweep.games` games (seat counts and option sets in
    turn). Of each game: the start, the last position (the end, unless the game ran past
    WALK_LIMIT), then positions that list the move shapes not yet covered (so that rare moves, a
    catch, a call, a joker's gift, are checked where they are legal), then positions at random,
    `sweep.positions` in all."""
    options = generic_of(engine.game_type).OPTIONS
    seat_counts = range(engine.min_seats, engine.max_seats + 1)
    covered: set[tuple[Any, ...]] = set()
    for game in range(sweep.games):
        seats = seat_counts[game % len(seat_counts)]
        option = options[game % len(options)]
        seed = salt * 1000 + game
        chooser = random.Random(seed)
        state, _ = engine.new_game(option, seats, seed)
        log: list[tuple[int, Any]] = []
        first_seen: dict[frozenset[tuple[Any, ...]], int] = {}
        while engine.result(state) is None and len(log) < WALK_LIMIT:
            active = engine.active_seats(state)
            listed = {seat: engine.legal_moves(state, seat) for seat in active}
            shapes = frozenset(shape(move) for moves in listed.values() for move in moves)
            first_seen.setdefault(shapes, len(log))
            seat = chooser.choice(active)
            move = chooser.choice(listed[seat])
            engine.apply(state, seat, move)
            log.append((seat, move))
        picked = {0, len(log)}
        # Greedy cover: the position listing the most move shapes not yet checked in this
        # sweep, first.
        while len(picked) < sweep.positions:
            shapes, number = max(first_seen.items(), key=lambda item: len(item[0] - covered))
            if not shapes - covered:
                break
            covered |= shapes
            picked.add(number)
        rest = sorted(set(range(1, len(log))) - picked)
        picked |= set(chooser.sample(rest, min(len(rest), max(0, sweep.positions - len(picked)))))
        state, _ = engine.new_game(option, seats, seed)
        label = f"{seats} seats, options {{{option}}}, seed {seed}".replace("\n", " ")
        for number in range(len(log) + 1):
            if number in picked:
                yield f"{label}, after move {number} of {len(log)}", state
            if number < len(log):
                engine.apply(state, *log[number])


def check_position(engine: AnyEngine, state: Any, seat: int, full: bool) -> tuple[int, int]:
    """Apply every move of the seat's move space to a copy of `state`; assert that exactly the
    listed ones are accepted and that each refusal changed nothing. Returns (moves tried,
    moves accepted)."""
    game_id = engine.game_type
    listed = {encode(canonical(game_id, move)) for move in engine.legal_moves(state, seat)}
    before = encode(state)
    work = engine.state_type()
    work.CopyFrom(state)
    tried: set[bytes] = set()
    # Outcome per canonical move: messages the proto makes equal (a multiset's cards in another
    # order) must be accepted or refused alike.
    outcome: dict[bytes, bool] = {}
    for move in generic_of(game_id).moves(state, seat, full):
        raw = encode(move)
        if raw in tried:
            continue
        tried.add(raw)
        try:
            engine.apply(work, seat, move)
        except (IllegalMove, MalformedMove):
            assert encode(work) == before, f"refused {move} changed the state"
            ok = False
        else:
            ok = True
            work.CopyFrom(state)
        key = encode(canonical(game_id, move))
        assert outcome.setdefault(key, ok) == ok, f"{move} in another order is treated otherwise"
    accepted = {key for key, ok in outcome.items() if ok}
    assert encode(state) == before
    move_type = engine.move_type
    unknown = [move_type.FromString(key) for key in listed - outcome.keys()]
    assert not unknown, f"listed moves outside the move space: {unknown}"
    not_listed = [move_type.FromString(key) for key in accepted - listed]
    assert not not_listed, f"apply accepts moves legal_moves does not list: {not_listed}"
    refused = [move_type.FromString(key) for key in listed - accepted]
    assert not refused, f"apply refuses listed moves: {refused}"
    return len(tried), len(accepted)


def sweep_game(game_id: str, sweep: Sweep, salt: int) -> tuple[int, int, int]:
    engine = GAMES[game_id]
    count = tried = accepted = 0
    for where, state in positions(engine, sweep, salt):
        count += 1
        for seat in range(state.seats):
            try:
                t, a = check_position(engine, state, seat, sweep.full)
            except AssertionError as error:
                raise AssertionError(f"{game_id}, {where}, seat {seat}: {error}") from None
            tried += t
            accepted += a
    return count, tried, accepted


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_apply_accepts_exactly_the_listed_moves(game_id: str) -> None:
    # Every game needs a move space: a game without one fails here (ModuleNotFoundError).
    count, tried, accepted = sweep_game(game_id, quick(game_id), salt=1)
    assert count >= quick(game_id).games and accepted > 0 and tried > accepted


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_apply_accepts_exactly_the_listed_moves_long(game_id: str) -> None:
    count, _, accepted = sweep_game(game_id, slow(game_id), salt=2)
    assert count >= slow(game_id).games and accepted > 0
