"""WN-1, WN-2 and WN-6.1/6.2: components, setup, the priority card, options checked."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import InvalidOptions
from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_PLAY,
    WHATS_YOUR_NAME_PRIORITY_REASON_LOT,
    WHATS_YOUR_NAME_PRIORITY_REASON_LOWEST_CARD,
    WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST,
    WhatsYourNameOptions,
)
from tests.engines.helpers import of_kind
from tests.engines.playout import play_randomly
from tests.engines.whats_your_name.helpers import (
    all_cards,
    ranks,
)

Options = WhatsYourNameOptions


def test_wn_1_1_six_sets_of_thirteen() -> None:
    """WN-1.1: Six coloured sets of 13 cards, ranks 1..13 (78 cards)."""
    state, _ = ENGINE.new_game(Options(), 6, seed=1)
    assert sorted(all_cards(state)) == list(range(78))
    for colour in range(6):
        mine = [card for card in all_cards(state) if card // 13 == colour]
        assert sorted(ranks(mine)) == list(range(1, 14))


def test_wn_1_2_priority_card_held_by_one_player() -> None:
    """WN-1.2: A priority card, held by one player for the whole game."""
    state, out = ENGINE.new_game(Options(), 4, seed=3)
    taken = of_kind(out, "priority_taken")
    assert len(taken) == 1
    assert ENGINE.view(state, None).priority_seat == taken[0].seat == state.priority_seat


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_wn_2_1_each_player_shuffles_own_set_into_a_pile(seats: int) -> None:
    """WN-2.1: Each player takes one colour set, shuffles it into a face-down personal pile."""
    state, _ = ENGINE.new_game(Options(), seats, seed=seats)
    for p, pos in enumerate(state.positions):
        own = [*pos.pile, *pos.hand, *(c for c in state.stage if c // 13 == p)]
        assert sorted(own) == list(range(13 * p, 13 * p + 13))
    piles = [list(pos.pile) for pos in state.positions]
    other, _ = ENGINE.new_game(Options(), seats, seed=seats + 100)
    assert piles != [list(pos.pile) for pos in other.positions], "piles are shuffled"


def test_wn_2_2_no_thirteen_on_the_stage_at_setup() -> None:
    """WN-2.2: A 13 may not be placed on the stage at setup: a revealed 13 goes back into that
    pile, the pile is reshuffled, and the player reveals again until it is not a 13."""
    returned = 0
    for seed in range(150):
        state, out = ENGINE.new_game(Options(), 6, seed=seed)
        assert 13 not in ranks(state.stage)
        assert [r.seat for r in of_kind(out, "setup_revealed")] == list(range(6))
        for reveal, card in zip(of_kind(out, "setup_revealed"), state.stage, strict=True):
            assert reveal.card.rank == card % 13 + 1
            returned += reveal.thirteens_returned
        for p, pos in enumerate(state.positions):
            assert 13 * p + 12 in [*pos.pile, *pos.hand], "the 13 went back into the pile"
    assert returned > 0, "some setup revealed a 13 first"


def _priority(seats: int, seed: int, options: Options | None = None) -> tuple[int, object]:
    state, out = ENGINE.new_game(options or Options(), seats, seed=seed)
    return state.priority_seat, of_kind(out, "priority_taken")[0]


def test_wn_2_3_lowest_stage_card_takes_the_priority_card() -> None:
    """WN-2.3: The player whose stage card is lowest takes the priority card."""
    for seed in range(40):
        state, out = ENGINE.new_game(Options(), 5, seed=seed)
        low = min(ranks(state.stage))
        assert ranks(state.stage)[state.priority_seat] == low
        event = of_kind(out, "priority_taken")[0]
        if ranks(state.stage).count(low) == 1:
            assert event.reason == WHATS_YOUR_NAME_PRIORITY_REASON_LOWEST_CARD


def _tied_seed(seats: int) -> tuple[int, list[int]]:
    for seed in range(1000):
        state, _ = ENGINE.new_game(Options(), seats, seed=seed)
        stage = ranks(state.stage)
        tied = [s for s in range(seats) if stage[s] == min(stage)]
        if len(tied) >= 2:
            return seed, tied
    raise AssertionError("no tie found")


def test_wn_2_3_tie_goes_to_the_youngest_by_option() -> None:
    """WN-2.3: Ties: the youngest of them. Decision: creation option `youngest_seat` (a seat
    order by age, youngest first)."""
    seed, tied = _tied_seed(4)
    first, second = tied[0], tied[1]
    for order, expected in [
        ([second], second),
        ([first, second], first),
        ([second, first], second),
    ]:
        holder, event = _priority(4, seed, Options(youngest_seat=order))
        assert holder == expected
        assert event.reason == WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST  # type: ignore[attr-defined]
        assert list(event.tied_seats) == tied  # type: ignore[attr-defined]
    # a listed seat counts as younger than every unlisted seat
    untied = next(s for s in range(4) if s not in tied)
    holder, _ = _priority(4, seed, Options(youngest_seat=[untied, second]))
    assert holder == second


def test_wn_2_3_tie_without_ages_is_drawn_by_lot() -> None:
    """WN-2.3: without `youngest_seat` a tie is broken by the seeded generator (C-3)."""
    seed, tied = _tied_seed(5)
    holder, event = _priority(5, seed)
    assert holder in tied
    assert event.reason == WHATS_YOUR_NAME_PRIORITY_REASON_LOT  # type: ignore[attr-defined]
    assert _priority(5, seed)[0] == holder, "the lot is reproducible"
    unrelated = next(s for s in range(5) if s not in tied)
    holder_again, event = _priority(5, seed, Options(youngest_seat=[unrelated]))
    assert holder_again == holder
    assert event.reason == WHATS_YOUR_NAME_PRIORITY_REASON_LOT  # type: ignore[attr-defined]
    holders = {_priority(6, s)[0] for s in range(200) if len(_tied_seed_at(6, s)) > 1}
    assert len(holders) > 1


def _tied_seed_at(seats: int, seed: int) -> list[int]:
    state, _ = ENGINE.new_game(Options(), seats, seed=seed)
    stage = ranks(state.stage)
    return [s for s in range(seats) if stage[s] == min(stage)]


def test_wn_2_3_priority_card_never_moves() -> None:
    """WN-2.3: The priority card never moves afterwards."""
    for seats in (2, 4, 6):
        state, _ = ENGINE.new_game(Options(), seats, seed=seats * 7)
        holder = state.priority_seat
        final, _ = play_randomly(ENGINE, Options(), seats, seed=seats * 7, check_every_step=False)
        assert final.priority_seat == holder


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_wn_2_4_each_player_draws_three(seats: int) -> None:
    """WN-2.4: Each player draws 3 cards from their pile into their hand."""
    state, out = ENGINE.new_game(Options(), seats, seed=11)
    for seat in range(seats):
        assert len(state.positions[seat].hand) == 3
        assert len(state.positions[seat].pile) == 9
    assert [d.count for d in of_kind(out, "cards_drawn")] == [3] * seats
    assert state.phase == WHATS_YOUR_NAME_PHASE_PLAY
    assert ENGINE.active_seats(state) == list(range(seats))


def test_wn_6_1_virtual_player_joins_a_two_player_game() -> None:
    """WN-6.1: With 2 players a virtual player joins with a third colour set. It sits after the
    two players (seat 2 in the table order). At setup its pile is shuffled and its top card
    revealed onto the stage (WN-2.2 applies: no 13 at setup)."""
    for seed in range(60):
        state, out = ENGINE.new_game(Options(), 2, seed=seed)
        assert len(state.positions) == 3
        virtual = state.positions[2]
        assert not virtual.hand
        assert len(virtual.pile) == 12
        assert state.stage[2] // 13 == 2
        assert state.stage[2] % 13 + 1 != 13
        assert of_kind(out, "setup_revealed")[2].seat == 2
        view = ENGINE.view(state, None)
        assert view.has_virtual_player
        assert view.players[2].virtual
        assert ENGINE.active_seats(state) == [0, 1]


def test_wn_6_2_virtual_player_never_takes_the_priority_card() -> None:
    """WN-6.2: It can never take the priority card, even with the lowest stage card."""
    found = 0
    for seed in range(300):
        state, _ = ENGINE.new_game(Options(), 2, seed=seed)
        stage = ranks(state.stage)
        assert state.priority_seat in (0, 1)
        assert stage[state.priority_seat] == min(stage[:2])
        found += stage[2] < min(stage[:2])
    assert found, "some setup gave the virtual player the lowest card"


@pytest.mark.parametrize("seats", [1, 7, 0])
def test_seat_count_is_checked(seats: int) -> None:
    """What's Your Name? is for 2 to 6 players."""
    with pytest.raises(InvalidOptions) as error:
        ENGINE.new_game(Options(), seats, seed=1)
    assert error.value.field == "seats"


@pytest.mark.parametrize("order", [[4], [-1], [1, 1]])
def test_wn_2_3_youngest_seat_option_is_checked(order: list[int]) -> None:
    """WN-2.3: `youngest_seat` lists existing seats, each at most once."""
    with pytest.raises(InvalidOptions) as error:
        ENGINE.new_game(Options(youngest_seat=order), 4, seed=1)
    assert error.value.field == "youngest_seat"
