"""PM-8 what each seat sees, C-4 hidden information (views, events, errors)."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import IllegalMove
from croupier.engines.pig_mau_mau import ENGINE
from croupier.engines.pig_mau_mau.cards import COLOUR_NAMES
from croupier.v1.pig_mau_mau_pb2 import PigMauMauOptions, PigMauMauState
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    PINK,
    bet,
    check_events_hide_secrets,
    num,
    position,
    scrambled,
    tired,
)


def _sample() -> PigMauMauState:
    return position(
        hands=[[num(PINK, 3), tired(BLACK)], [num(BEIGE, 2), num(BROWN, 4), 36], [num(PINK, 1)]],
        top=tired(BROWN),
        required=BROWN,
        pigs=(3, 1, 0, 5),
        bets=[(2, BEIGE), (0, PINK)],
        phase=BET,
        turn=1,
        race=2,
        scores=[[3, 0, 6]],
        finish=14,
    )


def test_pm_8_what_a_seat_sees() -> None:
    """PM-8: own hand; own bet's colour; the pig positions and the finish; the discard pile's
    top and size; the draw pile's size; every hand's size; the bet row's owners in order (not
    their colours); the pending +2 total; the required colour; scores per race."""
    state = _sample()
    view = ENGINE.view(state, 0)
    assert sorted(c.code for c in view.hand) == sorted([num(PINK, 3), tired(BLACK)])
    assert view.my_bet == 1
    assert [(b.seat, b.color) for b in view.bet_row] == [(2, 0), (0, 1)]
    assert list(view.pigs) == [3, 1, 0, 5]
    assert view.finish == 14
    assert view.top_card.code == tired(BROWN)
    assert view.discard_size == len(state.discard_pile)
    assert view.draw_size == len(state.draw_pile)
    assert list(view.hand_sizes) == [2, 3, 1]
    assert view.required_color == 2
    assert view.pending_draw == 0
    assert [list(r.points) for r in view.race_scores] == [[3, 0, 6]]
    assert list(view.totals) == [3, 0, 6]
    assert (view.race, view.races, view.turn, view.phase) == (2, 4, 1, BET)


def test_pm_8_spectator_sees_only_the_public_part() -> None:
    """C-4: a spectator sees only the public part: no hand, no bet colour."""
    view = ENGINE.view(_sample(), None)
    assert not view.hand
    assert view.my_bet == 0
    assert all(b.color == 0 for b in view.bet_row)


@pytest.mark.parametrize("viewer", [0, 1, 2, None])
def test_c_4_views_do_not_change_when_hidden_parts_do(viewer: int | None) -> None:
    """C-4: a seat never sees another seat's hand, the draw pile, others' bets or the
    generator: scrambling those leaves its view byte for byte the same."""
    state = _sample()
    want = ENGINE.view(state, viewer).SerializeToString(deterministic=True)
    for seed in range(20):
        other = scrambled(state, viewer, seed)
        assert ENGINE.view(other, viewer).SerializeToString(deterministic=True) == want


def test_c_4_bet_colour_never_in_an_error_message() -> None:
    """C-4 (and the issue): no seat but the bettor learns a bet's colour, not even from an
    error; a seat off turn is refused with C-5 before anything is looked at."""
    state = _sample()
    for seat in (0, 2):
        for colour in range(4):
            with pytest.raises(IllegalMove) as refused:
                ENGINE.apply(state, seat, bet(colour))
            assert refused.value.rule_id == "C-5"
            assert not any(name in refused.value.message for name in COLOUR_NAMES)


def test_c_4_events_hide_dealt_and_drawn_cards() -> None:
    """C-4: dealt hands and drawn cards only reach their owner."""
    for seed in range(10):
        state, events = ENGINE.new_game(PigMauMauOptions(), 3, seed)
        check_events_hide_secrets(state, events)


def test_c_4_the_scramble_changes_what_others_see() -> None:
    """The leak check above is not vacuous: the scramble does change other seats' views."""
    state = _sample()
    changed = 0
    for seed in range(10):
        other = scrambled(state, 0, seed)
        for seat in (1, 2):
            mine = ENGINE.view(state, seat).SerializeToString(deterministic=True)
            theirs = ENGINE.view(other, seat).SerializeToString(deterministic=True)
            changed += mine != theirs
    assert changed >= 15
