"""OC-6: the immediate win, placements, and match play with `wins_to_match`."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import InvalidOptions
from croupier.engines.one_card import ENGINE, rules
from croupier.v1.one_card_pb2 import OneCardMove, OneCardOptions
from tests.engines.helpers import kinds, of_kind

from .helpers import (
    play,
    position,
)


def test_oc_6_1_last_card_wins_at_once() -> None:
    """OC-6.1: the player who discards their last card wins at once; the game ends."""
    state = position(["R1", "R3 G4", "R5 G6 B1"], "R9")
    events = play(state, 0, "R1")
    assert kinds(events) == ["played", "game_won"]
    won = of_kind(events, "game_won")[0]
    assert (won.winner, won.match_over) == (0, True)
    assert state.over and ENGINE.active_seats(state) == []
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in range(3))
    result = ENGINE.result(state)
    assert result is not None and list(result.winners) == [0]


def test_oc_6_1_effect_of_the_last_card_is_not_applied() -> None:
    """OC-6.1 Decision: the effect of that last card is not applied (no attack, no skip)."""
    state = position(["R+2", "R3 G4", "R5 G6 B1"], "R9", draw="B1 B2")
    events = play(state, 0, "R+2")
    assert not of_kind(events, "drew")
    played = of_kind(events, "played")[0]
    assert played.attack_total == 0 and not played.HasField("next_seat")
    assert state.pending_attack == 0
    assert [len(h.cards) for h in state.hands] == [0, 2, 3]


def test_oc_6_1_quatran_pair_can_win() -> None:
    """OC-6.1: answering a Quatran with one's last two cards wins."""
    state = position(["Y1 Y2", "B3 B7", "Y5 W"], "Q", named="B", quatran=True, current=1)
    play(state, 1, "B3 B7")
    assert state.over


def test_oc_6_2_placements_by_cards_left_ties_share() -> None:
    """OC-6.2: placements after the winner: fewer cards left is better; ties share the
    place."""
    state = position(["R1", "R3 G4 B5", "R5 G6", "B1 B2 B3 B4", "Y1 Y2"], "R9")
    events = play(state, 0, "R1")
    won = of_kind(events, "game_won")[0]
    assert list(won.cards_left) == [0, 3, 2, 4, 2]
    assert list(won.placements) == [1, 4, 2, 5, 2]
    result = ENGINE.result(state)
    assert result is not None
    assert [(s.seat, s.score, s.placement) for s in result.seats] == [
        (0, 0, 1),
        (1, 3, 4),
        (2, 2, 2),
        (3, 4, 5),
        (4, 2, 2),
    ]


def test_oc_6_3_match_play_to_wins_to_match() -> None:
    """OC-6.3 Option wins_to_match: play game after game until a player has won that many;
    the dealer passes to the left each game. The match result lists the wins."""
    options = OneCardOptions(wins_to_match=2, dealer_seat=1)
    state = position(["R1", "R3 G4 B5", "R5 G6"], "R9", options=options)
    events = play(state, 0, "R1")
    assert kinds(events)[:3] == ["played", "game_won", "game_started"]
    won = of_kind(events, "game_won")[0]
    assert (won.game_number, won.match_over, list(won.wins)) == (1, False, [1, 0, 0])
    started = of_kind(events, "game_started")[0]
    assert (started.game_number, started.dealer, started.first_seat) == (2, 2, 0)
    assert not state.over and ENGINE.result(state) is None
    assert sum(len(h.cards) for h in state.hands) >= 21
    assert len(state.history) == 1 and list(state.history[0].cards_left) == [0, 3, 2]
    # seat 2 wins the second game
    del state.hands[2].cards[:]
    state.hands[2].cards.append(state.discard_pile[-1])
    state.current_seat = 2
    state.ClearField("catchable_seat")
    state.pending_attack = 0
    state.quatran_pending = False
    state.named_color = 0  # type: ignore[assignment]
    top = state.discard_pile[-1]
    events = ENGINE.apply(state, 2, _play_code(top))
    won = of_kind(events, "game_won")[0]
    assert (won.game_number, list(won.wins), won.match_over) == (2, [1, 0, 1], False)
    assert of_kind(events, "game_started")[0].dealer == 0
    # seat 0 wins the third game and the match
    del state.hands[0].cards[:]
    state.hands[0].cards.append(state.discard_pile[-1])
    state.current_seat = 0
    state.ClearField("catchable_seat")
    state.pending_attack = 0
    state.quatran_pending = False
    state.named_color = 0  # type: ignore[assignment]
    events = ENGINE.apply(state, 0, _play_code(state.discard_pile[-1]))
    won = of_kind(events, "game_won")[0]
    assert (list(won.wins), won.match_over) == ([2, 0, 1], True)
    assert state.over
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [0]
    assert [s.score for s in result.seats] == [2, 0, 1]
    assert [s.placement for s in result.seats] == [1, 3, 2]
    assert [r.winner for r in ENGINE.view(state, None).history] == [0, 2, 0]
    assert "games won" in result.summary


def _play_code(code: int) -> OneCardMove:
    return rules.to_move(rules.Act(rules.Kind.PLAY, (code,)))


def test_oc_6_3_wins_to_match_bounds() -> None:
    """OC-6.3: wins_to_match is 1..5 (0 is the default, 1)."""
    with pytest.raises(InvalidOptions):
        ENGINE.new_game(OneCardOptions(wins_to_match=6), 2, seed=1)
    with pytest.raises(InvalidOptions):
        ENGINE.new_game(OneCardOptions(wins_to_match=-1), 2, seed=1)
    state, _ = ENGINE.new_game(OneCardOptions(), 2, seed=1)
    assert ENGINE.view(state, None).wins_to_match == 1
