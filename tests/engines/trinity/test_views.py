"""TR-6 (what each seat sees) and the shape of the moves a frontend builds (one small list per
step)."""

from __future__ import annotations

from croupier.engines.trinity import ENGINE
from croupier.v1.trinity_pb2 import (
    TRINITY_ACTION_USE,
    TRINITY_STEP_GIFT_DISCARD,
    TRINITY_STEP_SWAP,
)
from tests.engines.trinity.helpers import (
    c,
    cards,
    discard,
    give,
    play,
    position,
    reveal,
    target,
    use,
)

BOARD = {
    **{f"J{i}": x for i, x in enumerate(["2♥", "3♥", "4♥", "5♥"], 1)},
    **{f"Q{i}": x for i, x in enumerate(["2♦", "3♦", "4♦", "5♦"], 1)},
    **{f"K{i}": x for i, x in enumerate(["6♦", "7♦", "8♦", "9♦"], 1)},
}


def test_tr_6_what_each_seat_sees() -> None:
    """TR-6: own hand; the board; the discard pile in order; the deck size; every hand's size;
    every card revealed by a Spade while it stays in hand; whose turn it is."""
    state = position(
        hands=[["2♠", "J♦", "3♥", "4♥"], ["6♣", "7♣"], ["8♣", "9♣"]],
        board={"J1": "10♣", "K4": "colour joker"},
        discard=["A♠", "A♥"],
    )
    play(state, 0, use("2♠"), reveal("J♦"), discard("3♥"))
    for viewer in (0, 1, 2, None):
        view = ENGINE.view(state, viewer)
        assert list(view.hand) == (list(state.hands[viewer].cards) if viewer is not None else [])
        assert list(view.board[0].slots) == [c("10♣"), 0, 0, 0]
        assert list(view.board[2].slots) == [0, 0, 0, c("colour joker")]
        assert list(view.discard_pile) == cards(["A♠", "A♥", "2♠", "3♥"])
        assert view.deck_size == len(state.deck)
        assert [s.hand_size for s in view.seats] == [4, 2, 2]
        assert list(view.seats[0].revealed) == [c("J♦")]
        assert view.turn == 1
        assert not view.HasField("gift_receiver")


def test_tr_6_pending_joker_discard_is_public() -> None:
    """TR-6: every seat sees what the pending joker discard waits for; only the giver and the
    receiver see the given card."""
    state = position(hands=[["colour joker", "J♣", "3♥"], ["6♣", "7♣"], ["8♣", "9♣"]])
    play(state, 0, use("colour joker"), give("J♣"))
    for viewer in (0, 1, 2, None):
        view = ENGINE.view(state, viewer)
        assert view.step == TRINITY_STEP_GIFT_DISCARD
        assert view.gift_receiver == 2
        assert view.using_card == c("colour joker")
        assert view.action == TRINITY_ACTION_USE
        assert view.gift_card == (c("J♣") if viewer in (0, 2) else 0)


def test_moves_are_small_steps_for_a_frontend() -> None:
    """An A's use is listed step by step: its suit targets (with skip), then its swaps (at
    most 4 x 8 + skip), then the discard: never the product of all of them."""
    state = position(
        hands=[["A♦", "2♣", "3♣", "4♣", "5♣", "6♣"], ["6♥", "7♣"], ["8♣", "9♣"]], board=BOARD
    )
    listed = ENGINE.legal_moves(state, 0)
    assert len(listed) == 18  # place, use, discard_two for each of 6 cards
    play(state, 0, use("A♦"))
    listed = ENGINE.legal_moves(state, 0)
    assert [m.WhichOneof("kind") for m in listed] == ["target_slot"] * 3 + ["skip"]
    play(state, 0, target(1))
    assert state.step == TRINITY_STEP_SWAP
    listed = ENGINE.legal_moves(state, 0)
    assert len(listed) == 4 * 8 + 1
    play(state, 0, listed[0])
    assert len(ENGINE.legal_moves(state, 0)) == 5
