"""TR-1 (cards and board) and TR-2 (setup)."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import InvalidOptions
from croupier.engines.registry import GAMES
from croupier.engines.trinity import ENGINE
from croupier.engines.trinity.cards import BW_JOKER, COLOUR_JOKER, name
from croupier.v1.trinity_pb2 import (
    TRINITY_ROW_J,
    TRINITY_ROW_K,
    TRINITY_ROW_Q,
    TRINITY_STEP_ACTION,
    TrinityOptions,
    TrinityRow,
)
from tests.engines.helpers import kinds
from tests.engines.trinity.helpers import (
    all_cards,
)

J, Q, K = TRINITY_ROW_J, TRINITY_ROW_Q, TRINITY_ROW_K
Rows = list[TrinityRow.ValueType]
NONE = TrinityRow.ValueType(0)


def test_registered() -> None:
    assert GAMES["trinity"] is ENGINE


def test_tr_1_1_fifty_four_cards() -> None:
    """TR-1.1: 52 cards (ranks 2..10, J, Q, K, A in ♠ ♥ ♦ ♣) and two jokers (54 cards)."""
    state, _ = ENGINE.new_game(TrinityOptions(), 3, seed=1)
    every = all_cards(state)
    assert sorted(every) == list(range(1, 55))
    names = {name(code) for code in every}
    assert {"2♠", "10♥", "J♦", "Q♣", "K♠", "A♥"} <= names
    assert name(COLOUR_JOKER) == "colour joker"
    assert name(BW_JOKER) == "black-and-white joker"


def test_tr_1_2_board_three_rows_of_four_empty_public() -> None:
    """TR-1.2: three rows of four slots J1..J4, Q1..Q4, K1..K4; a slot is empty or holds one
    card; the board is public."""
    state, _ = ENGINE.new_game(TrinityOptions(), 3, seed=2)
    assert list(state.board) == [0] * 12
    spectator = ENGINE.view(state, None)
    assert [r.row for r in spectator.board] == [J, Q, K]
    assert all(list(r.slots) == [0, 0, 0, 0] for r in spectator.board)


def test_tr_2_1_deal_six_each_rest_is_deck() -> None:
    """TR-2.1: shuffle all 54 cards and deal 6 to each player; the rest is the deck."""
    state, events = ENGINE.new_game(TrinityOptions(), 3, seed=3)
    assert [len(h.cards) for h in state.hands] == [6, 6, 6]
    assert len(state.deck) == 36
    assert kinds(events) == ["dealt", "dealt", "dealt", "turn_began"]
    for seat in range(3):
        own = events[seat].for_seat(seat)
        public = events[seat].for_seat(None)
        assert own is not None
        assert public is not None
        assert list(own.dealt.cards) == list(state.hands[seat].cards)
        assert list(public.dealt.cards) == []
        assert public.dealt.count == 6
    other, _ = ENGINE.new_game(TrinityOptions(), 3, seed=4)
    assert list(other.deck) != list(state.deck)


def test_tr_2_2_default_rows_and_turn_order() -> None:
    """TR-2.2: by default seat 0 owns J, seat 1 Q, seat 2 K; the J player starts."""
    state, _ = ENGINE.new_game(TrinityOptions(), 3, seed=5)
    view = ENGINE.view(state, None)
    assert [s.row for s in view.seats] == [J, Q, K]
    assert [r.seat for r in view.board] == [0, 1, 2]
    assert ENGINE.active_seats(state) == [0]
    assert state.step == TRINITY_STEP_ACTION


@pytest.mark.parametrize(("rows", "j_seat"), [([J, Q, K], 0), ([K, J, Q], 1), ([Q, K, J], 2)])
def test_tr_2_2_rows_option_clockwise(rows: Rows, j_seat: int) -> None:
    """TR-2.2: option `rows` assigns J, Q, K to seats; turn order J, Q, K is clockwise."""
    state, _ = ENGINE.new_game(TrinityOptions(rows=rows), 3, seed=6)
    assert ENGINE.active_seats(state) == [j_seat]
    view = ENGINE.view(state, None)
    assert [s.row for s in view.seats] == rows
    assert [r.seat for r in view.board] == [j_seat, (j_seat + 1) % 3, (j_seat + 2) % 3]


@pytest.mark.parametrize("rows", [[J, K, Q], [J, Q], [J, J, K], [J, Q, K, J], [NONE, J, Q]])
def test_tr_2_2_rows_option_refused(rows: Rows) -> None:
    """TR-2.2: rows must assign each of J, Q, K once, with J, Q, K running clockwise."""
    with pytest.raises(InvalidOptions) as caught:
        ENGINE.new_game(TrinityOptions(rows=rows), 3, seed=7)
    assert caught.value.field == "rows"


@pytest.mark.parametrize("seats", [2, 4])
def test_exactly_three_players(seats: int) -> None:
    """Trinity is for exactly 3 players."""
    with pytest.raises(InvalidOptions):
        ENGINE.new_game(TrinityOptions(), seats, seed=8)


def test_tr_2_3_no_information_shared() -> None:
    """TR-2.3: players may not share information about their cards: a seat's view holds its own
    hand and only the sizes of the others'."""
    state, _ = ENGINE.new_game(TrinityOptions(), 3, seed=9)
    for seat in range(3):
        view = ENGINE.view(state, seat)
        assert list(view.hand) == list(state.hands[seat].cards)
        assert [s.hand_size for s in view.seats] == [6, 6, 6]
        assert all(not s.revealed for s in view.seats)
    assert list(ENGINE.view(state, None).hand) == []


def test_c_2_same_seed_same_game() -> None:
    """C-2: the same seed gives the same deal."""
    a, _ = ENGINE.new_game(TrinityOptions(advanced=True), 3, seed=10)
    b, _ = ENGINE.new_game(TrinityOptions(advanced=True), 3, seed=10)
    assert a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)
