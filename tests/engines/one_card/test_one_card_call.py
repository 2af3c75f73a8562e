"""OC-5: calling "One Card" and catching a missed call (out of turn)."""

from __future__ import annotations

from croupier.engines.one_card import ENGINE
from croupier.v1.one_card_pb2 import OneCardEvent
from tests.engines.helpers import kinds, of_kind

from .helpers import (
    CALL,
    DRAW,
    catch_move,
    draw,
    hand,
    play,
    play_move,
    position,
    refused,
)

Event = OneCardEvent


def test_oc_5_1_call_with_the_discard() -> None:
    """OC-5.1: a player whose discard leaves them with exactly one card must call "One
    Card"; the call is part of that discard move. Then nobody can catch them."""
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9")
    assert play_move("R1", call=True) in ENGINE.legal_moves(state, 0)
    events = play(state, 0, "R1", call=True)
    assert of_kind(events, "played")[0].called_one_card
    assert not state.HasField("catchable_seat")
    assert ENGINE.active_seats(state) == [1]
    refused(state, 2, catch_move(0), "OC-5.2")


def test_oc_5_1_call_on_its_own_before_the_next_player_acts() -> None:
    """OC-5.1: ... or a move of its own made before the next player acts."""
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9")
    play(state, 0, "R1")
    assert state.catchable_seat == 0
    assert ENGINE.legal_moves(state, 0) == [CALL]
    events = ENGINE.apply(state, 0, CALL)
    assert kinds(events) == ["called_one_card"]
    assert not state.HasField("catchable_seat")
    assert ENGINE.active_seats(state) == [1]


def test_oc_5_1_call_only_when_the_discard_leaves_one_card() -> None:
    """OC-5.1: a call with a discard that leaves more (or no) cards is refused; a call on its
    own with nothing to call is refused."""
    state = position(["R1 Y1 Y2", "R3 G4", "R5 G6"], "R9")
    refused(state, 0, play_move("R1", call=True), "OC-5.1")
    refused(state, 0, CALL, "OC-5.1")
    state = position(["R1", "R3 G4", "R5 G6"], "R9")
    refused(state, 0, play_move("R1", call=True), "OC-5.1")


def test_oc_5_1_late_call_is_refused_once_the_next_player_moved() -> None:
    """OC-5.1: after the next player acts it is too late to call (and to catch)."""
    state = position(["R1 Y1", "R3 G4 G5", "R5 G6"], "R9")
    play(state, 0, "R1")
    play(state, 1, "R3")
    assert not state.HasField("catchable_seat")
    refused(state, 0, CALL, "OC-5.1")
    refused(state, 2, catch_move(0), "OC-5.2")


def test_oc_5_2_catch_costs_two_cards() -> None:
    """OC-5.2: until the next player's move, any other player may catch a player who has one
    card and has not called; the caught player draws 2 as a penalty."""
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9", draw="B1 B2 B3")
    play(state, 0, "R1")
    events = ENGINE.apply(state, 2, catch_move(0))
    assert kinds(events) == ["caught", "drew"]
    caught = of_kind(events, "caught")[0]
    assert (caught.catcher, caught.caught) == (2, 0)
    drew = of_kind(events, "drew", 0)[0]
    assert (drew.seat, drew.count, drew.reason) == (0, 2, Event.DRAW_REASON_CAUGHT)
    assert hand(state, 0) == ["Y1", "B1", "B2"]
    assert not of_kind(events, "drew", 2)[0].cards  # the catcher does not see them
    assert not state.HasField("catchable_seat")
    # the turn is still the next player's
    assert state.current_seat == 1 and ENGINE.active_seats(state) == [1]


def test_oc_5_2_every_other_seat_may_catch_out_of_turn() -> None:
    """OC-5.2: the catch is out of turn: every other seat (the next player included) may act,
    and the uncalled seat may still call."""
    state = position(["R1 Y1", "R3 G4", "R5 G6", "B1 B2"], "R9")
    play(state, 0, "R1")
    assert ENGINE.active_seats(state) == [0, 1, 2, 3]
    assert ENGINE.legal_moves(state, 0) == [CALL]
    assert catch_move(0) in ENGINE.legal_moves(state, 1)
    assert play_move("R3") in ENGINE.legal_moves(state, 1)
    assert ENGINE.legal_moves(state, 2) == [catch_move(0)]
    assert ENGINE.legal_moves(state, 3) == [catch_move(0)]
    # the next player may catch too, then takes their turn
    ENGINE.apply(state, 1, catch_move(0))
    assert state.current_seat == 1
    play(state, 1, "R3")


def test_oc_5_2_window_closes_at_the_next_players_move() -> None:
    """OC-5.2: the catch is possible only until the next player's move; a player who forgot
    and was not caught keeps their single card."""
    state = position(["R1 Y1", "R3 G4 G5", "R5 G6"], "R9")
    play(state, 0, "R1")
    play(state, 1, "R3")
    assert hand(state, 0) == ["Y1"]
    assert ENGINE.active_seats(state) == [2]


def test_oc_5_2_catch_with_nothing_to_catch_is_refused() -> None:
    """OC-5.2: a catch when there is nothing to catch is rejected and changes nothing."""
    state = position(["R1 Y1 Y2", "R3 G4", "R5 G6"], "R9")
    refused(state, 2, catch_move(0), "OC-5.2")
    play(state, 0, "R1")  # leaves two cards
    refused(state, 2, catch_move(0), "OC-5.2")
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9")
    play(state, 0, "R1")
    refused(state, 2, catch_move(1), "OC-5.2")  # seat 1 has nothing to catch


def test_oc_5_2_no_catching_oneself() -> None:
    """OC-5.2: "any other player": the uncalled seat cannot catch itself (it may call)."""
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9")
    play(state, 0, "R1")
    refused(state, 0, catch_move(0), "OC-5.2")


def test_oc_5_2_forced_draw_waits_while_a_catch_is_possible() -> None:
    """OC-5.2 / C-6 Decision: when the next player can only draw, the automatic draw waits
    until the window is closed (by a call, a catch, or that player drawing), so a missed call
    can still be caught."""
    state = position(["R1 Y1", "G3 G4", "R5 G6"], "R9", draw="B1 B2 B3 B4")
    events = play(state, 0, "R1")
    assert not of_kind(events, "drew")
    assert ENGINE.legal_moves(state, 1) == [DRAW, catch_move(0)]
    events = ENGINE.apply(state, 2, catch_move(0))
    # the catch closes the window; then seat 1's forced draw happens at once
    assert [(d.seat, d.reason) for d in of_kind(events, "drew")] == [
        (0, Event.DRAW_REASON_CAUGHT),
        (1, Event.DRAW_REASON_NO_PLAY),
    ]
    assert state.current_seat == 2


def test_oc_5_2_next_player_drawing_closes_the_window() -> None:
    """OC-5.2: the next player's draw is their move: the window closes."""
    state = position(["R1 Y1", "G3 G4", "R5 G6"], "R9", draw="B1 B2 B3 B4")
    play(state, 0, "R1")
    draw(state, 1)
    assert not state.HasField("catchable_seat")
    assert hand(state, 0) == ["Y1"]


def test_oc_5_2_jump_to_one_card_with_two_players() -> None:
    """OC-5.2: with two players a Jump makes its player the next player: the window stays
    open until that player's own next move (the other may catch meanwhile)."""
    state = position(["RJ R1", "G3 G4"], "R9")
    play(state, 0, "RJ")
    assert state.current_seat == 0 and state.catchable_seat == 0
    assert ENGINE.legal_moves(state, 1) == [catch_move(0)]
    assert set(ENGINE.active_seats(state)) == {0, 1}
    play(state, 0, "R1")  # wins: the last card
    assert state.over


def test_oc_5_2_quatran_pair_leaving_one_card_must_be_called() -> None:
    """OC-5.1 applies to the two-card Quatran answer as well."""
    state = position(["Y1 Y2", "B3 B7 G4", "Y5 W"], "Q", named="B", quatran=True, current=1)
    assert play_move("B3 B7", call=True) in ENGINE.legal_moves(state, 1)
    play(state, 1, "B3 B7")
    assert state.catchable_seat == 1
