"""PM-7: the `mau` option."""

from __future__ import annotations

import random

import pytest

from croupier.engines.core.errors import IllegalMove
from croupier.engines.pig_mau_mau import ENGINE
from croupier.engines.pig_mau_mau.cards import PLUS_TWOS
from croupier.engines.pig_mau_mau.flow import required_call
from croupier.v1.pig_mau_mau_pb2 import PigMauMauOptions, PigMauMauState
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DRAW,
    END_STEPS,
    MAU,
    MAU_MAU,
    PINK,
    PLAY,
    STEPS,
    Events,
    all_cards,
    bet,
    encode,
    first,
    kinds,
    num,
    p2,
    play,
    position,
    step,
    x,
)


def test_pm_7_1_mau_with_the_second_to_last_card() -> None:
    """PM-7.1: a player who plays a card leaving them with one card must call "Mau" with that
    play."""
    state = position(
        hands=[[num(PINK, 3), num(BROWN, 1)], [num(PINK, 2), num(PINK, 4)]],
        top=num(PINK, 5),
        mau=True,
    )
    calls = sorted(m.play.call for m in ENGINE.legal_moves(state, 0))
    assert calls == [0, MAU]
    events = ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU))
    assert first(events, "card_played").card_played.call == MAU
    assert list(state.pigs) == [3, 0, 0, 0]
    assert state.turn == 1


def test_pm_7_1_mau_mau_with_the_last_card() -> None:
    """PM-7.1: a player who plays their last card must call "Mau Mau" with it."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), mau=True)
    assert sorted(m.play.call for m in ENGINE.legal_moves(state, 0)) == [0, MAU_MAU]
    events = ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU_MAU))
    assert first(events, "race_ended").race_ended.emptied_seat == 0


def test_pm_7_1_calls_that_do_not_fit_are_refused() -> None:
    """PM-7.1: the call must fit the cards the play leaves; without the option no call."""
    state = position(
        hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5), mau=True
    )
    before = encode(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(state, 0, play(num(PINK, 3), call=MAU_MAU))
    assert refused.value.rule_id == "PM-7.1"
    state2 = position(
        hands=[[num(PINK, 3), num(PINK, 1), num(PINK, 4)], [num(PINK, 2)]],
        top=num(PINK, 5),
        mau=True,
    )
    with pytest.raises(IllegalMove):
        ENGINE.apply(state2, 0, play(num(PINK, 3), call=MAU))
    assert all(m.play.call == 0 for m in ENGINE.legal_moves(state2, 0))
    plain = position(hands=[[num(PINK, 3), num(PINK, 1)], [num(PINK, 2)]], top=num(PINK, 5))
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(plain, 0, play(num(PINK, 3), call=MAU))
    assert refused.value.rule_id == "PM-7.1"
    assert encode(state) == before


def test_pm_7_2_forgotten_call_card_stays_no_action_turn_passes() -> None:
    """PM-7.2: a play without the required call is penalised at once: the card stays in the
    player's hand, no action happens, and the turn passes to the next player."""
    state = position(
        hands=[
            [x(PINK), num(BROWN, 1)],
            [num(PINK, 2), num(PINK, 4)],
            [num(PINK, 1), num(PINK, 6)],
        ],
        top=num(PINK, 5),
        mau=True,
    )
    events = ENGINE.apply(state, 0, play(x(PINK)))
    assert kinds(events) == ["mau_forgotten"]
    forgot = first(events, "mau_forgotten").mau_forgotten
    assert (forgot.seat, forgot.card.code, forgot.required) == (0, x(PINK), MAU)
    assert sorted(state.hands[0].cards) == sorted([x(PINK), num(BROWN, 1)])
    assert list(state.discard_pile)[-1] == num(PINK, 5)
    assert state.turn == 1  # not skipped: the X had no action


def test_pm_7_2_forgotten_mau_mau_does_not_end_the_race() -> None:
    """PM-7.2: the last card played without "Mau Mau" goes back; the race goes on."""
    state = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), mau=True)
    events = ENGINE.apply(state, 0, play(num(PINK, 3)))
    assert "race_ended" not in kinds(events)
    assert list(state.hands[0].cards) == [num(PINK, 3)]
    assert list(state.pigs) == [0, 0, 0, 0]
    assert (state.race, state.turn) == (1, 1)


def same_events(one: Events, other: Events, seats: int) -> bool:
    """Whether two event lists read the same to every seat and to spectators."""
    audiences: list[int | None] = [*range(seats), None]
    return len(one) == len(other) and all(
        a.for_seat(who) == b.for_seat(who)
        for a, b in zip(one, other, strict=True)
        for who in audiences
    )


def facing_plus_two(pending: int) -> PigMauMauState:
    """Seat 1 holds two cards, one a +2, and faces a pending total; seat 2 holds no +2. The
    +2s already played lie in the discard pile under the top (the black +2)."""
    return position(
        hands=[
            [num(PINK, 1), num(PINK, 4)],
            [p2(BROWN), num(PINK, 2)],
            [num(BLACK, 4), num(BEIGE, 2)],
        ],
        top=p2(BLACK),
        pending=pending,
        turn=1,
        pigs=(3, 2, 1, 0),
        draw=[*(num(BEIGE, n) for n in (1, 3, 4, 5, 6)), *(num(BROWN, n) for n in (3, 4, 5, 6))],
        mau=True,
    )


@pytest.mark.parametrize("pending", [2, 4, 6])
def test_pm_7_3_forgotten_call_on_a_plus_two_answer_takes_the_pending_draw(pending: int) -> None:
    """PM-7.3: a +2 answering a pending +2 (+2, or a stack of +4 or +6) without the call is
    undone as a whole: the player has not answered, so they take the pending draw exactly as a
    player who draws it (the same events after `mau_forgotten`, the same state), then the
    backward steps (PM-4.2) and the bet (PM-5.1); only then does the turn pass, and the next
    player faces no total."""
    state = facing_plus_two(pending)
    events = ENGINE.apply(state, 1, play(p2(BROWN)))
    assert kinds(events) == ["mau_forgotten", "cards_drawn", "steps_granted"]
    forgot = first(events, "mau_forgotten").mau_forgotten
    assert (forgot.seat, forgot.card.code, forgot.required) == (1, p2(BROWN), MAU)
    drawn = first(events, "cards_drawn", 1).cards_drawn
    assert (drawn.seat, drawn.count, drawn.pending_total) == (1, pending, pending)
    assert {p2(BROWN), num(PINK, 2)} <= set(state.hands[1].cards)
    assert len(state.hands[1].cards) == 2 + pending
    assert state.discard_pile[-1] == p2(BLACK)  # the brown +2 went back to the hand
    assert (state.turn, state.phase, state.steps_left, state.pending_draw) == (1, STEPS, pending, 0)
    # exactly what the Draw of a player who does not answer does
    drew = facing_plus_two(pending)
    assert same_events(events[1:], ENGINE.apply(drew, 1, DRAW), 3)
    assert encode(state) == encode(drew)
    # PM-4.2 then PM-5.1, and only then the next player: no total faces them
    ENGINE.apply(state, 1, step(PINK))
    ENGINE.apply(state, 1, step(BROWN))
    if state.phase == STEPS:
        ENGINE.apply(state, 1, END_STEPS)
    assert (state.turn, state.phase) == (1, BET)
    events = ENGINE.apply(state, 1, bet(BEIGE))
    assert "draw_pending" not in kinds(events)
    assert "cards_drawn" not in kinds(events)
    assert (state.turn, state.phase, state.pending_draw) == (2, PLAY, 0)
    assert len(state.hands[2].cards) == 2
    assert DRAW not in ENGINE.legal_moves(state, 2)
    assert all_cards(state) == list(range(39))


def test_pm_7_3_forgotten_mau_mau_on_a_plus_two_answer_takes_the_pending_draw() -> None:
    """PM-7.3 with PM-7.1's "Mau Mau": the last card, a +2 on a pending +4, played without the
    call goes back; the player draws the 4 and the race goes on (PM-4.3 needs the play)."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BROWN)], [num(BLACK, 4), num(BEIGE, 2)]],
        top=p2(BLACK),
        pending=4,
        turn=1,
        pigs=(3, 2, 1, 0),
        mau=True,
    )
    events = ENGINE.apply(state, 1, play(p2(BROWN)))
    assert kinds(events) == ["mau_forgotten", "cards_drawn", "steps_granted"]
    assert first(events, "mau_forgotten").mau_forgotten.required == MAU_MAU
    assert first(events, "cards_drawn").cards_drawn.count == 4
    assert len(state.hands[1].cards) == 5
    assert (state.race, state.turn, state.phase, state.pending_draw) == (1, 1, STEPS, 0)


def short_piles(pending: int, draw: list[int], under_top: int) -> PigMauMauState:
    """Seat 1 faces `pending` holding the brown +2 and one more card; the draw pile is `draw`,
    the discard pile `under_top` cards under the top; seat 0 holds every other card."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BROWN), num(PINK, 2)], [num(BLACK, 4), num(BEIGE, 2)]],
        top=p2(BLACK),
        pending=pending,
        turn=1,
        pigs=(3, 2, 1, 0),
        draw=draw,
        mau=True,
    )
    rest = list(state.discard_pile[:-1])
    keep = rest[len(rest) - under_top :] if under_top else []
    del state.discard_pile[:-1]
    state.discard_pile[0:0] = keep
    state.hands[0].cards.extend(rest[: len(rest) - under_top])
    return state


def test_pm_7_3_forgotten_call_with_the_draw_pile_too_short() -> None:
    """PM-7.3 with PM-3.3 and PM-4.2: facing +6 with one card in the draw pile and one under
    the top, the player who forgot the call draws the two there are (through a reshuffle),
    steps back two, and the rest of the total lapses: nobody else draws it."""
    state = short_piles(6, [num(BEIGE, 1)], 1)
    events = ENGINE.apply(state, 1, play(p2(BROWN)))
    assert kinds(events) == ["mau_forgotten", "pile_reshuffled", "cards_drawn", "steps_granted"]
    drawn = first(events, "cards_drawn", 1).cards_drawn
    assert (drawn.seat, drawn.count, drawn.pending_total) == (1, 2, 6)
    assert first(events, "steps_granted").steps_granted.steps == 2
    assert p2(BROWN) in state.hands[1].cards
    assert len(state.hands[1].cards) == 4
    assert (state.turn, state.phase, state.steps_left, state.pending_draw) == (1, STEPS, 2, 0)
    assert all_cards(state) == list(range(39))
    drew = short_piles(6, [num(BEIGE, 1)], 1)
    assert same_events(events[1:], ENGINE.apply(drew, 1, DRAW), 3)
    assert encode(state) == encode(drew)


def test_pm_7_3_forgotten_call_with_nothing_to_draw() -> None:
    """PM-7.3 with PM-3.3: with nothing left to draw, the player who forgot the call draws
    nothing, as a player who cannot answer: the turn passes and the total lapses."""
    state = short_piles(2, [], 0)
    events = ENGINE.apply(state, 1, play(p2(BROWN)))
    assert kinds(events)[:2] == ["mau_forgotten", "turn_passed"]
    assert first(events, "turn_passed").turn_passed.seat == 1
    assert "draw_pending" not in kinds(events)
    assert sorted(state.hands[1].cards) == sorted([p2(BROWN), num(PINK, 2)])
    assert (state.turn, state.phase, state.pending_draw) == (2, PLAY, 0)
    drew = short_piles(2, [], 0)
    assert same_events(events[1:], ENGINE.apply(drew, 1, DRAW), 3)
    assert encode(state) == encode(drew)


def test_pm_7_3_issue_reproduction_whole_game() -> None:
    """PM-7.3, the reported game: 3 players, seed 1, `mau`, finish 60, random legal moves that
    always make the right call except when answering a pending +2. Every such answer leaves the
    player drawing the total (never the next player), and the game plays to its end."""
    state, _ = ENGINE.new_game(PigMauMauOptions(mau=True, finish_distance=60), 3, 1)
    chooser = random.Random(1)
    forgotten = 0
    while ENGINE.result(state) is None:
        seat = state.turn
        hand = len(state.hands[seat].cards)
        facing = state.pending_draw
        # the right call, except no call on a +2 answering a pending +2
        calls = {
            card: 0 if facing and card in PLUS_TWOS else required_call(hand - 1)
            for card in state.hands[seat].cards
        }
        moves = [
            m
            for m in ENGINE.legal_moves(state, seat)
            if m.WhichOneof("kind") != "play" or m.play.call == calls[m.play.card]
        ]
        move = chooser.choice(moves)
        events = ENGINE.apply(state, seat, move)
        if "mau_forgotten" not in kinds(events) or not facing:
            continue
        forgotten += 1
        assert "draw_pending" not in kinds(events)
        drawn = first(events, "cards_drawn", seat).cards_drawn
        assert (drawn.seat, drawn.pending_total) == (seat, facing)
        assert len(state.hands[seat].cards) == hand + drawn.count
        assert (state.turn, state.pending_draw) == (seat, 0)
        assert state.phase in (STEPS, BET)
    assert forgotten >= 1
    assert len(state.race_scores) == 4
