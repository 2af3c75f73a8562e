"""OC-7 (what each seat sees), C-4 (hidden information), C-5 (acting out of turn) and
malformed moves."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import MalformedMove
from croupier.engines.one_card import ENGINE
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import OneCardMove, OneCardOptions
from tests.engines.helpers import encode

from .helpers import (
    CALL,
    DRAW,
    catch_move,
    play,
    play_move,
    position,
    raw_card,
    refused,
)


def test_oc_7_seat_view() -> None:
    """OC-7: own hand; the discard pile's top card and size; the draw pile's size; every
    hand's size; the active colour and direction; a pending attack's total; a pending
    Quatran's colour; who has one card without having called."""
    state = position(
        ["R1 Y1 W", "G3 G4", "B5 B6 B7"], "R+2", under="Y2 Y3", draw="B1 B2", attack=2, current=1
    )
    view = ENGINE.view(state, 0)
    assert [c.short_name(c.from_message(card, "h")) for card in view.hand] == ["R1", "Y1", "W"]
    assert c.short_name(c.from_message(view.top_card, "t")) == "R+2"
    assert (view.discard_pile_size, view.draw_pile_size) == (3, 2)
    assert list(view.hand_sizes) == [3, 2, 3]
    assert (view.active_color, view.clockwise, view.current_seat) == (1, True, 1)
    assert view.pending_attack == 2 and view.quatran_color == 0
    assert not view.HasField("catchable_seat")


def test_oc_7_quatran_and_catchable_seat_are_public() -> None:
    """OC-7: a pending Quatran's colour and who has one card without having called."""
    state = position(["Q R1", "B3 B4 G1", "B5 B6 B7"], "R9")
    play(state, 0, "Q", color="G")
    for viewer in (None, 0, 1, 2):
        view = ENGINE.view(state, viewer)
        assert view.quatran_color == 3 and view.catchable_seat == 0 and view.active_color == 3


def test_oc_7_spectator_sees_no_hand() -> None:
    """OC-7 / C-4: a spectator sees only the public part: no hand at all."""
    state, _ = ENGINE.new_game(OneCardOptions(), 4, seed=8)
    assert len(ENGINE.view(state, None).hand) == 0
    assert len(ENGINE.view(state, 2).hand) == len(state.hands[2].cards)


def test_c_4_view_does_not_depend_on_hidden_cards() -> None:
    """C-4: a seat's view is the same whatever the other hands hold and whatever the draw
    pile's order (so neither can leak)."""
    state, _ = ENGINE.new_game(OneCardOptions(), 4, seed=21)
    views = {seat: encode(ENGINE.view(state, seat)) for seat in (None, 0, 1, 2, 3)}
    # exchange cards between seats 1..3 and the draw pile, keeping sizes
    hidden = [*state.hands[1].cards, *state.hands[2].cards, *state.hands[3].cards]
    hidden += list(state.draw_pile)
    hidden.reverse()
    for seat in (1, 2, 3):
        size = len(state.hands[seat].cards)
        del state.hands[seat].cards[:]
        state.hands[seat].cards.extend(hidden[:size])
        hidden = hidden[size:]
    del state.draw_pile[:]
    state.draw_pile.extend(hidden)
    assert encode(ENGINE.view(state, 0)) == views[0]
    assert encode(ENGINE.view(state, None)) == views[None]
    assert encode(ENGINE.view(state, 1)) != views[1]


def test_c_5_acting_out_of_turn_is_refused() -> None:
    """C-5: only the seats the rules allow may act; a play or draw out of turn is refused with
    C-5 and changes nothing."""
    state = position(["R1 Y1 Y2", "R3 G4", "R5 G6"], "R9", draw="B1")
    refused(state, 1, play_move("R3"), "C-5")
    refused(state, 2, DRAW, "C-5")
    assert ENGINE.active_seats(state) == [0]
    assert ENGINE.legal_moves(state, 1) == []


def test_c_5_a_catcher_may_not_take_a_turn() -> None:
    """C-5: during a catch window other seats may catch, not play."""
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9", draw="B1")
    play(state, 0, "R1")
    refused(state, 2, play_move("R5"), "C-5")
    refused(state, 2, DRAW, "C-5")
    refused(state, 2, CALL, "OC-5.1")


def test_c_5_nothing_after_the_end() -> None:
    """C-5: once the match is over no seat may act."""
    state = position(["R1", "R3 G4", "R5 G6"], "R9")
    play(state, 0, "R1")
    refused(state, 1, play_move("R3"), "C-5")
    refused(state, 2, catch_move(0), "C-5")


@pytest.mark.parametrize(
    "move",
    [
        OneCardMove(),
        OneCardMove(play=OneCardMove.Play()),
        OneCardMove(play=OneCardMove.Play(cards=[raw_card(1, 1, 1)] * 3)),
        OneCardMove(play=OneCardMove.Play(cards=[raw_card(1, 1, 1)], color=7)),  # type: ignore[arg-type]
        OneCardMove(catch=OneCardMove.Catch(seat=3)),
        OneCardMove(catch=OneCardMove.Catch(seat=-1)),
    ],
)
def test_malformed_moves(move: OneCardMove) -> None:
    """A move that is not a move of this game at all is malformed, and changes nothing."""
    state = position(["R1 Y1 Y2", "R3 G4", "R5 G6"], "R9")
    before = encode(state)
    with pytest.raises(MalformedMove):
        ENGINE.apply(state, 0, move)
    assert encode(state) == before
