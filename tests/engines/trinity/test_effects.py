"""TR-4: the card effects (suits, the 10's and the A's swaps, the jokers' gifts)."""

from __future__ import annotations

from croupier.engines.trinity import ENGINE
from croupier.engines.trinity.cards import name
from croupier.v1.trinity_pb2 import (
    TRINITY_STEP_ACTION,
    TRINITY_STEP_DISCARD,
    TRINITY_STEP_GIFT_DISCARD,
    TRINITY_STEP_SUIT_EFFECT,
    TRINITY_STEP_SWAP,
)
from tests.engines.helpers import kinds
from tests.engines.trinity.helpers import (
    c,
    discard,
    give,
    hand,
    place,
    play,
    position,
    refused,
    reveal,
    row,
    skip,
    swap,
    target,
    use,
)

OTHERS = [["6♣", "7♣"], ["8♣", "9♣"]]
FULL_BOARD = {
    **{f"J{i}": card for i, card in enumerate(["2♥", "3♥", "4♥", "5♥"], 1)},
    **{f"Q{i}": card for i, card in enumerate(["2♦", "3♦", "4♦", "5♦"], 1)},
    **{f"K{i}": card for i, card in enumerate(["6♦", "7♦", "8♦", "9♦"], 1)},
}


def test_tr_4_1_diamond_rulebook_example() -> None:
    """TR-4.1: ♦ moves a card of your own row to the rightmost occupied slot; the cards
    between slide left, empty slots included: [J♦, _, 7♣, K♠] moving J♦ gives
    [_, 7♣, K♠, J♦]."""
    state = position(
        hands=[["2♦", "3♠", "4♠"], *OTHERS], board={"J1": "J♦", "J3": "7♣", "J4": "K♠"}
    )
    play(state, 0, use("2♦"))
    assert {m.target_slot.slot for m in ENGINE.legal_moves(state, 0)} == {1, 3}
    events = play(state, 0, target(1))
    assert row(state, "J") == ["·", "7♣", "K♠", "J♦"]
    moved = events[0].for_seat(None)
    assert moved is not None
    assert (moved.moved.from_slot, moved.moved.to_slot) == (1, 4)
    assert state.step == TRINITY_STEP_DISCARD


def test_tr_4_1_diamond_destination_is_rightmost_occupied_slot() -> None:
    """TR-4.1: "cannot move into an empty slot": the destination is the rightmost occupied
    slot; an empty slot is no target."""
    state = position(
        hands=[["2♦", "3♠", "4♠"], *OTHERS], board={"J1": "J♦", "J2": "7♣", "J4": "K♠"}
    )
    play(state, 0, use("2♦"))
    refused(state, 0, target(3), "TR-4.1")
    play(state, 0, target(1))
    assert row(state, "J") == ["7♣", "·", "K♠", "J♦"]


def test_tr_4_2_heart_mirror_image() -> None:
    """TR-4.2: ♥ moves a card of your own row to the leftmost occupied slot; the cards between
    slide right."""
    state = position(
        hands=[["2♥", "3♠", "4♠"], *OTHERS], board={"J2": "7♣", "J3": "8♣", "J4": "K♠"}
    )
    play(state, 0, use("2♥"))
    assert {m.target_slot.slot for m in ENGINE.legal_moves(state, 0)} == {3, 4}
    play(state, 0, target(4))
    assert row(state, "J") == ["·", "K♠", "7♣", "8♣"]


def test_tr_4_2_a_move_that_changes_nothing_is_no_effect() -> None:
    """TR-4.2: for ♦ and ♥ the chosen card must not already be in the destination slot."""
    board = {"J1": "7♣", "J3": "8♣", "J4": "9♣"}
    state = position(hands=[["2♥", "3♠", "4♠"], *OTHERS], board=board)
    play(state, 0, use("2♥"))
    refused(state, 0, target(1), "TR-4.2")
    state = position(hands=[["2♦", "3♠", "4♠"], *OTHERS], board=board)
    play(state, 0, use("2♦"))
    refused(state, 0, target(4), "TR-4.2")


def test_tr_4_3_club_discards_a_card_of_own_row() -> None:
    """TR-4.3: ♣ discards one card from your own row; its slot stays empty."""
    state = position(
        hands=[["2♣", "3♠", "4♠"], *OTHERS], board={"J1": "7♦", "J2": "8♦", "J3": "9♦"}
    )
    play(state, 0, use("2♣"))
    refused(state, 0, target(4), "TR-4.3")
    events = play(state, 0, target(2))
    assert row(state, "J") == ["7♦", "·", "9♦", "·"]
    assert [name(x) for x in state.discard_pile] == ["2♣", "8♦"]
    assert kinds(events) == ["row_card_discarded"]


def test_tr_4_4_spade_reveals_a_hand_card() -> None:
    """TR-4.4: ♠ reveals a hand card that stays in hand after this action (not the Spade
    itself, not the card then discarded), not revealed already; it stays revealed while in
    that hand."""
    state = position(hands=[["2♠", "J♦", "3♥", "4♥"], *OTHERS], deck=["9♥", "9♦", "9♣"])
    play(state, 0, use("2♠"))
    refused(state, 0, reveal("2♠"), "TR-4.4")  # the Spade is no longer in hand
    refused(state, 0, target(1), "TR-4.4")
    assert {name(m.reveal.card) for m in ENGINE.legal_moves(state, 0)} == {"J♦", "3♥", "4♥"}
    events = play(state, 0, reveal("J♦"))
    public = events[0].for_seat(None)
    assert public is not None
    assert public.revealed.card == c("J♦")
    refused(state, 0, discard("J♦"), "TR-4.4")
    play(state, 0, discard("3♥"))
    for viewer in (None, 0, 1, 2):
        assert list(ENGINE.view(state, viewer).seats[0].revealed) == [c("J♦")]
    # Still revealed on later turns, and not revealable twice.
    state.turn = 0  # (a later turn of the same player)
    state.hands[0].cards.append(c("5♠"))
    play(state, 0, use("5♠"))
    refused(state, 0, reveal("J♦"), "TR-4.4")
    play(state, 0, reveal("4♥"))
    assert [name(x) for x in state.hands[0].revealed] == ["J♦", "4♥"]


def test_tr_4_4_revealed_card_stops_being_revealed_when_it_leaves_the_hand() -> None:
    """TR-4.4: revealed "while in that hand": placing it ends the reveal."""
    state = position(hands=[["J♦", "3♥", "4♥", "5♥"], *OTHERS], revealed={0: ["J♦", "5♥"]})
    play(state, 0, place("J♦"), discard("5♥"))
    assert list(state.hands[0].revealed) == []
    assert list(ENGINE.view(state, None).seats[0].revealed) == []


def test_tr_4_5_ten_swaps_same_slot_number() -> None:
    """TR-4.5: a 10 swaps a card of your row with the card in the same slot number of another
    player's row (J2 with Q2 or K2); both slots must hold a card."""
    state = position(
        hands=[["10♠", "3♥", "4♥", "5♥"], *OTHERS],
        board={"J1": "Q♠", "J2": "8♠", "Q1": "J♣", "Q2": "9♣", "K3": "K♦"},
    )
    play(state, 0, use("10♠"), reveal("3♥"))
    assert state.step == TRINITY_STEP_SWAP
    listed = {
        (m.swap.own_slot, m.swap.other_row, m.swap.other_slot)
        for m in ENGINE.legal_moves(state, 0)
        if m.HasField("swap")
    }
    assert listed == {(1, 2, 1), (2, 2, 2)}
    refused(state, 0, swap(1, "Q2"), "TR-4.5")  # different slot numbers
    refused(state, 0, swap(3, "K3"), "TR-4.5")  # J3 is empty
    refused(state, 0, swap(1, "K1"), "TR-4.5")  # K1 is empty
    refused(state, 0, swap(1, "J2"), "TR-4.5")  # own row
    events = play(state, 0, swap(1, "Q1"))
    assert row(state, "J")[:2] == ["J♣", "8♠"]
    assert row(state, "Q")[:2] == ["Q♠", "9♣"]
    swapped = events[0].for_seat(None)
    assert swapped is not None
    assert (swapped.swapped.own_card, swapped.swapped.other_card) == (c("Q♠"), c("J♣"))
    assert state.step == TRINITY_STEP_DISCARD


def test_tr_4_6_ace_swaps_any_two_cards_listing_complete() -> None:
    """TR-4.6: an A swaps any card of your row with any card of another player's row; both
    slots must hold a card. The listing holds every such swap, once."""
    state = position(hands=[["A♣", "3♥", "4♥"], *OTHERS], board=FULL_BOARD, turn=1)
    state.hands[1].cards[:] = [c("A♣"), c("3♥"), c("4♥")]
    state.hands[0].cards[:] = [c("6♣"), c("7♣")]
    play(state, 1, use("A♣"), target(2))  # ♣: discard Q2
    moves = ENGINE.legal_moves(state, 1)
    swaps = {
        (m.swap.own_slot, m.swap.other_row, m.swap.other_slot) for m in moves if m.HasField("swap")
    }
    expected = {(own, r, o) for own in (1, 3, 4) for r in (1, 3) for o in (1, 2, 3, 4)}
    assert swaps == expected
    assert len(moves) == len(expected) + 1  # and skip
    refused(state, 1, swap(2, "J1"), "TR-4.6")  # Q2 is empty now
    play(state, 1, swap(4, "K1"))
    assert row(state, "Q")[3] == "6♦"
    assert row(state, "K")[0] == "5♦"


def test_tr_4_7_effects_optional_at_least_one() -> None:
    """TR-4.7: a 10 or an A gives its suit effect and then its special effect, each optional;
    at least one must be carried out."""
    board = {"J1": "Q♠", "J2": "8♠", "Q1": "J♣"}
    # Suit effect, then skip the swap.
    state = position(hands=[["A♦", "3♥", "4♥"], *OTHERS], board=board)
    play(state, 0, use("A♦"), target(1), skip())
    assert row(state, "J")[:2] == ["8♠", "Q♠"]
    assert state.step == TRINITY_STEP_DISCARD
    # Skip the suit effect: then the swap must be made.
    state = position(hands=[["A♦", "3♥", "4♥"], *OTHERS], board=board)
    events = play(state, 0, use("A♦"), skip())
    assert kinds(events)[-1] == "skipped"
    assert state.step == TRINITY_STEP_SWAP
    refused(state, 0, skip(), "TR-4.7")
    play(state, 0, swap(2, "Q1"))
    assert row(state, "J")[:2] == ["Q♠", "J♣"]
    # Both.
    state = position(hands=[["A♦", "3♥", "4♥"], *OTHERS], board=board)
    play(state, 0, use("A♦"), target(1), swap(1, "Q1"))
    assert row(state, "J")[:2] == ["J♣", "Q♠"]
    assert row(state, "Q")[0] == "8♠"


def test_tr_4_7_suit_effect_may_not_be_skipped_when_the_swap_is_impossible() -> None:
    """TR-4.7 / TR-3.4: skipping the suit effect is only legal when the swap can follow; the
    swap that became impossible is skipped automatically (C-6)."""
    board = {"J1": "8♠", "J3": "9♠", "Q2": "J♣"}
    state = position(hands=[["10♣", "3♥", "4♥"], *OTHERS], board=board)
    play(state, 0, use("10♣"))
    refused(state, 0, skip(), "TR-4.7")
    events = play(state, 0, target(1))
    assert kinds(events) == ["row_card_discarded", "skipped"]
    assert state.step == TRINITY_STEP_DISCARD


def test_tr_4_7_impossible_suit_effect_is_skipped_automatically() -> None:
    """TR-4.7 with C-6: a 10 whose suit effect has no target goes straight to its swap."""
    board = {"J2": "8♠", "Q2": "Q♣", "K2": "K♣"}
    state = position(hands=[["10♦", "3♥", "4♥"], *OTHERS], board=board)
    events = play(state, 0, use("10♦"))
    assert kinds(events) == ["used", "skipped"]
    assert state.step == TRINITY_STEP_SWAP
    assert [m.WhichOneof("kind") for m in ENGINE.legal_moves(state, 0)] == ["swap", "swap"]
    play(state, 0, swap(2, "K2"))
    assert row(state, "J")[1] == "K♣"


def test_tr_4_7_only_a_ten_or_an_ace_may_skip() -> None:
    """TR-4.7: a plain card's suit effect is not optional."""
    board = {"J1": "8♠", "J2": "9♠", "J3": "10♠"}
    state = position(hands=[["5♦", "3♥", "4♥"], *OTHERS], board=board)
    play(state, 0, use("5♦"))
    assert state.step == TRINITY_STEP_SUIT_EFFECT
    refused(state, 0, skip(), "TR-4.7")


def test_tr_4_8_colour_joker_gives_to_the_right() -> None:
    """TR-4.8: the colour joker gives a hand card to the player on the right, who must then
    discard another card, out of turn; the giver discards nothing more and draws 2 once that
    discard is made."""
    state = position(
        hands=[["colour joker", "J♣", "3♥"], ["6♣", "7♣"], ["8♣", "9♣"]],
        deck=["A♠", "A♥", "A♦"],
    )
    play(state, 0, use("colour joker"))
    events = play(state, 0, give("J♣"))
    assert state.step == TRINITY_STEP_GIFT_DISCARD
    assert ENGINE.active_seats(state) == [2]  # right of seat 0 (C-1)
    public = events[0].for_seat(None)
    assert public is not None
    assert public.gave.card == 0
    for seat in (0, 2):
        own = events[0].for_seat(seat)
        assert own is not None
        assert own.gave.card == c("J♣")
    bystander = events[0].for_seat(1)
    assert bystander is not None
    assert bystander.gave.card == 0
    assert ENGINE.view(state, 2).gift_card == c("J♣")
    assert ENGINE.view(state, 1).gift_card == 0
    assert ENGINE.view(state, None).gift_receiver == 2
    refused(state, 0, discard("3♥"), "C-5")
    refused(state, 2, discard("J♣"), "TR-4.8")
    events = play(state, 2, discard("8♣"))
    assert kinds(events) == ["discarded", "drew", "turn_began"]
    assert hand(state, 2) == ["9♣", "J♣"]
    assert hand(state, 0) == ["3♥", "A♠", "A♥"]
    assert [name(x) for x in state.discard_pile] == ["colour joker", "8♣"]
    assert ENGINE.active_seats(state) == [1]
    assert state.step == TRINITY_STEP_ACTION


def test_tr_4_8_receiver_with_no_other_card_discards_the_received_one() -> None:
    """TR-4.8: if the receiver has no other card, they discard the received one (forced, so
    made for them, C-6)."""
    state = position(hands=[["colour joker", "J♣", "3♥"], ["6♣", "7♣"], []], deck=[])
    events = play(state, 0, use("colour joker"), give("J♣"))
    assert kinds(events) == ["used", "gave", "discarded", "turn_began"]
    assert hand(state, 2) == []
    assert name(state.discard_pile[-1]) == "J♣"
    assert ENGINE.active_seats(state) == [1]


def test_tr_4_9_black_and_white_joker_gives_to_the_left() -> None:
    """TR-4.9: the black-and-white joker does the same, to the player on the left."""
    state = position(hands=[["black-and-white joker", "J♣", "3♥"], ["6♣", "7♣"], ["8♣", "9♣"]])
    play(state, 0, use("black-and-white joker"), give("3♥"))
    assert ENGINE.active_seats(state) == [1]  # left of seat 0 (C-1)
    refused(state, 1, discard("3♥"), "TR-4.8")
    play(state, 1, discard("7♣"))
    assert hand(state, 1) == ["6♣", "3♥"]
    assert hand(state, 0)[0] == "J♣"
    assert ENGINE.active_seats(state) == [1]  # the Q player's own turn follows


def test_tr_4_8_last_card_gift_is_automatic() -> None:
    """TR-4.8 with C-6: a joker with one other card gives that card without asking."""
    state = position(hands=[["colour joker", "J♣"], ["6♣", "7♣"], ["8♣", "9♣"]])
    events = play(state, 0, use("colour joker"))
    assert kinds(events) == ["used", "gave"]
    assert ENGINE.active_seats(state) == [2]
