"""TR-5: the shared win, the shared loss, the options `advanced` and `stop_when_unwinnable`,
and the even-hands invariant; a scripted game that wins."""

from __future__ import annotations

import pytest

from croupier.engines.trinity import ENGINE
from croupier.v1.trinity_pb2 import (
    TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED,
    TRINITY_OUTCOME_LOST_HANDS_EMPTY,
    TRINITY_OUTCOME_UNSPECIFIED,
    TRINITY_OUTCOME_WON,
    TRINITY_STEP_ACTION,
    TrinityMove,
    TrinityOptions,
    TrinityState,
)
from tests.engines.helpers import kinds
from tests.engines.trinity.helpers import (
    all_cards,
    discard,
    discard_two,
    give,
    place,
    play,
    position,
    refused,
    row,
    skip,
    swap,
    target,
    use,
)

OTHERS = [["6♣", "7♣"], ["8♣", "9♣"]]
# Every row complete except J4 (the J row's cards sit in J1..J3, so placing pushes them right).
NEARLY = {
    "J1": "J♥", "J2": "J♦", "J3": "J♣",
    "Q1": "Q♥", "Q2": "Q♦", "Q3": "Q♠", "Q4": "Q♣",
    "K1": "K♥", "K2": "K♦", "K3": "K♠", "K4": "K♣",
}  # fmt: skip


def assert_won(state: TrinityState) -> None:
    assert state.outcome == TRINITY_OUTCOME_WON
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [0, 1, 2]
    assert [s.placement for s in result.seats] == [1, 1, 1]
    assert ENGINE.active_seats(state) == []
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in range(3))


def assert_lost(state: TrinityState, outcome: int) -> None:
    assert state.outcome == outcome
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == []
    assert [s.score for s in result.seats] == [0, 0, 0]
    assert ENGINE.active_seats(state) == []


def test_tr_5_1_win_the_moment_the_board_is_complete() -> None:
    """TR-5.1: the players win together the moment J1..J4 hold the four Jacks, Q1..Q4 the four
    Queens and K1..K4 the four Kings: right after the placing, before any discard."""
    state = position(hands=[["J♠", "2♦", "3♦", "4♦"], *OTHERS], board=NEARLY)
    assert ENGINE.result(state) is None
    events = play(state, 0, place("J♠"))
    assert kinds(events) == ["placed", "game_ended"]
    assert row(state, "J") == ["J♠", "J♥", "J♦", "J♣"]
    assert_won(state)
    refused(state, 0, discard("2♦"), "C-5")


def test_tr_5_1_win_checked_after_a_swap() -> None:
    """TR-5.1: checked after every action, including swaps."""
    board = {**NEARLY, "J4": "Q♠", "Q3": "J♠"}
    state = position(hands=[["A♥", "2♦", "3♦", "4♦"], *OTHERS], board=board)
    events = play(state, 0, use("A♥"), skip(), swap(4, "Q3"))
    assert kinds(events)[-2:] == ["swapped", "game_ended"]
    assert_won(state)


def test_tr_5_1_no_win_without_every_row() -> None:
    """TR-5.1: a complete J row alone is no win."""
    board = {k: v for k, v in NEARLY.items() if k != "K4"}
    state = position(hands=[["J♠", "2♦", "3♦", "4♦"], *OTHERS], board=board)
    play(state, 0, place("J♠"))
    assert state.outcome == TRINITY_OUTCOME_UNSPECIFIED


def test_tr_5_2_lose_when_every_hand_is_empty() -> None:
    """TR-5.2: the players lose together when every hand is empty and the board is not
    complete."""
    state = position(hands=[["2♦", "3♦"], [], []], deck=[])
    events = play(state, 0, discard_two("2♦"))
    assert kinds(events) == ["discarded", "discarded", "game_ended"]
    assert_lost(state, TRINITY_OUTCOME_LOST_HANDS_EMPTY)


def test_tr_5_3_advanced_needs_red_left_black_right() -> None:
    """TR-5.3 (option `advanced`): the win also needs, in every row, the two red cards in
    slots 1-2 and the two black cards in slots 3-4."""
    board = {
        "J1": "J♠", "J2": "J♦", "J3": "J♣",
        "Q1": "Q♥", "Q2": "Q♦", "Q3": "Q♠", "Q4": "Q♣",
        "K1": "K♥", "K2": "K♦", "K3": "K♠", "K4": "K♣",
    }  # fmt: skip
    # Basic rule: complete is complete.
    state = position(hands=[["J♥", "2♦", "3♦", "4♦"], *OTHERS], board=board)
    play(state, 0, place("J♥"))
    assert_won(state)
    # Expert rule: [J♥, J♠, J♦, J♣] is not red-red-black-black.
    advanced = TrinityOptions(advanced=True)
    state = position(hands=[["J♥", "2♥", "3♦", "4♦"], *OTHERS], board=board, options=advanced)
    play(state, 0, place("J♥"))
    assert state.outcome == TRINITY_OUTCOME_UNSPECIFIED
    play(state, 0, discard("3♦"))
    # A ♥ move puts J♦ leftmost: [J♦, J♥, J♠, J♣] wins at once.
    state.turn = 0
    play(state, 0, use("2♥"))
    events = play(state, 0, target(3))
    assert kinds(events) == ["moved", "game_ended"]
    assert row(state, "J") == ["J♦", "J♥", "J♠", "J♣"]
    assert_won(state)


@pytest.mark.parametrize(
    ("setup", "moves"),
    [
        ("discard", [discard_two("K♦")]),
        ("use", [use("Q♦"), target(1)]),
        ("push", [place("2♦")]),
        ("club", [use("2♣"), target(1)]),
    ],
)
def test_tr_5_4_stop_when_unwinnable(setup: str, moves: list[TrinityMove]) -> None:
    """TR-5.4 (option `stop_when_unwinnable`): the players lose as soon as a Jack, Queen or King
    reaches the discard pile (discarded, used, pushed out of slot 4, discarded by ♣)."""
    board = {"J1": "K♠", "J2": "5♠", "J3": "6♠", "J4": "J♠"}
    hands = [["K♦", "Q♦", "2♦", "2♣", "3♦", "4♦"], *OTHERS]
    options = TrinityOptions(stop_when_unwinnable=True)
    state = position(hands=hands, board=board, options=options)
    events = []
    for move in moves:
        if ENGINE.result(state) is None:
            events += play(state, 0, move)
    assert kinds(events)[-1] == "game_ended"
    assert_lost(state, TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED)
    # Without the option the game goes on.
    state = position(hands=hands, board=board)
    for move in moves:
        play(state, 0, move)
    assert state.outcome == TRINITY_OUTCOME_UNSPECIFIED


def test_tr_5_4_gift_discard_of_a_face_card() -> None:
    """TR-5.4: also when the joker's receiver discards a face card."""
    options = TrinityOptions(stop_when_unwinnable=True)
    state = position(
        hands=[["colour joker", "2♦", "3♦"], *OTHERS[:1], ["K♣", "9♣"]], options=options
    )
    play(
        state,
        0,
        use("colour joker"),
        give("2♦"),
    )
    play(state, 2, discard("K♣"))
    assert_lost(state, TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED)


def assert_even_and_conserved(state: TrinityState) -> None:
    """TR-5.5 between complete actions, and the 54 cards all somewhere."""
    assert state.step == TRINITY_STEP_ACTION
    assert all(len(h.cards) % 2 == 0 for h in state.hands)
    assert sorted(all_cards(state)) == list(range(1, 55))


def test_scripted_game_wins() -> None:
    """A whole cooperative game played move by move to a shared win: placements, both jokers'
    gifts (TR-4.8 to the right, TR-4.9 to the left), out-of-turn discards, draws of two
    (TR-3), the even-hands invariant (TR-5.5) after every action and the win (TR-5.1)."""
    state = position(
        hands=[
            ["J♠", "J♥", "2♣", "3♣", "4♣", "5♣"],
            ["Q♠", "Q♥", "colour joker", "J♦", "6♣", "7♣"],
            ["K♠", "K♥", "8♣", "9♣", "2♦", "3♦"],
        ],
        deck=["Q♦", "black-and-white joker", "Q♣", "5♦", "K♦", "6♦", "J♣", "7♦", "8♦", "9♦",
              "K♣", "10♦"],
        rest_below=True,
    )  # fmt: skip
    assert_even_and_conserved(state)
    script: list[tuple[int, list[TrinityMove]]] = [
        (0, [place("J♠"), discard("2♣")]),
        (1, [use("colour joker"), give("J♦")]),
        (0, [discard("3♣")]),  # out of turn: the receiver's discard
        (2, [place("K♠"), discard("8♣")]),
        (0, [use("black-and-white joker"), give("Q♦")]),
        (1, [discard("6♣")]),  # out of turn
        (1, [place("Q♠"), discard("7♣")]),
        (2, [place("K♥"), discard("9♣")]),
        (0, [place("J♥"), discard("4♣")]),
        (1, [place("Q♥"), discard("5♦")]),
        (2, [place("K♦"), discard("2♦")]),
        (0, [place("J♦"), discard("5♣")]),
        (1, [place("Q♦"), discard("8♦")]),
        (2, [place("K♣"), discard("3♦")]),
        (0, [place("J♣"), discard("7♦")]),
    ]
    for seat, moves in script:
        assert ENGINE.active_seats(state) == [seat]
        play(state, seat, *moves)
        if state.step == TRINITY_STEP_ACTION:
            assert_even_and_conserved(state)
    assert ENGINE.active_seats(state) == [1]
    events = play(state, 1, place("Q♣"))
    assert kinds(events) == ["placed", "game_ended"]
    assert row(state, "J") == ["J♣", "J♦", "J♥", "J♠"]
    assert row(state, "Q") == ["Q♣", "Q♦", "Q♥", "Q♠"]
    assert row(state, "K") == ["K♣", "K♦", "K♥", "K♠"]
    assert_won(state)
    assert sorted(all_cards(state)) == list(range(1, 55))
