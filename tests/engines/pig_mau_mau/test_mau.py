"""PM-7: the `mau` option."""

from __future__ import annotations

import pytest

from engines.core.errors import IllegalMove
from engines.pig_mau_mau import ENGINE
from tests.engines.pig_mau_mau.positions import (
    BLACK,
    BROWN,
    MAU,
    MAU_MAU,
    PINK,
    encode,
    first,
    kinds,
    num,
    p2,
    play,
    position,
    x,
)


def test_pm_7_1_mau_with_the_second_to_last_card() -> None:
    """PM-7.1: a player who plays a card leaving them with one card must call "Mau" with that
    play."""
    state = position(
        hands=[[num(PINK, 3), num(BROWN, 1)], [num(PINK, 2), num(PINK, 4)]],
        top=num(PINK, 5),
        mau=True,
    )
    calls = sorted(m.play.call for m in ENGINE.legal_moves(state, 0))
    assert calls == [0, MAU]
    events = ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU))
    assert first(events, "card_played").card_played.call == MAU
    assert list(state.pigs) == [3, 0, 0, 0]
    assert state.turn == 1


def test_pm_7_1_mau_mau_with_the_last_card() -> None:
    """PM-7.1: a player who plays their last card must call "Mau Mau" with it."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), mau=True)
    assert sorted(m.play.call for m in ENGINE.legal_moves(state, 0)) == [0, MAU_MAU]
    events = ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU_MAU))
    assert first(events, "race_ended").race_ended.emptied_seat == 0


def test_pm_7_1_calls_that_do_not_fit_are_refused() -> None:
    """PM-7.1: the call must fit the cards the play leaves; without the option no call."""
    state = position(
        hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), mau=True
    )
    before = encode(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU_MAU))
    assert refused.value.rule_id == "PM-7.1"
    state2 = position(
        hands=[[num(PINK, 3), num(PINK, 1), num(PINK, 4)], [num(PINK, 2)]],
        top=num(PINK, 5),
        mau=True,
    )
    with pytest.raises(IllegalMove):
        ENGINE.apply(state2, 0, play(num(PINK, 3), call=MAU))
    assert all(m.play.call == 0 for m in ENGINE.legal_moves(state2, 0))
    plain = position(hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(plain, 0, play(num(PINK, 3), call=MAU))
    assert refused.value.rule_id == "PM-7.1"
    assert encode(state) == before


def test_pm_7_2_forgotten_call_card_stays_no_action_turn_passes() -> None:
    """PM-7.2: a play without the required call is penalised at once: the card stays in the
    player's hand, no action happens, and the turn passes to the next player."""
    state = position(
        hands=[
            [x(PINK), num(BROWN, 1)],
            [num(PINK, 2), num(PINK, 4)],
            [num(PINK, 1), num(PINK, 6)],
        ],
        top=num(PINK, 5),
        mau=True,
    )
    events = ENGINE.apply(state, 0, play(x(PINK)))
    assert kinds(events) == ["mau_forgotten"]
    forgot = first(events, "mau_forgotten").mau_forgotten
    assert (forgot.seat, forgot.card.code, forgot.required) == (0, x(PINK), MAU)
    assert sorted(state.hands[0].cards) == sorted([x(PINK), num(BROWN, 1)])
    assert list(state.discard_pile)[-1] == num(PINK, 5)
    assert state.turn == 1  # not skipped: the X had no action


def test_pm_7_2_forgotten_mau_mau_does_not_end_the_race() -> None:
    """PM-7.2: the last card played without "Mau Mau" goes back; the race goes on."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), mau=True)
    events = ENGINE.apply(state, 0, play(num(PINK, 3)))
    assert "race_ended" not in kinds(events)
    assert list(state.hands[0].cards) == [num(PINK, 3)]
    assert list(state.pigs) == [0, 0, 0, 0]
    assert (state.race, state.turn) == (1, 1)


def test_pm_7_2_forgotten_call_on_a_stacked_plus_two() -> None:
    """PM-7.2 Decision (ours): a +2 stacked without the call goes back; the pending total is
    untouched and faces the next player (the rulebook: undo the action, next player's turn)."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BROWN), num(PINK, 2)], [p2(PINK), num(PINK, 4)]],
        top=p2(BLACK),
        pending=2,
        turn=1,
        mau=True,
    )
    ENGINE.apply(state, 1, play(p2(BROWN)))
    assert sorted(state.hands[1].cards) == sorted([p2(BROWN), num(PINK, 2)])
    assert (state.turn, state.pending_draw) == (2, 2)
