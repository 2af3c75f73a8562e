"""OC-1 (cards and deck composition) and OC-2 (setup)."""

from __future__ import annotations

from collections import Counter

import pytest

from croupier.engines.core.errors import InvalidOptions, MalformedMove
from croupier.engines.one_card import ENGINE
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import (
    OneCardCard,
    OneCardDeck,
    OneCardMove,
    OneCardOptions,
    OneCardState,
)
from tests.engines.helpers import kinds, of_kind

from .helpers import (
    raw_card,
)


def all_cards(state: OneCardState) -> Counter[int]:
    total: Counter[int] = Counter()
    for hand in state.hands:
        total.update(hand.cards)
    total.update(state.draw_pile)
    total.update(state.discard_pile)
    return total


def test_oc_1_default_deck_has_108_cards() -> None:
    """OC-1: numbers 1..9 x 2 per colour (72), +2 x2 (8), +3 x1 (4), Jump x2 (8), U-turn x2
    (8) per colour, 4 Rainbows, 4 Quatrans: 108 cards."""
    state, _ = ENGINE.new_game(OneCardOptions(), 4, seed=3)
    cards = all_cards(state)
    assert sum(cards.values()) == 108
    by_type: Counter[int] = Counter()
    for code, n in cards.items():
        by_type[c.TYPE[code]] += n
    assert by_type == {
        c.NUMBER: 72,
        c.PLUS_TWO: 8,
        c.PLUS_THREE: 4,
        c.JUMP: 8,
        c.U_TURN: 8,
        c.RAINBOW: 4,
        c.QUATRAN: 4,
    }
    assert cards[c.parse("R7")] == 2 and cards[c.parse("B+3")] == 1


def test_oc_1_deck_composition_is_an_option() -> None:
    """OC-1: the composition is a creation option (a table of counts); unset counts keep
    their defaults."""
    deck = OneCardDeck(number_copies=3, plus_three_per_color=0, rainbows=1, quatrans=1)
    state, _ = ENGINE.new_game(OneCardOptions(deck=deck), 3, seed=5)
    cards = all_cards(state)
    assert sum(cards.values()) == 108 + 36 - 4 - 3 - 3
    assert cards[c.parse("G9")] == 3
    assert cards[c.parse("Y+3")] == 0
    assert cards[c.parse("Y+2")] == 2
    assert cards[c.RAINBOW_CODE] == 1 and cards[c.QUATRAN_CODE] == 1


@pytest.mark.parametrize(
    ("deck", "seats", "field"),
    [
        (OneCardDeck(number_copies=5), 2, "deck.number_copies"),
        (OneCardDeck(jump_per_color=-1), 2, "deck.jump_per_color"),
        (OneCardDeck(rainbows=9), 2, "deck.rainbows"),
        # 36 number cards cannot deal 7 to 6 players and still start the discard pile (OC-2.2)
        (OneCardDeck(number_copies=1), 6, "deck.number_copies"),
        # without two wild cards OC-3.5 could stall
        (OneCardDeck(rainbows=1, quatrans=0), 2, "deck"),
    ],
)
def test_oc_1_invalid_deck_is_refused(deck: OneCardDeck, seats: int, field: str) -> None:
    """OC-1: a composition the game cannot be played with is refused at creation."""
    with pytest.raises(InvalidOptions) as info:
        ENGINE.new_game(OneCardOptions(deck=deck), seats, seed=1)
    assert info.value.field == field


def test_oc_1_smallest_decks_that_are_accepted() -> None:
    """OC-1: 36 number cards suffice for 5 players; two wild cards of either kind suffice."""
    ENGINE.new_game(OneCardOptions(deck=OneCardDeck(number_copies=1)), 5, seed=1)
    ENGINE.new_game(OneCardOptions(deck=OneCardDeck(rainbows=0, quatrans=2)), 2, seed=1)


def test_oc_1_card_codes_round_trip() -> None:
    """OC-1: every card has a code and a readable message; the notation round-trips."""
    for code in range(c.CODE_COUNT):
        assert c.from_message(c.to_message(code), "card") == code
        assert c.parse(c.short_name(code)) == code


@pytest.mark.parametrize(
    "bad",
    [
        raw_card(0),
        raw_card(1, 1, 0),
        raw_card(1, 1, 10),
        raw_card(1, 0, 3),
        raw_card(2, 1, 2),
        raw_card(6, 2),
        raw_card(9),
    ],
)
def test_oc_1_a_card_that_does_not_exist_is_malformed(bad: OneCardCard) -> None:
    """OC-1: a move naming a card that is not in the game is malformed, not illegal."""
    state, _ = ENGINE.new_game(OneCardOptions(dealer_seat=0), 2, seed=1)
    with pytest.raises(MalformedMove):
        ENGINE.apply(state, state.current_seat, OneCardMove(play=OneCardMove.Play(cards=[bad])))


@pytest.mark.parametrize("seats", [2, 5, 10])
def test_oc_2_1_seven_cards_each_rest_is_the_draw_pile(seats: int) -> None:
    """OC-2.1: shuffle; deal 7 cards to each player; the rest is the draw pile."""
    state, events = ENGINE.new_game(OneCardOptions(dealer_seat=0), seats, seed=seats)
    dealt = of_kind(events, "dealt")
    assert len(dealt) == seats and all(d.count == 7 for d in dealt)
    # the first player may have drawn automatically (C-6) if they could not discard
    sizes = [len(h.cards) for h in state.hands]
    drawn = sum(d.count for d in of_kind(events, "drew"))
    assert sum(sizes) == 7 * seats + drawn
    assert len(state.draw_pile) == 108 - 7 * seats - 1 - drawn
    assert len(state.discard_pile) == 1


def test_oc_2_1_each_seat_sees_only_its_own_deal() -> None:
    """OC-2.1 / C-4: the dealt cards are in the receiving seat's event only."""
    _, events = ENGINE.new_game(OneCardOptions(dealer_seat=1), 3, seed=9)
    for seat in range(3):
        for d in of_kind(events, "dealt", seat):
            assert bool(d.cards) == (d.seat == seat)
    assert all(not d.cards for d in of_kind(events, "dealt", None))
    own = next(d for d in of_kind(events, "dealt", 0) if d.seat == 0)
    assert len(own.cards) == 7


def test_oc_2_1_shuffle_depends_on_the_seed() -> None:
    """OC-2.1 / C-2: the deal comes from the seeded generator: same seed, same deal."""
    a, _ = ENGINE.new_game(OneCardOptions(), 4, seed=77)
    b, _ = ENGINE.new_game(OneCardOptions(), 4, seed=77)
    d, _ = ENGINE.new_game(OneCardOptions(), 4, seed=78)
    assert a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)
    assert list(a.draw_pile) != list(d.draw_pile)


def test_oc_2_2_special_start_cards_go_to_the_bottom() -> None:
    """OC-2.2: turn the top card of the draw pile face up to start the discard pile; if it is a
    special card, put it at the bottom of the draw pile and turn the next one; repeat."""
    for seed in range(200):
        state, events = ENGINE.new_game(OneCardOptions(dealer_seat=0), 2, seed)
        start = of_kind(events, "start_card")[0]
        if len(start.put_under) >= 2 and not of_kind(events, "drew"):
            break
    else:
        pytest.fail("no seed turned up two special cards")
    assert c.TYPE[state.discard_pile[0]] == c.NUMBER
    assert c.from_message(start.card, "card") == state.discard_pile[0]
    under = [c.from_message(card, "card") for card in start.put_under]
    assert all(c.TYPE[code] != c.NUMBER for code in under)
    # each card turned goes under the whole pile, so the last one turned lies lowest
    assert list(state.draw_pile[: len(under)]) == list(reversed(under))


def test_oc_2_3_dealer_option_and_first_player() -> None:
    """OC-2.3: the player left of the dealer starts; play goes clockwise. Decision: the
    option `dealer_seat` names the dealer."""
    state, events = ENGINE.new_game(OneCardOptions(dealer_seat=3), 4, seed=2)
    started = of_kind(events, "game_started")[0]
    assert (started.dealer, started.first_seat, started.dealer_drawn_by_lot) == (3, 0, False)
    assert state.dealer == 3 and not state.counter_clockwise
    assert kinds(events)[0] == "game_started"


def test_oc_2_3_dealer_drawn_by_lot_without_the_option() -> None:
    """OC-2.3 / C-3: without `dealer_seat` the dealer is drawn by the seeded generator, and
    the outcome is an event."""
    dealers = set()
    for seed in range(30):
        state, events = ENGINE.new_game(OneCardOptions(), 5, seed)
        started = of_kind(events, "game_started")[0]
        assert started.dealer_drawn_by_lot
        assert started.first_seat == (started.dealer + 1) % 5
        dealers.add(started.dealer)
        again, _ = ENGINE.new_game(OneCardOptions(), 5, seed)
        assert again.dealer == state.dealer
    assert len(dealers) > 2


def test_oc_2_3_dealer_seat_out_of_range() -> None:
    """OC-2.3: the dealer must be one of the seats."""
    with pytest.raises(InvalidOptions) as info:
        ENGINE.new_game(OneCardOptions(dealer_seat=4), 4, seed=1)
    assert info.value.field == "dealer_seat"


@pytest.mark.parametrize("seats", [1, 11])
def test_oc_2_seat_count(seats: int) -> None:
    """Tobot One Card is played by 2 to 10 players."""
    with pytest.raises(InvalidOptions):
        ENGINE.new_game(OneCardOptions(), seats, seed=1)
