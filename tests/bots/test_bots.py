"""The bot players (engines/croupier/engines/core/bots.py, engines/croupier/engines/<game>/bot.py):
legal, deterministic, blind to what their seat may not see, games finish, and strong beats random (a
loose bound: the measured figures are croupier-bench --bots, docs/bots.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from croupier.bench import main
from croupier.bench.bots import wilson
from croupier.engines.core.bots import LEVELS, Bot, RandomBot, bot_for, decision_rng, play_game
from croupier.engines.registry import GAMES
from tests.engines.one_card import test_properties as one_card_props
from tests.engines.pig_mau_mau import positions as pig_positions
from tests.engines.trinity import test_properties as trinity_props
from tests.engines.vampire_queen import test_properties as vampire_props
from tests.engines.whats_your_name import test_properties as name_props

COMPETITIVE = [game for game in GAMES if game != "trinity"]


def seats_for(game: str) -> int:
    engine = GAMES[game]
    return min(max(4, engine.min_seats), engine.max_seats)


class Recording:
    """Wraps a bot: checks each choice is one of the legal moves and records it."""

    def __init__(self, bot: Bot, log: list[tuple[int, bytes]]) -> None:
        self.bot, self.log = bot, log

    def choose(self, seat: int, view: Any, legal_moves: Sequence[Any], rng: random.Random) -> Any:
        move = self.bot.choose(seat, view, legal_moves, rng)
        assert move in legal_moves
        self.log.append((seat, move.SerializeToString(deterministic=True)))
        return move


@pytest.mark.parametrize("game", list(GAMES))
def test_strong_bots_choose_legal_moves_and_whole_games_finish(game: str) -> None:
    engine, seats = GAMES[game], seats_for(game)
    for seed in range(3):
        log: list[tuple[int, bytes]] = []
        strong = [Recording(bot_for(game, "strong"), log) for _ in range(seats)]
        assert play_game(engine, strong, seed).result.seats
        mixed: list[Bot] = [Recording(bot_for(game, "strong"), log), *[RandomBot()] * (seats - 1)]
        assert play_game(engine, mixed, seed).result.seats


@pytest.mark.parametrize("game", list(GAMES))
def test_a_game_of_bots_is_reproducible_from_its_seed(game: str) -> None:
    engine, seats = GAMES[game], seats_for(game)
    logs: list[list[tuple[int, bytes]]] = [[], []]
    results = []
    for log in logs:
        bots = [
            Recording(bot_for(game, "strong" if s % 2 else "random"), log) for s in range(seats)
        ]
        results.append(play_game(engine, bots, 7).result.SerializeToString(deterministic=True))
    assert logs[0] == logs[1]
    assert results[0] == results[1]
    assert decision_rng(7, 3, 1).random() == decision_rng(7, 3, 1).random()
    assert decision_rng(7, 3, 1).random() != decision_rng(7, 4, 1).random()


# Per game: a copy of the state with everything `seat` may not see changed (the engine tests'
# own scramblers, C-4).
SCRAMBLERS: dict[str, Callable[[Any, int, random.Random], Any]] = {
    "whats_your_name": lambda state, seat, rnd: name_props.scrambled(state, seat),
    "one_card": one_card_props.scrambled,
    "pig_mau_mau": lambda state, seat, rnd: pig_positions.scrambled(
        state, seat, rnd.getrandbits(32)
    ),
    "vampire_queen": vampire_props.scrambled_state,
    "trinity": trinity_props.scrambled,
}


@pytest.mark.parametrize("game", list(GAMES))
def test_strong_bots_choose_the_same_whatever_their_seat_may_not_see(game: str) -> None:
    """At every decision of a game, the strong bot's choice on a state whose hidden parts were
    scrambled (other hands, piles, the generator) is the choice it made on the real one."""
    engine, seats = GAMES[game], seats_for(game)
    strong = bot_for(game, "strong")
    scramble = SCRAMBLERS[game]
    rnd = random.Random(5)
    checked = 0
    for seed in range(2):
        state, _ = engine.new_game(engine.options_type(), seats, seed)
        moves = 0
        while engine.result(state) is None:
            seat = engine.active_seats(state)[moves % len(engine.active_seats(state))]
            legal = engine.legal_moves(state, seat)
            move = strong.choose(
                seat, engine.view(state, seat), legal, decision_rng(seed, moves, seat)
            )
            other = scramble(state, seat, rnd)
            again = strong.choose(
                seat,
                engine.view(other, seat),
                engine.legal_moves(other, seat),
                decision_rng(seed, moves, seat),
            )
            assert again == move
            engine.apply(state, seat, move)
            moves += 1
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("game", COMPETITIVE)
def test_a_strong_seat_wins_more_than_its_share_against_random_bots(game: str) -> None:
    """A loose bound on fixed seeds (so never flaky): over a few dozen games, the strong seat
    rotating, the 95% interval of its win rate lies above an equal share. Fewer games for the
    long games whose strong player wins nearly always (a few seconds each)."""
    engine, seats = GAMES[game], seats_for(game)
    wins = 0
    games = 24 if game in ("one_card", "vampire_queen") else 48
    for seed in range(games):
        bots: list[Bot] = [RandomBot()] * seats
        bots[seed % seats] = bot_for(game, "strong")
        wins += seed % seats in play_game(engine, bots, seed).result.winners
    assert wilson(wins, games)[0] > 1 / seats


def test_bot_for_names_levels_and_refuses_unknown_ones() -> None:
    assert LEVELS == ("random", "strong")
    for game in GAMES:
        assert isinstance(bot_for(game, "random"), RandomBot)
        assert not isinstance(bot_for(game, "strong"), RandomBot)
    with pytest.raises(KeyError):
        bot_for("one_card", "expert")
    with pytest.raises(KeyError):
        bot_for("chess", "random")
    with pytest.raises(ValueError, match="nothing to choose"):
        RandomBot().choose(0, None, [], random.Random(1))


def test_wilson_interval_brackets_the_rate() -> None:
    low, high = wilson(50, 100)
    assert low < 0.5 < high
    assert wilson(0, 100)[0] == 0.0
    assert wilson(100, 100)[1] == 1.0
    assert 0.40 < low < 0.41


def test_bots_bench_prints_a_table_and_writes_figures(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "bots.json"
    main(
        [
            *["--bots", "--games", "8", "--processes", "1"],
            *["--game", "pig_mau_mau", "--game", "trinity", "--json", str(out)],
        ]
    )
    report = json.loads(out.read_text())["bots"]
    pig = report["pig_mau_mau"]
    assert [rate["games"] for rate in pig["strong_by_seat"]] == [2, 2, 2, 2]
    assert pig["random_fair_share"]["games"] == 8 * 4
    assert pig["decision_ms"]["decisions"] > 0
    assert report["trinity"]["team_strong"]["games"] == 8
    assert report["trinity"]["team_random"]["games"] == 8
    printed = capsys.readouterr().out
    assert "fair share" in printed and "team of 3 strong" in printed and "run time" in printed


# Each game's variant options, which open moves the default game never offers (Mau calls,
# hidden cards and the mirror, matches).
VARIANTS: dict[str, dict[str, Any]] = {
    "whats_your_name": {"hidden_card": True, "match": True},
    "one_card": {"wins_to_match": 2},
    "pig_mau_mau": {"mau": True},
    "vampire_queen": {"rounds": 2, "deal_all": True},
    "trinity": {"advanced": True, "stop_when_unwinnable": True},
}


@pytest.mark.parametrize("game", list(GAMES))
def test_strong_bots_play_the_variant_options_legally(game: str) -> None:
    engine = GAMES[game]
    options = engine.options_type(**VARIANTS[game])
    for seats in sorted({engine.min_seats, seats_for(game)}):
        log: list[tuple[int, bytes]] = []
        bots = [Recording(bot_for(game, "strong"), log) for _ in range(seats)]
        assert play_game(engine, bots, 11, options).result.seats
        assert log


def test_the_strong_pig_mau_mau_bot_always_makes_the_call_its_play_needs() -> None:
    """With option `mau`, a play without the call it needs is undone (PM-7.2): the strong bot
    never forgets it, so no `mau_forgotten` event ever follows its moves."""
    engine = GAMES["pig_mau_mau"]
    strong = bot_for("pig_mau_mau", "strong")
    for seed in range(10):
        state, _ = engine.new_game(engine.options_type(mau=True), 3, seed)
        moves = 0
        while engine.result(state) is None:
            seat = engine.active_seats(state)[0]
            legal = engine.legal_moves(state, seat)
            move = strong.choose(
                seat, engine.view(state, seat), legal, decision_rng(seed, moves, seat)
            )
            events = engine.apply(state, seat, move)
            kinds = {e.public.WhichOneof("kind") for e in events if e.public is not None}
            assert "mau_forgotten" not in kinds
            moves += 1
