"""PM-5 betting, and PM-1.4 the bet row."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import IllegalMove
from croupier.engines.pig_mau_mau import ENGINE
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DECLINE,
    DRAW,
    END_STEPS,
    PINK,
    PLAY,
    STEPS,
    bet,
    encode,
    first,
    kinds,
    num,
    p2,
    play,
    position,
)


def test_pm_5_1_bet_after_a_draw_face_down_in_the_first_empty_slot() -> None:
    """PM-5.1: after any draw from the draw pile, before the next player acts, the drawer may
    place a bet: a betting card of their choice, face down, in the first empty slot."""
    state = position(
        hands=[[num(PINK, 3), num(PINK, 1)], [num(BEIGE, 2)], [num(BEIGE, 3)]],
        top=num(PINK, 5),
        bets=[(2, BLACK)],
    )
    ENGINE.apply(state, 0, play(num(PINK, 3)))
    assert (state.turn, state.phase) == (1, BET)  # seat 1 could not play and drew
    assert ENGINE.active_seats(state) == [1]
    events = ENGINE.apply(state, 1, bet(BROWN))
    assert [(b.seat, b.color) for b in state.bet_row] == [(2, 3), (1, 2)]
    placed = first(events, "bet_placed", 1).bet_placed
    assert (placed.seat, placed.slot, placed.color, placed.changed) == (1, 1, 2, False)
    # only the bettor learns the colour
    for seat in (None, 0, 2):
        public = first(events, "bet_placed", seat).bet_placed
        assert (public.seat, public.slot, public.color) == (1, 1, 0)
    assert (state.turn, state.phase) == (2, PLAY)


def test_pm_5_1_bet_after_a_plus_two_draw_too() -> None:
    """PM-5.1: after any draw (PM-3.2 or PM-4.1) — also after taking a +2 total and the
    consolation steps."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BEIGE), num(PINK, 2)]],
        top=p2(PINK),
        pending=2,
        turn=1,
        pigs=(2, 0, 0, 0),
    )
    ENGINE.apply(state, 1, DRAW)
    ENGINE.apply(state, 1, END_STEPS)
    assert state.phase == BET
    ENGINE.apply(state, 1, bet(PINK))
    assert [(b.seat, b.color) for b in state.bet_row] == [(1, 1)]


def test_pm_5_1_no_bet_without_a_draw() -> None:
    """PM-5.1: betting follows a draw; a player who plays may not bet."""
    state = position(hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    assert not any(m.HasField("place_bet") for m in ENGINE.legal_moves(state, 0))
    before = encode(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 0, bet(PINK))
    assert refused.value.rule_id == "PM-3.1"
    assert encode(state) == before


def test_pm_5_2_change_a_bet_the_row_closes_up() -> None:
    """PM-5.2: a player who already has a bet may change it: their card is taken back, the bets
    below it move up one slot, and the new card goes into the first empty slot."""
    state = position(
        hands=[[num(PINK, 1)], [num(PINK, 2)], [num(PINK, 3)], [num(PINK, 4)]],
        top=num(PINK, 5),
        bets=[(3, BEIGE), (1, PINK), (0, BLACK), (2, BLACK)],
        phase=BET,
        turn=1,
    )
    events = ENGINE.apply(state, 1, bet(BROWN))
    assert [(b.seat, b.color) for b in state.bet_row] == [(3, 4), (0, 3), (2, 3), (1, 2)]
    placed = first(events, "bet_placed", 1).bet_placed
    assert (placed.changed, placed.previous_slot, placed.slot) == (True, 1, 3)
    public = first(events, "bet_placed", 0).bet_placed
    assert (public.changed, public.previous_slot, public.slot, public.color) == (True, 1, 3, 0)


def test_pm_5_2_at_most_one_bet_per_player_change_needs_another_pig() -> None:
    """PM-5.2: each player has at most one bet in the row. Decision (ours): a change must name
    a different pig (putting the same card back at the end can only lose)."""
    state = position(
        hands=[[num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), bets=[(0, PINK)], phase=BET
    )
    colours = [m.place_bet.color for m in ENGINE.legal_moves(state, 0) if m.HasField("place_bet")]
    assert colours == [2, 3, 4]
    before = encode(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 0, bet(PINK))
    assert refused.value.rule_id == "PM-5.2"
    assert encode(state) == before


def test_pm_5_3_declining_is_a_move() -> None:
    """PM-5.3: betting is optional; declining is a move of its own."""
    state = position(hands=[[num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), phase=BET)
    assert DECLINE in ENGINE.legal_moves(state, 0)
    events = ENGINE.apply(state, 0, DECLINE)
    assert kinds(events)[0] == "bet_declined"
    assert len(state.bet_row) == 0
    assert (state.turn, state.phase) == (1, PLAY)


def test_pm_5_3_a_timeout_in_a_bet_decision_is_a_decline() -> None:
    """PM-5.3: declining is a move of its own, or a timeout: the engine names the decline as
    what the bettor's timeout means (the turn clock plays it instead of its bot's choice); in
    every other decision the rules say nothing of a timeout."""
    state = position(hands=[[num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), phase=BET)
    assert ENGINE.timeout_move(state, 0) == DECLINE
    assert DECLINE in ENGINE.legal_moves(state, 0)
    assert ENGINE.timeout_move(state, 1) is None  # not its decision
    for phase in (PLAY, STEPS):
        state = position(
            hands=[[num(PINK, 1)], [num(PINK, 2)]],
            top=num(PINK, 5),
            pigs=(1, 0, 0, 0),
            phase=phase,
            steps=1 if phase == STEPS else 0,
        )
        assert ENGINE.timeout_move(state, 0) is None


def test_pm_1_4_the_row_has_room_for_every_player() -> None:
    """PM-1.4: five slots; with at most one bet per player (PM-5.2) and 5 players at most, the
    row never overflows."""
    state = position(
        hands=[[num(PINK, 1)], [num(PINK, 2)], [num(PINK, 3)], [num(PINK, 4)], [num(PINK, 6)]],
        top=num(PINK, 5),
        bets=[(0, PINK), (1, PINK), (2, PINK), (3, PINK)],
        phase=BET,
        turn=4,
    )
    ENGINE.apply(state, 4, bet(BEIGE))
    assert len(state.bet_row) == 5
