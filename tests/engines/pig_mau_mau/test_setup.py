"""PM-1 components, PM-2 setup of each race, the creation options, C-2 and C-3."""

from __future__ import annotations

from collections import Counter

import pytest

from croupier.engines.core.errors import InvalidOptions
from croupier.engines.pig_mau_mau import ENGINE
from croupier.engines.pig_mau_mau.cards import KIND, NUMBER_OF, SUIT, card_message
from croupier.v1.pig_mau_mau_pb2 import PigMauMauCardKind, PigMauMauOptions
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DECLINE,
    FARMER_A,
    PINK,
    PLAY,
    all_cards,
    encode,
    first,
    num,
    p2,
    play,
    position,
    tired,
    x,
)


def test_pm_1_1_four_pigs_start_on_start() -> None:
    """PM-1.1: Four pigs: pink, brown, black, beige, on a track from START (space 0)."""
    state, _ = ENGINE.new_game(PigMauMauOptions(), 3, seed=1)
    assert list(state.pigs) == [0, 0, 0, 0]
    assert list(ENGINE.view(state, None).pigs) == [0, 0, 0, 0]


def test_pm_1_2_the_39_game_cards() -> None:
    """PM-1.2: 24 number cards 1..6 per colour, 4 X, 4 +2, 4 Tired Pigs (one per printed
    colour), 3 Farmers."""
    state, _ = ENGINE.new_game(PigMauMauOptions(), 2, seed=1)
    assert all_cards(state) == list(range(39))
    counts = Counter(card_message(c).kind for c in range(39))
    kind = PigMauMauCardKind
    assert counts == {
        kind.PIG_MAU_MAU_CARD_KIND_NUMBER: 24,
        kind.PIG_MAU_MAU_CARD_KIND_SKIP: 4,
        kind.PIG_MAU_MAU_CARD_KIND_PLUS_TWO: 4,
        kind.PIG_MAU_MAU_CARD_KIND_TIRED_PIG: 4,
        kind.PIG_MAU_MAU_CARD_KIND_FARMER: 3,
    }
    numbers = {
        (SUIT[c], NUMBER_OF[c]) for c in range(39) if KIND[c] == kind.PIG_MAU_MAU_CARD_KIND_NUMBER
    }
    assert numbers == {(c, n) for c in range(4) for n in range(1, 7)}
    assert {card_message(tired(c)).color for c in range(4)} == {1, 2, 3, 4}


def test_pm_1_2_number_card_moves_its_pig_forward() -> None:
    """PM-1.2: number card — move that colour's pig forward by the number."""
    state = position(hands=[[num(BLACK, 4), num(PINK, 1)], [num(PINK, 2)]], top=num(BLACK, 1))
    events = ENGINE.apply(state, 0, play(num(BLACK, 4)))
    assert list(state.pigs) == [0, 0, 4, 0]
    moved = first(events, "pig_moved").pig_moved
    assert (moved.pig, moved.before, moved.after, moved.seat) == (3, 0, 4, 0)


def test_pm_1_2_pigs_may_share_a_space() -> None:
    """PM-1.2 (rulebook: several pigs may stand on one space)."""
    state = position(
        hands=[[num(BLACK, 4), num(PINK, 1)], [num(PINK, 2)]], top=num(BLACK, 1), pigs=(4, 0, 0, 0)
    )
    ENGINE.apply(state, 0, play(num(BLACK, 4)))
    assert list(state.pigs) == [4, 0, 4, 0]


def test_pm_1_2_x_moves_no_pig_and_skips_the_next_player() -> None:
    """PM-1.2: X — no pig moves; the next player (C-1: to the left) is skipped."""
    state = position(
        hands=[[x(PINK), num(PINK, 1)], [num(PINK, 2)], [num(PINK, 3)]], top=num(PINK, 5)
    )
    events = ENGINE.apply(state, 0, play(x(PINK)))
    assert list(state.pigs) == [0, 0, 0, 0]
    assert first(events, "seat_skipped").seat_skipped.seat == 1
    assert state.turn == 2


def test_pm_1_2_x_with_two_players_gives_the_turn_back() -> None:
    """PM-1.2: X skips the next player; with two players the X player plays again."""
    state = position(hands=[[x(PINK), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    ENGINE.apply(state, 0, play(x(PINK)))
    assert state.turn == 0
    assert state.phase == PLAY


def test_pm_1_2_plus_two_moves_no_pig_and_charges_the_next_player() -> None:
    """PM-1.2: +2 — no pig moves; the next player draws 2 (PM-4)."""
    state = position(
        hands=[[p2(PINK), num(PINK, 1)], [p2(BROWN), num(BEIGE, 2)], [num(PINK, 3)]],
        top=num(PINK, 5),
    )
    events = ENGINE.apply(state, 0, play(p2(PINK)))
    assert list(state.pigs) == [0, 0, 0, 0]
    assert state.pending_draw == 2
    assert first(events, "draw_pending").draw_pending.seat == 1


def test_pm_1_2_tired_pig_moves_the_rearmost_pig_3() -> None:
    """PM-1.2: Tired Pig — the rearmost pig moves forward 3."""
    state = position(
        hands=[[tired(BEIGE), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), pigs=(5, 2, 4, 6)
    )
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.play.card == tired(BEIGE)]
    assert [m.play.pig for m in moves] == [2]  # brown, alone in last place
    ENGINE.apply(state, 0, play(tired(BEIGE), pig=BROWN))
    assert list(state.pigs) == [5, 5, 4, 6]


def test_pm_1_2_tired_pig_tie_for_last_player_chooses() -> None:
    """PM-1.2: if several share last place, the player chooses which."""
    state = position(
        hands=[[tired(BEIGE), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), pigs=(1, 3, 1, 1)
    )
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.play.card == tired(BEIGE)]
    assert sorted(m.play.pig for m in moves) == [1, 3, 4]
    before = encode(state)
    with pytest.raises(Exception, match="last place") as refused:
        ENGINE.apply(state, 0, play(tired(BEIGE), pig=BROWN))
    assert getattr(refused.value, "rule_id", None) == "PM-1.2"
    with pytest.raises(Exception, match="name it"):
        ENGINE.apply(state, 0, play(tired(BEIGE)))
    assert encode(state) == before
    ENGINE.apply(state, 0, play(tired(BEIGE), pig=BLACK))
    assert list(state.pigs) == [1, 3, 4, 1]


def test_pm_1_2_farmer_moves_no_pig_and_names_a_colour() -> None:
    """PM-1.2: Farmer — no pig moves; the player names the next colour."""
    state = position(hands=[[FARMER_A, num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.play.card == FARMER_A]
    assert sorted(m.play.color for m in moves) == [1, 2, 3, 4]
    with pytest.raises(Exception, match="names the next colour"):
        ENGINE.apply(state, 0, play(FARMER_A))
    events = ENGINE.apply(state, 0, play(FARMER_A, color=BEIGE))
    assert list(state.pigs) == [0, 0, 0, 0]
    assert state.required_color == 4
    assert first(events, "card_played").card_played.named_color == 4


def test_pm_1_2_only_tired_pig_names_a_pig_only_farmer_a_colour() -> None:
    """PM-1.2: the pig choice belongs to the Tired Pig, the colour to the Farmer."""
    state = position(hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    for move in (play(num(PINK, 3), pig=PINK), play(num(PINK, 3), color=PINK)):
        with pytest.raises(Exception, match="only a") as refused:
            ENGINE.apply(state, 0, move)
        assert getattr(refused.value, "rule_id", None) == "PM-1.2"


def test_pm_1_3_each_player_holds_four_betting_cards() -> None:
    """PM-1.3: each player has four betting cards, one per pig colour."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), phase=BET)
    bets = [m.place_bet.color for m in ENGINE.legal_moves(state, 0) if m.HasField("place_bet")]
    assert bets == [1, 2, 3, 4]


def test_pm_1_5_finish_distance_default_by_player_count() -> None:
    """PM-1.5 Decision: default finish 2: 12, 3: 14, 4: 16, 5: 18."""
    for seats, finish in {2: 12, 3: 14, 4: 16, 5: 18}.items():
        state, _ = ENGINE.new_game(PigMauMauOptions(), seats, seed=3)
        assert state.finish == finish
        assert ENGINE.view(state, None).finish == finish


def test_pm_1_5_finish_distance_option() -> None:
    """PM-1.5 Decision: creation option `finish_distance`."""
    state, events = ENGINE.new_game(PigMauMauOptions(finish_distance=25), 3, seed=3)
    assert state.finish == 25
    assert first(events, "race_started").race_started.finish == 25
    with pytest.raises(InvalidOptions) as refused:
        ENGINE.new_game(PigMauMauOptions(finish_distance=-1), 3, seed=3)
    assert refused.value.field == "finish_distance"
    with pytest.raises(InvalidOptions):
        ENGINE.new_game(PigMauMauOptions(finish_distance=61), 3, seed=3)


def test_seat_counts_two_to_five() -> None:
    """Pig Mau Mau is for 2-5 players."""
    for seats in (1, 6):
        with pytest.raises(InvalidOptions):
            ENGINE.new_game(PigMauMauOptions(), seats, seed=3)


def test_pm_2_1_and_pm_2_2_race_setup() -> None:
    """PM-2.1: pigs on START, bet row empty. PM-2.2: shuffle the 39 cards, deal 5 to each, the
    rest is the draw pile; its top card starts the discard pile."""
    state, events = ENGINE.new_game(PigMauMauOptions(start_seat=0), 4, seed=11)
    started = first(events, "race_started").race_started
    assert started.race == 1
    assert list(started.hand_sizes) == [5, 5, 5, 5]
    assert started.draw_size == 39 - 20 - 1
    assert not started.hand  # the public version holds no hand
    for seat in range(4):
        own = [c.code for c in first(events, "race_started", seat).race_started.hand]
        assert len(own) == 5
        assert set(own) <= {c.code for c in ENGINE.view(state, seat).hand}
    assert len(state.bet_row) == 0
    assert all_cards(state) == list(range(39))
    assert started.first_card.code == state.discard_pile[0]


@pytest.mark.parametrize(
    ("first_card", "playable", "unplayable"),
    [
        (num(BROWN, 5), [num(BROWN, 1), num(PINK, 5), x(BROWN), FARMER_A], [num(PINK, 1), x(PINK)]),
        (x(BROWN), [num(BROWN, 1), x(PINK), tired(PINK)], [num(PINK, 1), p2(PINK)]),
        (p2(BROWN), [num(BROWN, 1), p2(PINK), tired(PINK)], [num(PINK, 1), x(PINK)]),
        (tired(BLACK), [num(BLACK, 1), x(BLACK), FARMER_A], [num(PINK, 1), x(BROWN)]),
        (FARMER_A, [num(PINK, 1), x(BROWN), p2(BEIGE), tired(PINK)], []),
    ],
)
def test_pm_2_2_first_card_has_no_action_but_sets_what_follows(
    first_card: int, playable: list[int], unplayable: list[int]
) -> None:
    """PM-2.2: the first card has no action, but a number, X, +2 or Tired Pig must be followed by
    its colour (a Tired Pig: its printed colour) or what else matches it; after a Farmer the
    start player may play any card."""
    options = PigMauMauOptions(start_seat=0)
    for seed in range(400):
        state, _ = ENGINE.new_game(options, 2, seed)
        if state.discard_pile[0] == first_card and state.turn == 0:
            assert state.pending_draw == 0  # a first +2 charges nobody
            break
    else:
        pytest.fail("no seed turned up that first card")
    hand = [*playable, *unplayable]
    fresh = position(hands=[hand, [num(BEIGE, 6)]], top=first_card)
    fresh.required_color = state.required_color  # as the race setup left it
    legal = {m.play.card for m in ENGINE.legal_moves(fresh, 0) if m.HasField("play")}
    assert legal == set(playable)


def test_pm_2_2_first_x_skips_nobody() -> None:
    """PM-2.2: the first card has no action (an X skips nobody)."""
    for seed in range(400):
        state, _ = ENGINE.new_game(PigMauMauOptions(start_seat=1), 3, seed)
        if KIND[state.discard_pile[0]] == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_SKIP:
            assert state.turn == 1  # the start player acts: nobody was skipped
            return
    pytest.fail("no seed turned up an X")


def test_pm_2_3_start_seat_option_and_c_3_event() -> None:
    """PM-2.3 Decision: creation option `start_seat`, else the seeded generator (C-3); the
    outcome is an event."""
    for seat in range(3):
        state, events = ENGINE.new_game(PigMauMauOptions(start_seat=seat), 3, seed=5)
        chosen = first(events, "start_seat_chosen").start_seat_chosen
        assert (chosen.seat, chosen.by_option) == (seat, True)
        assert state.race_start_seat == seat
    starts = set()
    for seed in range(40):
        state, events = ENGINE.new_game(PigMauMauOptions(), 3, seed)
        chosen = first(events, "start_seat_chosen").start_seat_chosen
        assert not chosen.by_option
        starts.add(chosen.seat)
    assert starts == {0, 1, 2}
    with pytest.raises(InvalidOptions) as refused:
        ENGINE.new_game(PigMauMauOptions(start_seat=3), 3, seed=5)
    assert refused.value.field == "start_seat"


def test_pm_2_3_later_races_start_with_the_next_player_left() -> None:
    """PM-2.3: each later race starts with the next player to the left (C-1: seat + 1)."""
    state = position(
        hands=[[num(PINK, 6)], [num(PINK, 2), num(BROWN, 2)], [num(PINK, 3), num(BLACK, 3)]],
        top=num(PINK, 5),
        start=2,
        turn=0,
    )
    events = ENGINE.apply(state, 0, play(num(PINK, 6)))  # last card: race 1 ends
    started = first(events, "race_started").race_started
    assert (started.race, started.start_seat) == (2, 0)
    assert state.race_start_seat == 0


def test_c_2_same_seed_same_game() -> None:
    """C-2: the same seed, options and moves reproduce the game byte for byte."""
    a, _ = ENGINE.new_game(PigMauMauOptions(), 4, seed=99)
    b, _ = ENGINE.new_game(PigMauMauOptions(), 4, seed=99)
    assert encode(a) == encode(b)
    c, _ = ENGINE.new_game(PigMauMauOptions(), 4, seed=100)
    assert encode(a) != encode(c)


def test_state_stays_small() -> None:
    """Stored state under 2 KB for the largest game."""
    state, _ = ENGINE.new_game(PigMauMauOptions(mau=True), 5, seed=1)
    assert len(encode(state)) < 2048
    assert DECLINE.HasField("decline_bet")
