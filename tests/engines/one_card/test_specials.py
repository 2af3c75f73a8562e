"""OC-4: attacks and defence chains, Jump, U-turn, Rainbow and Quatran."""

from __future__ import annotations

from croupier.engines.one_card import ENGINE
from croupier.v1.one_card_pb2 import OneCardEvent
from tests.engines.helpers import of_kind

from .helpers import (
    DRAW,
    draw,
    hand,
    play,
    play_move,
    position,
    refused,
    top,
)

Event = OneCardEvent


# ---------------------------------------------------------------- OC-4.1 .. OC-4.3 attacks


def test_oc_4_1_plus_two_makes_the_next_player_draw_two() -> None:
    """OC-4.1: +2 attack: the next player draws 2 and their turn ends, unless they defend."""
    state = position(["R+2 Y1 Y2", "G3 G4 Y+2", "B5 W"], "R5", draw="B1 B2 B3 B4")
    events = play(state, 0, "R+2")
    assert state.pending_attack == 2 and state.current_seat == 1
    assert of_kind(events, "played")[0].attack_total == 2
    events = draw(state, 1)
    drew = of_kind(events, "drew", 1)[0]
    assert (drew.count, drew.reason) == (2, Event.DRAW_REASON_ATTACK)
    assert hand(state, 1) == ["G3", "G4", "Y+2", "B1", "B2"]
    assert state.pending_attack == 0 and state.current_seat == 2


def test_oc_4_1_plus_two_only_on_its_colour_or_on_a_plus_two() -> None:
    """OC-4.1: a +2 may be discarded only on a card of its colour or on a +2."""
    refused(position(["B+2 Y1 Y2", "G3"], "R5"), 0, play_move("B+2"), "OC-4.1")
    play(position(["B+2 Y1 Y2", "G3 G4"], "B5"), 0, "B+2")
    play(position(["B+2 Y1 Y2", "G3 G4"], "R+2"), 0, "B+2")
    # after a Rainbow naming blue, blue is the colour on top
    play(position(["B+2 Y1 Y2", "G3 G4"], "W", named="B"), 0, "B+2")
    # a +2 on a +3 of another colour is not "on a +2"
    refused(position(["B+2 Y1 Y2", "G3"], "R+3"), 0, play_move("B+2"), "OC-4.1")


def test_oc_4_2_plus_three_makes_the_next_player_draw_three() -> None:
    """OC-4.2: the same with 3 cards; only on its colour or on a +3."""
    state = position(["Y+3 Y1 Y2", "G3 G+3", "B5 W"], "Y5", draw="B1 B2 B3 B4")
    play(state, 0, "Y+3")
    events = draw(state, 1)
    assert of_kind(events, "drew")[0].count == 3
    refused(position(["Y+3 Y1 Y2", "G3"], "R5"), 0, play_move("Y+3"), "OC-4.2")
    play(position(["Y+3 Y1 Y2", "G3 G4"], "B+3"), 0, "Y+3")


def test_oc_4_3_defence_by_colour() -> None:
    """OC-4.3: a player facing an attack may discard an attack card of the same colour as the
    top attack card; the attack passes on, accumulated."""
    state = position(["Y1 Y2", "R+3 G4 G5", "B5 Y+3"], "R+2", attack=2, current=1)
    events = play(state, 1, "R+3")
    played = of_kind(events, "played")[0]
    assert (played.attack_total, played.defence) == (5, Event.DEFENCE_SAME_COLOR)
    assert state.pending_attack == 5 and state.current_seat == 2


def test_oc_4_3_defence_by_effect() -> None:
    """OC-4.3: ... or of the same effect (+2 on +2, +3 on +3, any colour)."""
    state = position(["Y1 Y2", "G+3 G4 G5", "B5 B+3"], "R+3", attack=3, current=1)
    events = play(state, 1, "G+3")
    played = of_kind(events, "played")[0]
    assert (played.attack_total, played.defence) == (6, Event.DEFENCE_SAME_EFFECT)


def test_oc_4_3_blue_plus_three_on_red_plus_two_is_refused() -> None:
    """OC-4.3: neither the same colour nor the same effect: a blue +3 cannot defend against a
    red +2."""
    state = position(["Y1 Y2", "B+3 G4 G5", "B5 B6"], "R+2", attack=2, current=1)
    error = refused(state, 1, play_move("B+3"), "OC-4.3")
    assert "colour" in error.message


def test_oc_4_3_facing_an_attack_nothing_else_can_be_played() -> None:
    """OC-4.3: facing an attack, a player can do nothing else (no number card, no Rainbow, no
    Quatran, no Jump)."""
    state = position(["Y1 Y2", "R9 W Q RJ R+2", "B5 B6"], "R+2", attack=2, current=1, draw="B1")
    refused(state, 1, play_move("R9"), "OC-4.3")
    refused(state, 1, play_move("W", color="R"), "OC-4.3")
    refused(state, 1, play_move("Q", color="R"), "OC-4.3")
    refused(state, 1, play_move("RJ"), "OC-4.3")
    assert ENGINE.legal_moves(state, 1) == [play_move("R+2"), DRAW]


def test_oc_4_3_not_defending_draws_the_whole_chain() -> None:
    """OC-4.3: a player who does not defend (even if they could) draws the total of all attack
    cards in the chain and their turn ends."""
    state = position(
        ["Y1 Y2", "R+2 G4", "B5 W"], "R+3", under="Y+3", attack=6, current=1, draw="B1 " * 8
    )
    events = draw(state, 1)
    assert of_kind(events, "drew")[0].count == 6
    assert state.pending_attack == 0 and state.current_seat == 2


def test_oc_4_3_a_player_who_cannot_defend_draws_automatically() -> None:
    """OC-4.3 / C-6: with no attack card to defend with, the penalty is drawn at once."""
    state = position(["R+2 Y1 Y2", "G3 G4", "B5 W"], "R5", draw="Y9 " * 5)
    events = play(state, 0, "R+2")
    drew = of_kind(events, "drew")[0]
    assert (drew.seat, drew.count, drew.automatic) == (1, 2, True)
    assert state.current_seat == 2 and state.pending_attack == 0


def test_oc_4_3_after_the_attack_the_card_stays_on_top() -> None:
    """OC-4.3: once the attack is taken, the attack card is an ordinary top card: its colour or
    another +2 follows, and no attack is pending any more."""
    state = position(["Y1 Y2", "G3 G4", "R5 B+2 Y7"], "R+2", attack=2, current=1, draw="Y9 " * 3)
    draw(state, 1)
    assert state.current_seat == 2
    legal = ENGINE.legal_moves(state, 2)
    assert play_move("R5") in legal and play_move("B+2") in legal
    assert play_move("Y7") not in legal


def test_oc_4_3_chain_can_come_back_to_the_attacker() -> None:
    """OC-4.3: defences may chain through any number of players, round the table."""
    state = position(["R+2 B+2 Y1", "Y+2 G4", "G+2 B6"], "R5", draw="Y9 " * 12)
    play(state, 0, "R+2")
    play(state, 1, "Y+2")
    play(state, 2, "G+2")
    assert state.current_seat == 0 and state.pending_attack == 6
    play(state, 0, "B+2")
    assert state.pending_attack == 8
    events = draw(state, 1)
    assert of_kind(events, "drew")[0].count == 8


# ---------------------------------------------------------------- OC-4.4 Jump


def test_oc_4_4_jump_skips_the_next_player() -> None:
    """OC-4.4: Jump: the next player is skipped."""
    state = position(["GJ Y1 Y2", "G3 G4", "G5 G6"], "G9")
    events = play(state, 0, "GJ")
    assert of_kind(events, "skipped")[0].seat == 1
    assert state.current_seat == 2


def test_oc_4_4_jump_only_on_its_colour_or_a_jump() -> None:
    """OC-4.4: only on its colour or on a Jump."""
    refused(position(["GJ Y1 Y2", "G3"], "R9"), 0, play_move("GJ"), "OC-4.4")
    play(position(["GJ Y1 Y2", "G3 G4"], "RJ"), 0, "GJ")


def test_oc_4_4_jump_with_two_players_plays_again() -> None:
    """OC-4.4: with two players, the other is skipped and the Jump's player plays again."""
    state = position(["GJ G1 Y2", "G3 G4"], "G9")
    play(state, 0, "GJ")
    assert state.current_seat == 0


def test_oc_4_4_jump_counter_clockwise() -> None:
    """OC-4.4: skipping follows the current direction."""
    state = position(["GJ Y1 Y2", "G3", "G5", "G7 G8"], "G9", counter_clockwise=True)
    play(state, 0, "GJ")
    assert state.current_seat == 2


# ---------------------------------------------------------------- OC-4.5 U-turn


def test_oc_4_5_u_turn_reverses_the_direction() -> None:
    """OC-4.5: U-turn: the direction of play reverses."""
    state = position(["BU Y1 Y2", "B3 B4", "B5 B6", "B7 B8"], "B9", current=1, under="Y9")
    state.hands[1].cards.append(state.hands[0].cards[0])
    events = play(state, 1, "BU")
    assert of_kind(events, "direction_changed")[0].clockwise is False
    assert state.current_seat == 0 and state.counter_clockwise
    play(state, 0, "BU")
    assert state.current_seat == 1 and not state.counter_clockwise


def test_oc_4_5_u_turn_only_on_its_colour_or_a_u_turn() -> None:
    """OC-4.5: only on its colour or on a U-turn."""
    refused(position(["BU Y1 Y2", "G3"], "R9"), 0, play_move("BU"), "OC-4.5")
    play(position(["BU Y1 Y2", "G3 G4"], "RU"), 0, "BU")


def test_oc_4_5_u_turn_with_two_players() -> None:
    """OC-4.5 Decision: with two players a U-turn changes nothing visible: the other player
    plays next (UNO's "reverse skips with two" is not in this rulebook)."""
    state = position(["BU Y1 Y2", "B3 B4"], "B9")
    play(state, 0, "BU")
    assert state.current_seat == 1 and state.counter_clockwise


# ---------------------------------------------------------------- OC-4.6 Rainbow


def test_oc_4_6_rainbow_on_any_card_names_a_colour() -> None:
    """OC-4.6: Rainbow may be discarded on any card; its player names the colour to continue
    with."""
    for top_card in ["R5", "B+2", "GJ", "YU", "Q", "W"]:
        state = position(["W Y1 Y2", "G3 G4"], top_card, named="R" if top_card in "QW" else "")
        events = play(state, 0, "W", color="G")
        assert of_kind(events, "played")[0].named_color == 3
        assert ENGINE.view(state, None).active_color == 3


def test_oc_4_6_rainbow_may_name_the_previous_colour() -> None:
    """OC-4.6: any colour, the previous one included."""
    state = position(["W Y1 Y2", "R3 G4"], "R5")
    assert len([m for m in ENGINE.legal_moves(state, 0) if m.play.cards[:1] == []]) == 0
    wild_moves = [
        m for m in ENGINE.legal_moves(state, 0) if m.play.cards and m.play.cards[0].type == 6
    ]
    assert sorted(m.play.color for m in wild_moves) == [1, 2, 3, 4]
    play(state, 0, "W", color="R")
    assert state.current_seat == 1


def test_oc_4_6_rainbow_must_name_a_colour() -> None:
    """OC-4.6: a Rainbow without a colour is not a complete move (malformed)."""
    import pytest

    from croupier.engines.core.errors import MalformedMove

    state = position(["W Y1 Y2", "R3 G4"], "R5")
    with pytest.raises(MalformedMove):
        ENGINE.apply(state, 0, play_move("W"))
    with pytest.raises(MalformedMove):
        ENGINE.apply(state, 0, play_move("Y1", color="Y"))


def test_oc_4_6_rainbow_cannot_answer_an_attack() -> None:
    """OC-4.6: except facing an attack (OC-4.3)."""
    refused(position(["Y1", "W G4"], "R+2", attack=2, current=1), 1, play_move("W", "R"), "OC-4.3")


# ---------------------------------------------------------------- OC-4.7 Quatran


def test_oc_4_7_quatran_demands_two_numbers_of_the_named_colour() -> None:
    """OC-4.7: Quatran: its player names a colour; the next player must discard exactly two
    number cards of that colour at once, as their whole turn, if they hold two."""
    state = position(["Q Y1 Y2", "B3 B7 B+2 G4", "B5 B6"], "R5")
    events = play(state, 0, "Q", color="B")
    assert state.quatran_pending and state.current_seat == 1
    assert ENGINE.view(state, None).quatran_color == 4
    assert of_kind(events, "played")[0].named_color == 4
    legal = ENGINE.legal_moves(state, 1)
    assert legal == [play_move("B3 B7"), play_move("B7 B3")]
    events = play(state, 1, "B7 B3")
    played = of_kind(events, "played")[0]
    assert played.quatran_answer and len(played.cards) == 2
    assert top(state) == "B3" and hand(state, 1) == ["B+2", "G4"]
    assert not state.quatran_pending and state.current_seat == 2


def test_oc_4_7_quatran_pair_of_the_wrong_colour_is_refused() -> None:
    """OC-4.7: the two cards must be number cards of the named colour."""
    state = position(["Y1 Y2", "B3 B7 G3 G4 B+2"], "Q", named="B", quatran=True, current=1)
    refused(state, 1, play_move("G3 G4"), "OC-4.7")
    refused(state, 1, play_move("B3 G3"), "OC-4.7")
    refused(state, 1, play_move("B3 B+2"), "OC-4.7")
    refused(state, 1, play_move("B3"), "OC-4.7")


def test_oc_4_7_quatran_obligation_forbids_drawing() -> None:
    """OC-4.7: holding two numbers of the colour, the player must discard them."""
    state = position(["Y1 Y2", "B3 B7 G3"], "Q", named="B", quatran=True, current=1)
    refused(state, 1, DRAW, "OC-4.7")


def test_oc_4_7_quatran_unanswerable_draws_two() -> None:
    """OC-4.7: otherwise they draw 2 and their turn ends (automatically, C-6)."""
    state = position(["Q Y1 Y2", "B3 G3 B+2", "Y5 W"], "R5", draw="R1 R2 R3")
    events = play(state, 0, "Q", color="B")
    drew = of_kind(events, "drew")[0]
    assert (drew.seat, drew.count, drew.reason, drew.automatic) == (
        1,
        2,
        Event.DRAW_REASON_QUATRAN,
        True,
    )
    assert state.current_seat == 2 and not state.quatran_pending


def test_oc_4_7_named_colour_stays_until_another_card() -> None:
    """OC-4.7: the named colour stays active until another card is discarded; only the next
    player is bound by the two-card obligation."""
    state = position(["Q Y1 Y2", "G3", "B5 Y6 B4 B8"], "R5", draw="R1 R2 R3")
    play(state, 0, "Q", color="B")
    assert state.current_seat == 2
    assert ENGINE.view(state, None).active_color == 4
    legal = ENGINE.legal_moves(state, 2)
    assert play_move("B5") in legal and play_move("Y6") not in legal
    assert play_move("B5 B4") not in legal


def test_oc_4_7_quatran_cannot_defend_and_attacks_cannot_answer_it() -> None:
    """OC-4.7: the Quatran cannot defend against attacks, and attacks cannot answer it."""
    refused(position(["Y1", "Q G4"], "R+2", attack=2, current=1), 1, play_move("Q", "R"), "OC-4.3")
    state = position(["Y1 Y2", "B+2 B+3 B1"], "Q", named="B", quatran=True, current=1, draw="Y3")
    refused(state, 1, play_move("B+2"), "OC-4.7")
    assert ENGINE.legal_moves(state, 1) == [DRAW]


def test_oc_4_7_quatran_on_any_card() -> None:
    """OC-4.7 Decision: like the Rainbow it has no colour and may be discarded on any card."""
    for top_card in ["R5", "B+2", "GJ", "YU"]:
        play(position(["Q Y1 Y2", "G3 G4 G5"], top_card), 0, "Q", color="Y")
