"""PM-3 a turn, PM-4 +2 and the consolation, C-5 and C-6."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.engines.pig_mau_mau import ENGINE
from croupier.v1.pig_mau_mau_pb2 import PigMauMauState
from tests.engines import helpers as shared
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DECLINE,
    DRAW,
    END_STEPS,
    FARMER_A,
    PINK,
    PLAY,
    STEPS,
    Move,
    all_cards,
    encode,
    first,
    kinds,
    num,
    p2,
    play,
    position,
    step,
    tired,
    x,
)


def refused(state: PigMauMauState, seat: int, move: Move, rule: str) -> IllegalMove:
    """The move is refused naming `rule`, it is not listed, and the state is unchanged."""
    return shared.refused(ENGINE, state, seat, move, rule)


def played_cards(state: PigMauMauState, seat: int) -> set[int]:
    return {m.play.card for m in ENGINE.legal_moves(state, seat) if m.HasField("play")}


def test_pm_3_1_match_by_colour_number_or_symbol_or_green() -> None:
    """PM-3.1: play one card that matches the top of the discard pile by colour, number (1..6)
    or symbol (X or +2), or any green card (rulebook: on brown 5, any brown card, any 5, or a
    green card)."""
    hand = [num(BROWN, 1), x(BROWN), p2(BROWN), num(PINK, 5), num(BEIGE, 5), tired(PINK), FARMER_A]
    bad = [num(PINK, 4), x(PINK), p2(BLACK), num(BLACK, 6)]
    state = position(hands=[hand + bad, [num(PINK, 2)]], top=num(BROWN, 5))
    assert played_cards(state, 0) == set(hand)
    for card in bad:
        refused(state, 0, play(card), "PM-3.1")
    state = position(
        hands=[[x(PINK), p2(PINK), num(BLACK, 2), num(PINK, 2)], [num(BEIGE, 2)]], top=x(BLACK)
    )
    assert played_cards(state, 0) == {x(PINK), num(BLACK, 2)}
    state = position(
        hands=[[x(PINK), p2(PINK), num(BLACK, 2), num(PINK, 2)], [num(BEIGE, 2)]], top=p2(BLACK)
    )
    assert played_cards(state, 0) == {p2(PINK), num(BLACK, 2)}


def test_pm_3_1_green_on_anything() -> None:
    """PM-3.1: any green card may be played (also on a green card)."""
    for top in (num(BEIGE, 1), x(PINK), p2(BROWN), tired(BLACK), FARMER_A):
        state = position(
            hands=[[tired(PINK), 37, num(BROWN, 6)], [num(PINK, 2)]],
            top=top,
            required=PINK if top >= 32 else None,
        )
        assert {tired(PINK), 37} <= played_cards(state, 0)


def test_pm_3_1_card_not_in_hand_refused() -> None:
    """PM-3.1: the card must come from the player's hand."""
    state = position(hands=[[num(BROWN, 1), num(BLACK, 1)], [num(BROWN, 2)]], top=num(BROWN, 5))
    refused(state, 0, play(num(BROWN, 2)), "PM-3.1")


def test_pm_3_2_a_player_who_cannot_play_draws_one_card_and_the_turn_ends() -> None:
    """PM-3.2: a player who cannot play draws one card; the turn ends (C-6: automatically).
    PM-5.1: then the betting step."""
    state = position(
        hands=[[num(PINK, 3), num(PINK, 1)], [num(BEIGE, 2), num(BLACK, 6)]],
        top=num(PINK, 5),
        draw=[num(BROWN, 6), num(BROWN, 3)],
    )
    events = ENGINE.apply(state, 0, play(num(PINK, 3)))
    assert kinds(events) == ["card_played", "pig_moved", "cards_drawn"]
    drawn = first(events, "cards_drawn", 1).cards_drawn
    assert [c.code for c in drawn.cards] == [num(BROWN, 3)]
    assert not first(events, "cards_drawn", 0).cards_drawn.cards  # others see the count only
    assert first(events, "cards_drawn", 0).cards_drawn.count == 1
    assert (state.turn, state.phase) == (1, BET)
    # the drawn brown 3 is not played: the turn is over, only the bet remains
    assert all(not m.HasField("play") for m in ENGINE.legal_moves(state, 1))
    ENGINE.apply(state, 1, DECLINE)
    assert (state.turn, state.phase) == (0, PLAY)


def test_pm_3_2_no_voluntary_draw() -> None:
    """PM-3.2 Decision: drawing is allowed only when no card can be played."""
    state = position(hands=[[num(PINK, 3), num(PINK, 1)], [num(BEIGE, 2)]], top=num(PINK, 5))
    assert DRAW not in ENGINE.legal_moves(state, 0)
    refused(state, 0, DRAW, "PM-3.2")


def test_pm_3_3_empty_draw_pile_is_rebuilt_from_the_discard_pile() -> None:
    """PM-3.3: draw pile empty — the discard pile but its top card is shuffled into a new draw
    pile."""
    state = position(
        hands=[[num(PINK, 3), num(PINK, 1)], [num(BEIGE, 2)]], top=num(PINK, 5), draw=[]
    )
    below = len(state.discard_pile) - 1
    events = ENGINE.apply(state, 0, play(num(PINK, 3)))
    assert kinds(events) == ["card_played", "pig_moved", "pile_reshuffled", "cards_drawn"]
    assert list(state.discard_pile) == [num(PINK, 3)]
    assert len(state.draw_pile) == below + 1 - 1  # the old top went in, one card was drawn
    assert all_cards(state) == list(range(39))


def test_pm_3_3_nothing_to_draw_the_draw_is_skipped() -> None:
    """PM-3.3: if nothing is left to draw, the draw is skipped (the turn passes, C-6)."""
    top = num(PINK, 5)
    seat0 = [num(BROWN, 1)]  # no pink, no 5, no green: cannot play
    seat1 = [c for c in range(39) if c not in (top, *seat0)]
    state = position(hands=[seat0, seat1], top=top, draw=[], phase=BET, turn=1)
    assert list(state.discard_pile) == [top]
    events = ENGINE.apply(state, 1, DECLINE)
    assert kinds(events) == ["bet_declined", "turn_passed"]
    assert first(events, "turn_passed").turn_passed.seat == 0
    assert (state.turn, state.phase) == (1, PLAY)
    assert list(state.hands[0].cards) == seat0


def test_pm_3_4_tired_pig_printed_colour_must_follow() -> None:
    """PM-3.4: after a Tired Pig, the next card must have the printed colour, or be green."""
    state = position(
        hands=[
            [tired(BLACK), num(PINK, 1)],
            [num(BLACK, 6), num(PINK, 2), x(BLACK), FARMER_A, tired(PINK)],
        ],
        top=num(PINK, 5),
    )
    ENGINE.apply(state, 0, play(tired(BLACK), pig=PINK))
    assert played_cards(state, 1) == {num(BLACK, 6), x(BLACK), FARMER_A, tired(PINK)}
    error = refused(state, 1, play(num(PINK, 2)), "PM-3.4")
    assert "black" in error.message


def test_pm_3_4_farmer_named_colour_must_follow() -> None:
    """PM-3.4: after a Farmer, the next card must have the named colour, or be green."""
    state = position(
        hands=[[FARMER_A, num(PINK, 1)], [num(BEIGE, 6), num(PINK, 2), p2(BEIGE), tired(PINK)]],
        top=num(PINK, 5),
    )
    ENGINE.apply(state, 0, play(FARMER_A, color=BEIGE))
    assert played_cards(state, 1) == {num(BEIGE, 6), p2(BEIGE), tired(PINK)}
    refused(state, 1, play(num(PINK, 2)), "PM-3.4")


def test_pm_4_1_stack_a_plus_two_of_any_colour() -> None:
    """PM-4.1: a player facing a +2 plays a +2 of any colour, passing on the total, or draws
    the total; their turn ends."""
    state = position(
        hands=[[p2(PINK), num(PINK, 1)], [p2(BEIGE), num(PINK, 2)], [num(BLACK, 3), num(BLACK, 4)]],
        top=num(PINK, 5),
    )
    ENGINE.apply(state, 0, play(p2(PINK)))
    assert (state.turn, state.pending_draw) == (1, 2)
    assert ENGINE.legal_moves(state, 1) == [play(p2(BEIGE)), DRAW]
    refused(state, 1, play(num(PINK, 2)), "PM-4.1")
    events = ENGINE.apply(state, 1, play(p2(BEIGE)))
    assert first(events, "draw_pending").draw_pending.total == 4
    # seat 2 holds no +2: it draws the 4 at once (C-6)
    drawn = first(events, "cards_drawn").cards_drawn
    assert (drawn.seat, drawn.count, drawn.pending_total) == (2, 4, 4)
    assert len(state.hands[2].cards) == 6
    assert state.pending_draw == 0


def test_pm_4_1_draw_the_total_instead_of_stacking() -> None:
    """PM-4.1: a player holding a +2 may still draw the total."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BEIGE), num(PINK, 2)]],
        top=p2(PINK),
        pending=2,
        turn=1,
        pigs=(0, 0, 0, 0),
    )
    events = ENGINE.apply(state, 1, DRAW)
    assert first(events, "cards_drawn").cards_drawn.count == 2
    assert len(state.hands[1].cards) == 4
    assert state.phase == BET  # every pig on START: no steps to take (C-6)


def test_pm_4_2_one_step_back_per_card_drawn() -> None:
    """PM-4.2: a player who drew 2, 4, 6 or 8 this way moves pigs backwards, one space per card
    drawn, split among pigs as they like."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BEIGE), num(PINK, 2)]],
        top=p2(PINK),
        pending=6,
        turn=1,
        pigs=(5, 5, 0, 1),
    )
    events = ENGINE.apply(state, 1, DRAW)
    assert first(events, "steps_granted").steps_granted.steps == 6
    assert (state.phase, state.steps_left) == (STEPS, 6)
    assert ENGINE.legal_moves(state, 1) == [step(PINK), step(BROWN), step(BEIGE), END_STEPS]
    for pig in (PINK, PINK, BEIGE, BROWN):
        ENGINE.apply(state, 1, step(pig))
    assert list(state.pigs) == [3, 4, 0, 0]
    assert state.steps_left == 2


def test_pm_4_2_never_behind_start() -> None:
    """PM-4.2: never behind START."""
    state = position(
        hands=[[num(PINK, 1)], [num(PINK, 2)]],
        top=p2(PINK),
        phase=STEPS,
        steps=4,
        turn=1,
        pigs=(0, 2, 0, 0),
    )
    assert ENGINE.legal_moves(state, 1) == [step(BROWN), END_STEPS]
    error = refused(state, 1, step(PINK), "PM-4.2")
    assert "START" in error.message
    ENGINE.apply(state, 1, step(BROWN))
    events = ENGINE.apply(state, 1, step(BROWN))
    # every pig is on START: the remaining 2 steps end by themselves
    ended = first(events, "steps_ended").steps_ended
    assert ended.unused == 2
    assert (state.phase, state.steps_left) == (BET, 0)


def test_pm_4_2_steps_are_optional_and_unused_ones_lost() -> None:
    """PM-4.2 Decision: the moves are optional, one space at a time, and unused steps are
    lost."""
    state = position(
        hands=[[num(PINK, 1)], [num(PINK, 2)]],
        top=p2(PINK),
        phase=STEPS,
        steps=4,
        turn=1,
        pigs=(3, 3, 3, 3),
    )
    ENGINE.apply(state, 1, step(BLACK))
    events = ENGINE.apply(state, 1, END_STEPS)
    assert first(events, "steps_ended").steps_ended.unused == 3
    assert list(state.pigs) == [3, 3, 2, 3]
    assert state.phase == BET
    refused(state, 1, step(PINK), "PM-5.1")


def test_pm_4_2_consolation_steps_with_short_piles() -> None:
    """PM-4.2 + PM-3.3 Decision (ours): when the piles run short, the player draws what there
    is and takes one step per card actually drawn."""
    seat0 = [p2(BROWN), num(PINK, 3)]
    seat1 = [num(BLACK, 2), num(BEIGE, 4)]
    state = position(
        hands=[seat0, seat1], top=p2(PINK), pending=2, pigs=(4, 4, 4, 4), draw=[num(BLACK, 1)]
    )
    rest = list(state.discard_pile[:-1])  # keep only the top in the discard pile
    del state.discard_pile[:-1]
    state.hands[0].cards.extend(rest)
    events = ENGINE.apply(state, 0, play(p2(BROWN)))
    drawn = first(events, "cards_drawn", 1).cards_drawn
    # black 1 from the pile, then the reshuffled pink +2; the brown +2 stays on top
    assert (drawn.seat, drawn.count, drawn.pending_total) == (1, 2, 4)
    assert sorted(c.code for c in drawn.cards) == sorted([num(BLACK, 1), p2(PINK)])
    assert first(events, "steps_granted").steps_granted.steps == 2
    assert (state.turn, state.phase, state.steps_left) == (1, STEPS, 2)
    assert all_cards(state) == list(range(39))


def test_pm_4_3_plus_two_as_last_card_ends_the_race_nobody_draws() -> None:
    """PM-4.3: a +2 played as a player's last card ends the race at once; nobody draws."""
    state = position(
        hands=[[p2(PINK)], [num(BROWN, 2), num(BEIGE, 4)]], top=num(PINK, 5), pigs=(3, 1, 0, 0)
    )
    events = ENGINE.apply(state, 0, play(p2(PINK)))
    assert "cards_drawn" not in kinds(events)
    assert "draw_pending" not in kinds(events)
    ended = first(events, "race_ended").race_ended
    assert ended.emptied_seat == 0
    assert list(ended.points) == [5, 0]
    assert state.race == 2


def test_c_5_only_the_seat_on_turn_acts() -> None:
    """C-5: only the seats the rules allow may act; a refused move changes nothing."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)], [num(PINK, 1)]], top=num(PINK, 5))
    assert ENGINE.active_seats(state) == [0]
    assert ENGINE.legal_moves(state, 1) == []
    error = refused(state, 1, play(num(PINK, 2)), "C-5")
    assert "pink" not in error.message


def test_malformed_moves() -> None:
    """A move that cannot be a move of this game raises MalformedMove."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5))
    before = encode(state)
    for move in (
        Move(),
        play(39),
        play(-1),
        Move(play=Move.PlayCard(card=1, pig=9)),  # type: ignore[arg-type]
        Move(play=Move.PlayCard(card=1, color=7)),  # type: ignore[arg-type]
        Move(play=Move.PlayCard(card=1, call=5)),  # type: ignore[arg-type]
        Move(step_back=Move.StepBack()),
        Move(place_bet=Move.PlaceBet(color=5)),  # type: ignore[arg-type]
    ):
        with pytest.raises(MalformedMove):
            ENGINE.apply(state, 0, move)
    assert encode(state) == before


def test_wrong_phase_moves_refused() -> None:
    """Each phase accepts only its own moves (PM-3.1 play, PM-4.2 steps, PM-5.1 bet)."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5))
    refused(state, 0, step(PINK), "PM-3.1")
    refused(state, 0, DECLINE, "PM-3.1")
    state = position(
        hands=[[num(PINK, 3)], [num(PINK, 2)]],
        top=num(PINK, 5),
        phase=STEPS,
        steps=2,
        pigs=(1, 0, 0, 0),
    )
    refused(state, 0, play(num(PINK, 3)), "PM-4.2")
    refused(state, 0, DECLINE, "PM-4.2")
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), phase=BET)
    refused(state, 0, play(num(PINK, 3)), "PM-5.1")
    refused(state, 0, DRAW, "PM-5.1")
    refused(state, 0, END_STEPS, "PM-5.1")
    assert PLAY != BET
