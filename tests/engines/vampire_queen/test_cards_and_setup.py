"""VQ-1 (the cards) and VQ-2 (setup and creation options)."""

from __future__ import annotations

from collections import Counter

import pytest

from croupier.engines.core.errors import InvalidOptions
from croupier.engines.vampire_queen import ENGINE
from croupier.engines.vampire_queen.cards import full_deck
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions, VampireQueenState
from tests.engines.vampire_queen.helpers import (
    H15,
    H20,
    Q,
    can_pass,
    hand,
    pass_,
    play,
    play_move,
    plays_of,
    position,
    public,
    refused,
)


def all_cards(state: VampireQueenState) -> Counter[int]:
    cards: Counter[int] = Counter(state.set_aside)
    for held in state.hands:
        cards.update(held.cards)
    return cards


def test_vq_1_1_vampires_eight_of_each_rank() -> None:
    """VQ-1.1 Vampires: ranks 1..13, eight copies of each (104 cards)."""
    state, _ = ENGINE.new_game(VampireQueenOptions(), 5, seed=3)
    cards = all_cards(state)
    assert sum(cards.values()) == 110
    assert all(cards[rank] == 8 for rank in range(1, 14))
    assert sum(cards[rank] for rank in range(1, 14)) == 104


def test_vq_1_2_queens_are_jokers() -> None:
    """VQ-1.2 Vampire Queen: 4 cards, jokers. Played alone (or only with other Queens) a Queen
    is rank 14; played together with vampires it takes their rank."""
    assert Counter(full_deck())[Q] == 4
    # Two 11s and a Queen are three 11s: three 12s beat them, three 11s do not.
    state = position([[1, 11, 11, Q], [11, 11, 11, 5], [12, 12, 12, 5]])
    play(state, 0, 11, 11, Q)
    refused(state, 1, play_move(11, 11, 11), "VQ-3.2")
    pass_(state, 1)
    play(state, 2, 12, 12, 12)
    # Queens alone are rank 14: only two Queens beat two 13s, and nothing beats a lone Queen.
    state = position([[13, 13, 1], [Q, Q, 13, 1], [Q, 5]])
    play(state, 0, 13, 13)
    assert plays_of(ENGINE.legal_moves(state, 1)) == {(Q, Q)}
    refused(state, 1, play_move(13, Q), "VQ-3.2")
    play(state, 1, Q, Q)
    state = position([[Q, 1], [Q, 5], [13, 2]])
    play(state, 0, Q)
    assert plays_of(ENGINE.legal_moves(state, 1)) == set()
    assert can_pass(ENGINE.legal_moves(state, 1))


def test_vq_1_3_hunter_holders_are_public() -> None:
    """VQ-1.3 Vampire Hunters: two cards, Hunter 15 and Hunter 20; everyone knows who holds
    them (C-4)."""
    state, _ = ENGINE.new_game(VampireQueenOptions(first_hunter_seat=2), 4, seed=9)
    assert Counter(full_deck())[H15] == 1
    assert Counter(full_deck())[H20] == 1
    for viewer in [None, 0, 1, 2, 3]:
        view = ENGINE.view(state, viewer)
        assert view.hunter_15_holder == 2
        assert view.hunter_20_holder == 3


def test_vq_2_1_first_hunter_seat_option() -> None:
    """VQ-2.1 The player who slept earliest takes Hunter 15; the player to their left takes
    Hunter 20 and leads the first phase of round 1. Decision: option `first_hunter_seat`."""
    state, events = ENGINE.new_game(VampireQueenOptions(first_hunter_seat=4), 5, seed=1)
    assert H15 in hand(state, 4)
    assert H20 in hand(state, 0)  # left of seat 4 in a five-seat game (C-1)
    assert state.turn == 0
    assert state.phase.leader == 0
    dealt = public(events, "hunters_dealt")[0].hunters_dealt
    assert (dealt.hunter_15_seat, dealt.hunter_20_seat, dealt.drawn) == (4, 0, False)
    assert ENGINE.active_seats(state) == [0]


def test_vq_2_1_hunter_seat_drawn_by_generator() -> None:
    """VQ-2.1 / C-3 Without the option, the Hunter 15 seat is drawn by the seeded generator:
    the same seed gives the same seat, different seeds spread over the table."""
    seats_drawn = set()
    for seed in range(30):
        state, events = ENGINE.new_game(VampireQueenOptions(), 6, seed)
        again, _ = ENGINE.new_game(VampireQueenOptions(), 6, seed)
        dealt = public(events, "hunters_dealt")[0].hunters_dealt
        assert dealt.drawn
        assert H15 in hand(state, dealt.hunter_15_seat)
        assert dealt.hunter_20_seat == (dealt.hunter_15_seat + 1) % 6
        assert state.SerializeToString(deterministic=True) == again.SerializeToString(
            deterministic=True
        )
        seats_drawn.add(dealt.hunter_15_seat)
    assert len(seats_drawn) > 3


@pytest.mark.parametrize(
    ("seats", "size"),
    [(3, 13), (4, 13), (5, 13), (6, 13), (7, 13), (8, 13), (9, 12), (10, 10), (11, 9), (12, 9)],
)
def test_vq_2_2_hand_sizes_by_player_count(seats: int, size: int) -> None:
    """VQ-2.2 Each player is dealt 13 cards for 3-8 players, 12 for 9, 10 for 10, 9 for 11-12;
    the cards left over are set aside face down."""
    state, events = ENGINE.new_game(VampireQueenOptions(first_hunter_seat=0), seats, seed=seats)
    sizes = [
        len(held.cards) - sum(1 for c in held.cards if c in (H15, H20)) for held in state.hands
    ]
    assert sizes == [size] * seats
    assert len(state.set_aside) == 108 - seats * size
    started = public(events, "round_started")[0].round_started
    assert started.set_aside_count == len(state.set_aside)
    assert list(started.hand) == []  # the public version shows no hand


@pytest.mark.parametrize("seats", range(3, 13))
def test_vq_2_2_option_deal_all(seats: int) -> None:
    """VQ-2.2 Option `deal_all`: deal all 108 as evenly as possible (floor(108 / N) each, the
    rest set aside)."""
    options = VampireQueenOptions(deal_all=True, first_hunter_seat=0)
    state, _ = ENGINE.new_game(options, seats, seed=seats)
    sizes = [len(held.cards) for held in state.hands]
    sizes[0] -= 1
    sizes[1] -= 1
    assert sizes == [108 // seats] * seats
    assert len(state.set_aside) == 108 % seats
    assert sum(all_cards(state).values()) == 110


def test_vq_2_3_hunter_holders_start_with_one_more_card() -> None:
    """VQ-2.3 Hunters stay in their holders' hands, so those players start with one more
    card."""
    state, _ = ENGINE.new_game(VampireQueenOptions(first_hunter_seat=1), 4, seed=5)
    assert [len(held.cards) for held in state.hands] == [13, 14, 14, 13]
    view = ENGINE.view(state, None)
    assert list(view.hand_sizes) == [13, 14, 14, 13]


def test_vq_2_4_rounds_option() -> None:
    """VQ-2.4 Option `rounds` (default 5; 1..20)."""
    state, events = ENGINE.new_game(VampireQueenOptions(), 3, seed=2)
    assert public(events, "round_started")[0].round_started.rounds == 5
    assert ENGINE.view(state, 0).rounds == 5
    state, _ = ENGINE.new_game(VampireQueenOptions(rounds=20), 3, seed=2)
    assert ENGINE.view(state, 0).rounds == 20
    for bad in (-1, 21):
        with pytest.raises(InvalidOptions) as caught:
            ENGINE.new_game(VampireQueenOptions(rounds=bad), 3, seed=2)
        assert caught.value.field == "rounds"


def test_vq_2_options_and_seat_count_are_validated() -> None:
    """VQ-2.1 `first_hunter_seat` must name a seat; the game is for 3-12 players."""
    for bad in (-1, 3):
        with pytest.raises(InvalidOptions) as caught:
            ENGINE.new_game(VampireQueenOptions(first_hunter_seat=bad), 3, seed=2)
        assert caught.value.field == "first_hunter_seat"
    for seats in (2, 13):
        with pytest.raises(InvalidOptions) as caught:
            ENGINE.new_game(VampireQueenOptions(), seats, seed=2)
        assert caught.value.field == "seats"
