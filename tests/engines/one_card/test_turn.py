"""OC-3: a turn — matching, drawing, reshuffling, the active colour, and OC-3.5."""

from __future__ import annotations

from croupier.engines.one_card import ENGINE
from croupier.v1.one_card_pb2 import OneCardEvent
from tests.engines.helpers import of_kind

from .helpers import (
    DRAW,
    draw,
    hand,
    pile,
    play,
    play_move,
    position,
    refused,
    top,
)

Reason = OneCardEvent.DrawReason


def test_oc_3_1_match_by_colour() -> None:
    """OC-3.1: discard one card that matches the top of the discard pile by colour."""
    state = position(["R2 B9 Y1", "G1 G2"], "R5")
    play(state, 0, "R2")
    assert top(state) == "R2" and hand(state, 0) == ["B9", "Y1"]
    assert state.current_seat == 1


def test_oc_3_1_match_by_number() -> None:
    """OC-3.1: discard one card that matches the top by number."""
    state = position(["B5 Y1", "G1 G2"], "R5")
    play(state, 0, "B5")
    assert top(state) == "B5"


def test_oc_3_1_match_by_function() -> None:
    """OC-3.1: discard one card that matches the top by function (the same special type)."""
    state = position(["BJ Y1", "G1 G2 G3"], "RJ")
    play(state, 0, "BJ")
    assert top(state) == "BJ"


def test_oc_3_1_no_match_is_refused() -> None:
    """OC-3.1: a card matching neither colour, number nor function is refused."""
    state = position(["B4 Y1", "G1 G2"], "R5")
    refused(state, 0, play_move("B4"), "OC-3.1")


def test_oc_3_1_a_card_not_in_hand_is_refused() -> None:
    """OC-3.1: only a card from one's own hand can be discarded."""
    state = position(["B4 Y1", "R1 G2"], "R5")
    refused(state, 0, play_move("R1"), "OC-3.1")


def test_oc_3_1_one_card_per_discard() -> None:
    """OC-3.1: one card per turn (two only answer a Quatran, OC-4.7)."""
    state = position(["R1 R2 Y1", "G2"], "R5")
    refused(state, 0, play_move("R1 R2"), "OC-4.7")


def test_oc_3_2_voluntary_draw_even_when_a_card_could_be_discarded() -> None:
    """OC-3.2: drawing is allowed even when a card could be discarded; the turn ends and the
    drawn card is not played this turn."""
    state = position(["R1 Y1", "R7 G2"], "R5", draw="R9 B2 B3")
    assert DRAW in ENGINE.legal_moves(state, 0)
    events = draw(state, 0)
    drew = of_kind(events, "drew", 0)[0]
    assert (drew.count, drew.reason, drew.automatic) == (1, Reason.DRAW_REASON_CHOSEN, False)
    assert hand(state, 0) == ["R1", "Y1", "R9"]
    assert state.current_seat == 1


def test_oc_3_2_draw_when_no_card_can_be_discarded_is_automatic() -> None:
    """OC-3.2 / C-6: a player who cannot discard draws one card and the turn ends; the engine
    does it at once (the seat is not asked to confirm what it cannot change)."""
    state = position(["R1 Y1 Y2", "G3 G2", "B7 B1"], "R5", draw="Y9 B2 B3")
    events = play(state, 0, "R1")
    # seat 1 holds no red and no 1: it draws by itself; seat 2 may play B1 on R1
    drew = of_kind(events, "drew", 1)[0]
    assert (drew.seat, drew.count, drew.reason, drew.automatic) == (
        1,
        1,
        Reason.DRAW_REASON_NO_PLAY,
        True,
    )
    assert hand(state, 1) == ["G3", "G2", "Y9"]
    assert state.current_seat == 2


def test_oc_3_2_drawn_cards_are_private() -> None:
    """OC-3.2 / OC-7: the cards another player draws are seen only by that player."""
    state = position(["R1 Y1", "G1 G2", "B7"], "R5", draw="R9 B2 B3")
    events = draw(state, 0)
    assert [c.number for c in of_kind(events, "drew", 0)[0].cards] == [9]
    assert not of_kind(events, "drew", 1)[0].cards
    assert not of_kind(events, "drew", None)[0].cards
    assert of_kind(events, "drew", None)[0].count == 1


def test_oc_3_3_reshuffle_when_the_draw_pile_is_empty() -> None:
    """OC-3.3: when the draw pile is empty, all of the discard pile but its top card is
    shuffled into a new draw pile."""
    state = position(["R1 Y1", "R7 G2"], "R5", under="B1 B2 B3 Y4")
    events = draw(state, 0)
    assert of_kind(events, "reshuffled")[0].draw_pile_size == 4
    assert top(state) == "R5" and len(state.discard_pile) == 1
    assert len(state.draw_pile) == 3
    assert sorted([*pile(state), hand(state, 0)[-1]]) == ["B1", "B2", "B3", "Y4"]


def test_oc_3_3_penalty_cut_short_when_nothing_is_left() -> None:
    """OC-3.3: if there is still nothing to draw, the rest of a penalty is skipped."""
    state = position(["R1", "G1 G2 B+2"], "R+2", under="Y4", draw="Y5", attack=2, current=1)
    events = draw(state, 1)
    drew = of_kind(events, "drew")[0]
    assert (drew.owed, drew.count) == (2, 2)
    state = position(["R1", "G1 G2 Y+3"], "R+2", draw="Y5", attack=5, current=1)
    events = draw(state, 1)
    drew = of_kind(events, "drew")[0]
    assert (drew.owed, drew.count, drew.reason) == (5, 1, Reason.DRAW_REASON_ATTACK)
    assert state.pending_attack == 0


def test_oc_3_4_active_colour_is_the_top_cards() -> None:
    """OC-3.4: the active colour is the top card's colour."""
    state = position(["R1 Y1", "G1 G2"], "Y5")
    assert ENGINE.view(state, None).active_color == 2  # yellow


def test_oc_3_4_active_colour_named_by_a_rainbow() -> None:
    """OC-3.4: ... or the colour named by the last Rainbow or Quatran while it is on top."""
    state = position(["R1 W G8", "G1 G2 Y4"], "Y5")
    play(state, 0, "W", color="G")
    view = ENGINE.view(state, None)
    assert view.active_color == 3  # green
    refused(state, 1, play_move("Y4"), "OC-3.1")
    play(state, 1, "G2")
    assert ENGINE.view(state, None).active_color == 3


def test_oc_3_5_must_discard_when_nothing_can_be_drawn() -> None:
    """OC-3.5: when nothing can be drawn (both piles exhausted), a player who can discard
    must discard."""
    state = position(["R1 Y1 Y2", "G1 G2"], "R5")
    refused(state, 0, DRAW, "OC-3.5")
    assert ENGINE.legal_moves(state, 0) == [play_move("R1")]


def test_oc_3_5_drawing_nothing_when_nothing_can_be_discarded() -> None:
    """OC-3.5 / OC-3.3: drawing is then allowed only to a player who cannot discard; the draw
    is skipped and the turn passes."""
    state = position(["G3 G2", "R1 W"], "R5")
    assert ENGINE.legal_moves(state, 0) == [DRAW]
    events = draw(state, 0)
    drew = of_kind(events, "drew")
    assert [(d.seat, d.count, d.owed) for d in drew] == [(0, 0, 1)]
    assert state.current_seat == 1


def test_oc_3_5_the_game_never_stalls() -> None:
    """OC-3.5: with both piles exhausted, automatic empty draws pass the turn to a seat that
    holds a Rainbow or Quatran, which must discard it."""
    state = position(["G3 G2 B4", "B1 B2", "Y1 Y2", "W Y9"], "R5", under="R6")
    events = draw(state, 0)
    # seat 0 drew R6 (reshuffle); seats 1 and 2 cannot play and nothing is left to draw
    assert [(d.seat, d.count) for d in of_kind(events, "drew")] == [(0, 1), (1, 0), (2, 0)]
    assert state.current_seat == 3
    assert DRAW not in ENGINE.legal_moves(state, 3)
