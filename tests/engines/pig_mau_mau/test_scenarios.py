"""Worked scenarios, replayed move by move: the rulebook's +2 chain (Anna, Bernd, Christine), a
race ended by a Tired Pig, a race ended by a last card with tied leading pigs, and a bet change
that closes the row."""

from __future__ import annotations

from croupier.engines.pig_mau_mau import ENGINE
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DRAW,
    FARMER_A,
    PINK,
    PLAY,
    STEPS,
    all_cards,
    bet,
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

ANNA, BERND, CHRISTINE = 0, 1, 2


def test_pm_4_rulebook_example_plus_two_chain_then_two_and_one_and_one() -> None:
    """PM-4.1/PM-4.2, the rulebook's example: Anna plays +2, Bernd stacks a +2, Christine cannot
    and draws 4; she moves one pig back 2 and two pigs back 1 (PM-5.1: then she may bet)."""
    state = position(
        hands=[
            [p2(PINK), num(BEIGE, 1), num(BLACK, 1)],
            [p2(BLACK), num(BROWN, 1), num(BROWN, 2)],
            [num(BLACK, 3), num(BLACK, 4), num(BLACK, 5)],
        ],
        top=num(PINK, 6),
        pigs=(6, 4, 3, 2),
    )
    ENGINE.apply(state, ANNA, play(p2(PINK)))
    assert (state.turn, state.pending_draw) == (BERND, 2)
    events = ENGINE.apply(state, BERND, play(p2(BLACK)))
    assert kinds(events) == [
        "card_played",
        "draw_pending",
        "cards_drawn",
        "steps_granted",
    ]
    assert first(events, "draw_pending").draw_pending.total == 4
    drawn = first(events, "cards_drawn", CHRISTINE).cards_drawn
    assert (drawn.seat, drawn.count, drawn.pending_total, len(drawn.cards)) == (2, 4, 4, 4)
    assert len(state.hands[CHRISTINE].cards) == 7
    assert (state.turn, state.phase, state.steps_left) == (CHRISTINE, STEPS, 4)
    ENGINE.apply(state, CHRISTINE, step(PINK))
    ENGINE.apply(state, CHRISTINE, step(PINK))
    ENGINE.apply(state, CHRISTINE, step(BROWN))
    events = ENGINE.apply(state, CHRISTINE, step(BLACK))
    assert list(state.pigs) == [4, 3, 2, 2]
    assert first(events, "steps_ended").steps_ended.unused == 0
    assert (state.turn, state.phase) == (CHRISTINE, BET)
    ENGINE.apply(state, CHRISTINE, bet(BEIGE))
    assert [(b.seat, b.color) for b in state.bet_row] == [(CHRISTINE, 4)]
    assert (state.turn, state.phase) == (ANNA, PLAY)
    assert all_cards(state) == list(range(39))


def test_pm_4_2_rulebook_alternative_one_pig_back_four() -> None:
    """PM-4.2, the rulebook's other choice: one pig 4 spaces back."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BROWN), num(PINK, 2)]],
        top=p2(PINK),
        pending=4,
        turn=1,
        pigs=(6, 0, 0, 0),
    )
    ENGINE.apply(state, 1, DRAW)  # Bernd holds a +2 but takes the 4
    for _ in range(4):
        ENGINE.apply(state, 1, step(PINK))
    assert list(state.pigs) == [2, 0, 0, 0]
    assert state.phase == BET


def test_pm_6_2_scenario_tired_pig_finish_move_by_move() -> None:
    """PM-6.1 (A) / PM-6.2 / PM-6.4: Anna plays pink 1; Bernd's Tired Pig moves the rearmost
    black pig 3 to the finish: Bernd +3, black alone wins; the bets on black score 6 and 4,
    the bet on beige (level with black before) goes back."""
    state = position(
        hands=[
            [num(PINK, 1), num(BROWN, 4)],
            [tired(PINK), num(BEIGE, 6)],
            [num(BLACK, 6), num(BLACK, 1)],
        ],
        top=num(PINK, 5),
        pigs=(10, 12, 11, 13),
        finish=14,
        bets=[(ANNA, BEIGE), (CHRISTINE, BLACK), (BERND, BLACK)],
    )
    ENGINE.apply(state, ANNA, play(num(PINK, 1)))
    assert list(state.pigs) == [11, 12, 11, 13]
    tired_moves = [m for m in ENGINE.legal_moves(state, BERND) if m.play.card == tired(PINK)]
    assert sorted(m.play.pig for m in tired_moves) == [1, 3]  # pink and black share last place
    events = ENGINE.apply(state, BERND, play(tired(PINK), pig=BLACK))
    moved = first(events, "pig_moved").pig_moved
    assert (moved.pig, moved.before, moved.after) == (3, 11, 14)
    ended = first(events, "race_ended").race_ended
    assert list(ended.winners) == [3]
    assert ended.finisher_seat == BERND
    assert not ended.HasField("emptied_seat")
    assert [(b.seat, b.color, b.points) for b in ended.bets] == [
        (ANNA, 4, 0),
        (CHRISTINE, 3, 6),
        (BERND, 3, 4),
    ]
    assert list(ended.points) == [0, 3 + 4, 6]
    assert list(ended.totals) == [0, 7, 6]
    # PM-2: the next race is set up, started by the player left of race 1's start player
    started = first(events, "race_started").race_started
    assert (started.race, started.start_seat) == (2, BERND)
    assert list(state.pigs) == [0, 0, 0, 0]
    assert len(state.bet_row) == 0
    assert all(len(h.cards) >= 5 for h in state.hands)


def test_pm_6_3_scenario_last_card_with_tied_leading_pigs() -> None:
    """PM-6.1 (B) / PM-6.3 / PM-6.4: Christine's last card is an X (no pig moves): pink and
    beige lead together and both win; the bets on them score 6 and 4 in row order, the bet on
    brown goes back; Christine scores 5."""
    state = position(
        hands=[
            [num(BROWN, 2), num(BLACK, 2)],
            [num(PINK, 4), num(BEIGE, 2)],
            [x(PINK)],
        ],
        top=num(PINK, 1),
        pigs=(5, 6, 2, 9),
        finish=14,
        bets=[(BERND, BEIGE), (ANNA, BROWN), (CHRISTINE, PINK)],
        turn=BERND,
    )
    ENGINE.apply(state, BERND, play(num(PINK, 4)))  # pink 5 -> 9, level with beige
    assert list(state.pigs) == [9, 6, 2, 9]
    events = ENGINE.apply(state, CHRISTINE, play(x(PINK)))
    assert "seat_skipped" not in kinds(events)
    ended = first(events, "race_ended").race_ended
    assert sorted(ended.winners) == [1, 4]
    assert ended.emptied_seat == CHRISTINE
    assert [(b.seat, b.points) for b in ended.bets] == [(BERND, 6), (ANNA, 0), (CHRISTINE, 4)]
    assert list(ended.points) == [0, 6, 5 + 4]


def test_pm_5_2_scenario_bet_change_closes_the_row() -> None:
    """PM-5.1/PM-5.2: Anna, Bernd and Christine each draw and bet in turn (slots 1, 2, 3);
    Anna draws again and changes her bet: her card leaves slot 1, Bernd's and Christine's move
    up, and her new bet goes to slot 3. Others never see a colour."""
    # nobody can play on pink 6; Anna has just drawn (automatically) and may bet
    state = position(
        hands=[
            [num(BEIGE, 4), num(BEIGE, 3), num(BROWN, 2)],
            [num(BLACK, 4), num(BLACK, 3)],
            [num(BROWN, 4), num(BROWN, 3)],
        ],
        top=num(PINK, 6),
        draw=[num(BROWN, 1), num(BLACK, 1), num(BLACK, 2), FARMER_A],
        phase=BET,
    )
    ENGINE.apply(state, ANNA, bet(PINK))
    assert (state.turn, state.phase) == (BERND, BET)  # Bernd could not play either and drew
    ENGINE.apply(state, BERND, bet(BLACK))
    assert (state.turn, state.phase) == (CHRISTINE, BET)
    ENGINE.apply(state, CHRISTINE, bet(BLACK))
    assert (state.turn, state.phase) == (ANNA, BET)
    assert [b.seat for b in state.bet_row] == [ANNA, BERND, CHRISTINE]
    events = ENGINE.apply(state, ANNA, bet(BROWN))
    assert [(b.seat, b.color) for b in state.bet_row] == [(BERND, 3), (CHRISTINE, 3), (ANNA, 2)]
    placed = first(events, "bet_placed", ANNA).bet_placed
    assert (placed.changed, placed.previous_slot, placed.slot, placed.color) == (True, 0, 2, 2)
    for seat in (BERND, CHRISTINE, None):
        seen = first(events, "bet_placed", seat).bet_placed
        assert (seen.changed, seen.previous_slot, seen.slot, seen.color) == (True, 0, 2, 0)
        view = ENGINE.view(state, seat)
        assert [(b.seat, b.color) for b in view.bet_row][2] == (ANNA, 0)
    assert [(b.seat, b.color) for b in ENGINE.view(state, ANNA).bet_row] == [
        (BERND, 0),
        (CHRISTINE, 0),
        (ANNA, 2),
    ]
