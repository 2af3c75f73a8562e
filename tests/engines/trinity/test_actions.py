"""TR-3: a turn is one action (place, use or discard two), then drawing 2."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import MalformedMove
from croupier.engines.trinity import ENGINE
from croupier.engines.trinity.cards import name
from croupier.v1.trinity_pb2 import (
    TRINITY_STEP_ACTION,
    TRINITY_STEP_DISCARD,
    TRINITY_STEP_SUIT_EFFECT,
    TrinityMove,
)
from tests.engines.helpers import kinds
from tests.engines.trinity.helpers import (
    c,
    discard,
    discard_two,
    hand,
    place,
    play,
    position,
    refused,
    row,
    target,
    use,
)

JUNK = ["2♠", "3♠", "4♠", "5♠"]


def test_tr_3_1_rulebook_placement_example() -> None:
    """TR-3.1 (rulebook example): J1 = 9♥, J2 empty, J3 = Q♦; placing J♦ gives J1 = J♦,
    J2 = 9♥, J3 = Q♦ (the push stops at the first empty slot)."""
    state = position(
        hands=[["J♦", "2♣", *JUNK], ["6♣", "7♣"], ["8♣", "9♣"]],
        board={"J1": "9♥", "J3": "Q♦"},
    )
    events = play(state, 0, place("J♦"))
    assert row(state, "J") == ["J♦", "9♥", "Q♦", "·"]
    placed = events[0].for_seat(None)
    assert placed is not None
    assert placed.placed.card == c("J♦")
    assert placed.placed.pushed_off == 0
    assert state.step == TRINITY_STEP_DISCARD
    # Then one other hand card is discarded and the turn ends with the draw.
    events = play(state, 0, discard("2♣"))
    assert list(state.discard_pile) == [c("2♣")]
    assert kinds(events) == ["discarded", "drew", "turn_began"]
    assert ENGINE.active_seats(state) == [1]


def test_tr_3_1_push_stops_at_first_empty_slot_cards_beyond_stay() -> None:
    """TR-3.1: cards beyond the first empty slot do not move."""
    state = position(
        hands=[["K♣", *JUNK, "6♠"], ["6♣", "7♣"], ["8♣", "9♣"]], board={"J2": "7♦", "J4": "8♦"}
    )
    play(state, 0, place("K♣"))
    assert row(state, "J") == ["K♣", "7♦", "·", "8♦"]


def test_tr_3_1_card_pushed_out_of_slot_4_is_discarded() -> None:
    """TR-3.1: a card pushed out of slot 4 is discarded."""
    state = position(
        hands=[["J♠", *JUNK[:1], "6♠"], ["6♣", "7♣"], ["8♣", "9♣"]],
        board={"J1": "7♦", "J2": "8♦", "J3": "9♦", "J4": "10♦"},
    )
    events = play(state, 0, place("J♠"))
    assert row(state, "J") == ["J♠", "7♦", "8♦", "9♦"]
    assert list(state.discard_pile) == [c("10♦")]
    placed = events[0].for_seat(None)
    assert placed is not None
    assert placed.placed.pushed_off == c("10♦")


def test_tr_3_1_any_card_may_be_placed() -> None:
    """TR-3.1: any card may be placed, not only the row's rank (a joker, a 7, a King in J)."""
    for card in ("colour joker", "7♣", "K♥"):
        state = position(hands=[[card, "2♠"], ["6♣", "7♦"], ["8♣", "9♣"]])
        assert place(card) in ENGINE.legal_moves(state, 0)
        play(state, 0, place(card))
        assert row(state, "J")[0] == card


def test_tr_3_1_discard_must_be_another_hand_card() -> None:
    """TR-3.1: after placing, discard one *other* hand card (the placed one is gone)."""
    state = position(hands=[["J♦", "2♣", *JUNK], ["6♣", "7♣"], ["8♣", "9♣"]])
    refused(state, 0, place("Q♦"), "TR-3.1")  # not in hand
    play(state, 0, place("J♦"))
    refused(state, 0, discard("J♦"), "TR-3.1")
    refused(state, 0, place("2♣"), "TR-3.1")  # one action per turn
    assert {name(m.discard.card) for m in ENGINE.legal_moves(state, 0)} == {"2♣", *JUNK}


def test_tr_3_1_last_card_discard_is_automatic() -> None:
    """TR-3.1 with C-6: when one card is left after placing, its discard is forced and made
    for the player."""
    state = position(hands=[["J♦", "2♣"], ["6♣", "7♣"], ["8♣", "9♣"]], deck=["A♠", "A♥"])
    events = play(state, 0, place("J♦"))
    assert kinds(events) == ["placed", "discarded", "drew", "turn_began"]
    assert hand(state, 0) == ["A♠", "A♥"]


def test_tr_3_2_use_and_discard() -> None:
    """TR-3.2: use one hand card's effect, then discard one other hand card; the used card
    goes to the discard pile."""
    state = position(
        hands=[["5♣", "2♦", "3♦", "4♦"], ["6♣", "7♣"], ["8♣", "9♣"]],
        board={"J1": "7♠", "J2": "8♠"},
    )
    events = play(state, 0, use("5♣"))
    assert kinds(events) == ["used"]
    assert state.step == TRINITY_STEP_SUIT_EFFECT
    assert list(state.discard_pile) == [c("5♣")]
    play(state, 0, target(2))
    assert row(state, "J") == ["7♠", "·", "·", "·"]
    assert state.step == TRINITY_STEP_DISCARD
    refused(state, 0, discard("5♣"), "TR-3.2")
    play(state, 0, discard("3♦"))
    assert [name(x) for x in state.discard_pile] == ["5♣", "8♠", "3♦"]
    assert state.step == TRINITY_STEP_ACTION
    assert ENGINE.active_seats(state) == [1]


def test_tr_3_3_discard_two() -> None:
    """TR-3.3: discard two hand cards (a pass), in the order chosen; then draw."""
    state = position(
        hands=[["5♣", "2♦", "3♦", "4♦"], ["6♣", "7♣"], ["8♣", "9♣"]], deck=["A♠", "A♥", "A♦"]
    )
    play(state, 0, discard_two("3♦"))
    assert state.step == TRINITY_STEP_DISCARD
    refused(state, 0, discard("3♦"), "TR-3.3")
    play(state, 0, discard("5♣"))
    assert [name(x) for x in state.discard_pile] == ["3♦", "5♣"]
    assert hand(state, 0) == ["2♦", "4♦", "A♠", "A♥"]
    assert ENGINE.active_seats(state) == [1]


def test_tr_3_draw_two_fewer_at_the_end_no_reshuffle() -> None:
    """TR-3: after the action draw 2 (as many as are left); the discard pile is never
    reshuffled."""
    state = position(hands=[["2♦", "3♦"], ["6♣", "7♣"], ["8♣", "9♣"]], deck=["A♠"])
    events = play(state, 0, discard_two("2♦"))
    assert hand(state, 0) == ["A♠"]
    drew = [e for e in events if e.for_seat(None) and kinds([e]) == ["drew"]]
    assert drew[0].for_seat(None) is not None
    public = drew[0].for_seat(None)
    assert public is not None
    assert public.drew.count == 1
    assert list(public.drew.cards) == []
    own = drew[0].for_seat(0)
    assert own is not None
    assert list(own.drew.cards) == [c("A♠")]
    assert len(state.deck) == 0
    play(state, 1, discard_two("6♣"))
    assert hand(state, 1) == []
    assert len(state.deck) == 0
    assert len(state.discard_pile) == 4


def test_tr_3_4_effect_without_target_cannot_be_used() -> None:
    """TR-3.4: an effect with no valid target cannot be used."""
    state = position(
        hands=[["5♦", "5♥", "5♣", "5♠", "10♦", "A♦"], ["6♣", "7♣"], ["8♣", "9♣"]],
    )
    # Empty row: ♦ ♥ ♣ have no target; ♠ can reveal; 10/A cannot swap with an empty board.
    for card in ("5♦", "5♥", "5♣", "10♦", "A♦"):
        refused(state, 0, use(card), "TR-3.4")
    assert use("5♠") in ENGINE.legal_moves(state, 0)
    # One card in the row: ♣ can discard it, ♦ and ♥ still cannot move it anywhere.
    state.board[0] = c("7♠")
    assert use("5♣") in ENGINE.legal_moves(state, 0)
    refused(state, 0, use("5♦"), "TR-3.4")
    refused(state, 0, use("5♥"), "TR-3.4")


def test_tr_3_4_every_action_needs_its_hand_cards() -> None:
    """TR-3.4: every action needs the hand cards it consumes (a lone card can be neither
    placed nor used nor passed, as another card must follow it)."""
    state = position(hands=[["5♠"], ["6♣", "7♣"], ["8♣", "9♣"]], board={"J1": "7♦"})
    refused(state, 0, place("5♠"), "TR-3.4")
    refused(state, 0, discard_two("5♠"), "TR-3.4")
    refused(state, 0, use("5♠"), "TR-3.4")
    assert ENGINE.legal_moves(state, 0) == []


def test_tr_3_4_spade_needs_a_card_to_reveal_and_one_to_discard() -> None:
    """TR-3.4 with TR-4.4: a ♠ with one other card cannot be used (that card must be
    discarded, so nothing can stay revealed in hand)."""
    state = position(hands=[["5♠", "2♦"], ["6♣", "7♣"], ["8♣", "9♣"]])
    refused(state, 0, use("5♠"), "TR-3.4")
    state = position(
        hands=[["5♠", "2♦", "3♦", "4♦"], ["6♣", "7♣"], ["8♣", "9♣"]],
        revealed={0: ["2♦", "3♦", "4♦"]},
    )
    refused(state, 0, use("5♠"), "TR-3.4")  # everything else is revealed already


def test_tr_3_5_empty_hand_skips_turn() -> None:
    """TR-3.5: a player with no cards in hand skips their turn (and draws nothing)."""
    state = position(hands=[["2♦", "3♦"], [], ["8♣", "9♣"]], deck=[])
    events = play(state, 0, discard_two("2♦"))
    assert kinds(events) == ["discarded", "discarded", "turn_skipped", "turn_began"]
    skipped = events[2].for_seat(None)
    assert skipped is not None
    assert skipped.turn_skipped.seat == 1
    assert ENGINE.active_seats(state) == [2]
    assert hand(state, 1) == []


def test_c_5_only_the_player_to_act_may_move() -> None:
    """C-5: another seat's move is refused (and a finished game accepts none)."""
    state = position(hands=[["2♦", "3♦"], ["6♣", "7♣"], ["8♣", "9♣"]])
    refused(state, 1, discard_two("6♣"), "C-5")
    assert ENGINE.legal_moves(state, 1) == []


def test_malformed_moves() -> None:
    """A move that is not a Trinity move at all is malformed, not illegal."""
    state = position(hands=[["2♦", "3♦"], ["6♣", "7♣"], ["8♣", "9♣"]])
    bad = [
        TrinityMove(),
        TrinityMove(place=TrinityMove.Place(card=0)),
        TrinityMove(use=TrinityMove.Use(card=55)),
        TrinityMove(target_slot=TrinityMove.TargetSlot(slot=5)),
        TrinityMove(swap=TrinityMove.Swap(own_slot=1, other_row=0, other_slot=1)),  # type: ignore[arg-type]
        TrinityMove(swap=TrinityMove.Swap(own_slot=0, other_row=1, other_slot=1)),  # type: ignore[arg-type]
        TrinityMove(swap=TrinityMove.Swap(own_slot=1, other_row=2, other_slot=9)),  # type: ignore[arg-type]
    ]
    before = state.SerializeToString(deterministic=True)
    for move in bad:
        with pytest.raises(MalformedMove):
            ENGINE.apply(state, 0, move)
    assert state.SerializeToString(deterministic=True) == before
