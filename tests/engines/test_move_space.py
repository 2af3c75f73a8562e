"""The listing is the check, for every game: at random positions, for every seat, `apply` accepts
exactly the moves `legal_moves` lists, out of every move message the seat could send
(tests/engines/move_space.py), and a refused move leaves the state's bytes unchanged.

Positions come from random legal play over several seat counts, option sets and seeds. The
default run samples a few dozen positions per game; `--run-slow` walks many more and pairs
One Card's cards over the whole deck.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.message import Message

from croupier.v1.one_card_pb2 import OneCardDeck, OneCardOptions
from croupier.v1.pig_mau_mau_pb2 import PigMauMauOptions
from croupier.v1.trinity_pb2 import TrinityOptions
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from croupier.v1.whats_your_name_pb2 import WhatsYourNameOptions
from engines.core.errors import IllegalMove, MalformedMove
from engines.registry import GAMES, AnyEngine
from tests.engines.helpers import encode
from tests.engines.move_space import MOVE_SPACES, canonical

# Option sets that reach every kind of move: One Card with many attacks and wild cards (defences,
# Quatran answers) ; Pig Mau Mau with calls; Trinity's
# options change when the game ends; Vampire Queen with every card dealt; What's Your Name? with
# hidden cards and the mirror.
OPTIONS: dict[str, list[Message]] = {
    "one_card": [
        OneCardOptions(),
        OneCardOptions(
            deck=OneCardDeck(plus_two_per_color=3, plus_three_per_color=3, rainbows=6, quatrans=8)
        ),
        OneCardOptions(wins_to_match=2),
    ],
    "pig_mau_mau": [PigMauMauOptions(), PigMauMauOptions(mau=True, finish_distance=30)],
    "trinity": [TrinityOptions(), TrinityOptions(advanced=True, stop_when_unwinnable=True)],
    "vampire_queen": [VampireQueenOptions(rounds=2), VampireQueenOptions(deal_all=True, rounds=1)],
    "whats_your_name": [
        WhatsYourNameOptions(),
        WhatsYourNameOptions(hidden_card=True),
        WhatsYourNameOptions(hidden_card=True, match=True),
    ],
}


@dataclass(frozen=True)
class Sweep:
    games: int  # games walked per game id
    positions: int  # positions checked per game walked (at most)
    full: bool  # the whole move space where the default narrows it (move_space.py)


# The quick sweep's size per game keeps each game to a few seconds: a Pig Mau Mau seat has
# ~3,000 move messages (41 card codes x 5 pigs x 5 colours x 3 calls), a One Card seat ~3,300,
# a Vampire Queen seat ~1,000, a Trinity seat ~500, a What's Your Name? seat ~60.
QUICK = {
    "one_card": Sweep(games=6, positions=4, full=False),
    "pig_mau_mau": Sweep(games=6, positions=5, full=False),
    "trinity": Sweep(games=8, positions=8, full=False),
    "vampire_queen": Sweep(games=5, positions=4, full=False),
    "whats_your_name": Sweep(games=12, positions=12, full=False),
}
# The long sweep (--run-slow): four times the games, twice the positions and the whole move
# space; about a minute or two per game.
SLOW = {
    game_id: Sweep(games=4 * sweep.games, positions=2 * sweep.positions, full=True)
    for game_id, sweep in QUICK.items()
}
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
    options = OPTIONS[engine.game_id]
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
    game_id = engine.game_id
    listed = {encode(canonical(game_id, move)) for move in engine.legal_moves(state, seat)}
    before = encode(state)
    work = engine.state_type()
    work.CopyFrom(state)
    tried: set[bytes] = set()
    # Outcome per canonical move: messages the proto makes equal (a multiset's cards in another
    # order) must be accepted or refused alike.
    outcome: dict[bytes, bool] = {}
    for move in MOVE_SPACES[game_id](state, seat, full):
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
    assert sorted(MOVE_SPACES) == sorted(GAMES), "every game needs a move space"
    count, tried, accepted = sweep_game(game_id, QUICK[game_id], salt=1)
    assert count >= QUICK[game_id].games and accepted > 0 and tried > accepted


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_apply_accepts_exactly_the_listed_moves_long(game_id: str) -> None:
    count, _, accepted = sweep_game(game_id, SLOW[game_id], salt=2)
    assert count >= SLOW[game_id].games and accepted > 0
