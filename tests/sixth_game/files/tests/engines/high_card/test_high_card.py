"""High Card's rules, each by id (docs/games/high_card.md)."""

from __future__ import annotations

import random

import pytest

from croupier.engines.core.errors import IllegalMove, InvalidOptions, MalformedMove
from croupier.engines.high_card import ENGINE
from croupier.v1.high_card_pb2 import HighCardMove, HighCardOptions, HighCardState
from tests.engines.helpers import encode, received
from tests.engines.high_card.generic import scrambled
from tests.engines.playout import play_randomly


def play(card: int) -> HighCardMove:
    return HighCardMove(play=HighCardMove.Play(card=card))


def new(seats: int = 3, seed: int = 7, **options: int) -> HighCardState:
    state, _ = ENGINE.new_game(HighCardOptions(**options), seats, seed)
    return state


def test_hc_1_1_hc_2_2_hc_2_3_twelve_cards_three_dealt_each_the_rest_set_aside() -> None:
    """HC-1.1, HC-2.2, HC-2.3."""
    state = new(seats=4)
    dealt = [card for hand in state.hands for card in hand.cards]
    assert len(dealt) == 12 and sorted(dealt) == list(range(1, 13))
    state = new(seats=2)
    dealt = [card for hand in state.hands for card in hand.cards]
    assert [len(hand.cards) for hand in state.hands] == [3, 3]
    assert len(set(dealt)) == 6 and set(dealt) <= set(range(1, 13))


def test_hc_2_1_two_to_four_players_hc_2_2_hand_size_option() -> None:
    """HC-2.1, HC-2.2 (the option)."""
    for seats in (1, 5):
        with pytest.raises(InvalidOptions):
            new(seats=seats)
    assert [len(hand.cards) for hand in new(hand_size=1).hands] == [1, 1, 1]
    with pytest.raises(InvalidOptions):
        new(hand_size=4)


def test_hc_2_4_seat_0_leads_hc_3_1_clockwise() -> None:
    """HC-2.4, HC-3.1."""
    state = new()
    assert ENGINE.active_seats(state) == [0]
    ENGINE.apply(state, 0, play(state.hands[0].cards[0]))
    assert ENGINE.active_seats(state) == [1]


def test_hc_3_2_only_the_seat_to_play_and_only_a_held_card() -> None:
    """HC-3.2, HC-5.6, C-5."""
    state = new()
    before = encode(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 1, play(state.hands[1].cards[0]))
    assert refused.value.rule_id == "HC-3.2"
    held = set(state.hands[0].cards)
    other = next(card for card in range(1, 13) if card not in held)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 0, play(other))
    # HC-5.6: the message says only that the seat does not hold the card.
    assert refused.value.message == "you do not hold that card"
    with pytest.raises(MalformedMove):
        ENGINE.apply(state, 0, play(13))
    assert encode(state) == before


def test_hc_1_2_hc_3_3_hc_3_4_hc_3_5_the_highest_card_wins_and_leads() -> None:
    """HC-1.2, HC-3.3, HC-3.4, HC-3.5."""
    state = new()
    cards = [state.hands[seat].cards[0] for seat in range(3)]
    events = []
    for seat, card in enumerate(cards):
        events += ENGINE.apply(state, seat, play(card))
    winner = cards.index(max(cards))
    won = [e.trick_won for e in received(events) if e.HasField("trick_won")]
    assert [(w.seat, w.card) for w in won] == [(winner, max(cards))]
    assert list(state.points) == [int(seat == winner) for seat in range(3)]
    assert ENGINE.active_seats(state) == [winner]
    assert not set(cards) & {card for hand in state.hands for card in hand.cards}
    assert not state.trick


def test_hc_4_1_hc_4_2_hc_4_3_the_end_and_the_result() -> None:
    """HC-4.1, HC-4.2, HC-4.3."""
    state = new(hand_size=2)
    rnd = random.Random(3)
    while ENGINE.result(state) is None:
        seat = ENGINE.active_seats(state)[0]
        ENGINE.apply(state, seat, rnd.choice(ENGINE.legal_moves(state, seat)))
    assert sum(state.points) == 2 and ENGINE.active_seats(state) == []
    result = ENGINE.result(state)
    assert result is not None
    best = max(state.points)
    assert list(result.winners) == [s for s in range(3) if state.points[s] == best]
    assert [entry.score for entry in result.seats] == list(state.points)


def test_hc_5_1_to_hc_5_5_what_each_seat_sees() -> None:
    """HC-5.1, HC-5.2, HC-5.3, HC-5.4, HC-5.5."""
    state, events = ENGINE.new_game(HighCardOptions(), 3, 11)
    for seat in range(3):
        view = ENGINE.view(state, seat)
        assert list(view.hand) == list(state.hands[seat].cards)
        assert list(view.hand_sizes) == [3, 3, 3]
        dealt = [e.dealt for e in received(events, seat)]
        assert [list(d.cards) for d in dealt if d.seat == seat] == [list(view.hand)]
        assert all(not d.cards for d in dealt if d.seat != seat)
        # HC-5.4: the view does not change when what the seat may not see does.
        other = scrambled(state, seat, random.Random(seat))
        assert encode(ENGINE.view(other, seat)) == encode(view)
    spectator = ENGINE.view(state, None)
    assert not spectator.hand and spectator.turn == 0 and list(spectator.points) == [0, 0, 0]


def test_random_play_to_the_end() -> None:
    for seats in range(2, 5):
        play_randomly(ENGINE, HighCardOptions(), seats, seed=seats)
