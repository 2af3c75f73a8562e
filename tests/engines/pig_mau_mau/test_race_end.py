"""PM-6 end of a race and scoring, PM-1.4 bet points, C-7 the result."""

from __future__ import annotations

from croupier.engines.pig_mau_mau import ENGINE
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BLACK,
    BROWN,
    OVER,
    PINK,
    PLAY,
    first,
    kinds,
    num,
    play,
    position,
    tired,
    x,
)


def test_pm_6_1_a_race_ends_at_once_when_a_pig_reaches_the_finish() -> None:
    """PM-6.1 (A) / PM-6.2: a pig reaches or passes the finish; the player who moved it scores
    3 and that pig alone wins."""
    state = position(
        hands=[[num(BROWN, 6), num(PINK, 1)], [num(BROWN, 2)], [num(BROWN, 1)]],
        top=num(BROWN, 5),
        pigs=(10, 10, 11, 0),
        finish=14,
    )
    events = ENGINE.apply(state, 0, play(num(BROWN, 6)))
    assert kinds(events)[:3] == ["card_played", "pig_moved", "race_ended"]
    assert first(events, "pig_moved").pig_moved.after == 14  # passes the finish: shown at it
    ended = first(events, "race_ended").race_ended
    assert list(ended.winners) == [2]
    assert ended.finisher_seat == 0
    assert not ended.HasField("emptied_seat")
    assert list(ended.points) == [3, 0, 0]
    assert list(ended.pigs) == [10, 14, 11, 0]
    assert state.race == 2
    assert list(state.pigs) == [0, 0, 0, 0]  # PM-2.1 for the next race


def test_pm_6_1_both_at_once_scores_3_plus_5() -> None:
    """PM-6.1: both may happen with the same card: the player scores 3 + 5 and the pig at the
    finish wins."""
    state = position(
        hands=[[num(BEIGE, 4)], [num(BROWN, 2)]],
        top=num(BEIGE, 5),
        pigs=(11, 0, 0, 9),
        finish=12,
    )
    events = ENGINE.apply(state, 0, play(num(BEIGE, 4)))
    ended = first(events, "race_ended").race_ended
    assert list(ended.winners) == [4]
    assert (ended.finisher_seat, ended.emptied_seat) == (0, 0)
    assert list(ended.points) == [8, 0]


def test_pm_6_3_last_card_scores_5_and_the_leading_pig_wins() -> None:
    """PM-6.1 (B) / PM-6.3: the player who emptied their hand scores 5; the race is won by the
    pig furthest ahead."""
    state = position(
        hands=[[x(PINK)], [num(BROWN, 2)], [num(BLACK, 2)]],
        top=num(PINK, 5),
        pigs=(3, 7, 2, 6),
        bets=[(1, BROWN), (2, PINK)],
    )
    events = ENGINE.apply(state, 0, play(x(PINK)))
    assert "seat_skipped" not in kinds(events)  # the race ended first
    ended = first(events, "race_ended").race_ended
    assert list(ended.winners) == [2]
    assert ended.emptied_seat == 0
    assert [(b.seat, b.color, b.points) for b in ended.bets] == [(1, 2, 6), (2, 1, 0)]
    assert list(ended.points) == [5, 6, 0]


def test_pm_6_4_bets_on_losers_go_back_winners_score_6_4_3_2_1() -> None:
    """PM-6.4: bets are revealed; bets on a pig that did not win go back to their owners; the
    remaining bets score in row order 6, 4, 3, 2, 1 (PM-1.4)."""
    state = position(
        hands=[
            [num(BLACK, 6), num(PINK, 1)],
            [num(BROWN, 2)],
            [num(BLACK, 2)],
            [num(PINK, 4)],
            [num(PINK, 6)],
        ],
        top=num(BLACK, 5),
        pigs=(0, 0, 10, 0),
        finish=16,
        bets=[(4, BROWN), (1, BLACK), (3, PINK), (2, BLACK), (0, BLACK)],
    )
    events = ENGINE.apply(state, 0, play(num(BLACK, 6)))
    ended = first(events, "race_ended").race_ended
    assert [(b.seat, b.points) for b in ended.bets] == [(4, 0), (1, 6), (3, 0), (2, 4), (0, 3)]
    assert list(ended.points) == [3 + 3, 6, 4, 0, 0]
    assert len(state.bet_row) == 0  # every betting card back with its owner


def test_pm_6_3_tied_leading_pigs_all_win() -> None:
    """PM-6.3: several pigs tied in the lead all win; bets on any of them score."""
    state = position(
        hands=[[num(PINK, 1)], [num(BROWN, 2)], [num(BLACK, 2)]],
        top=num(PINK, 5),
        pigs=(4, 6, 6, 0),
        bets=[(2, BLACK), (1, PINK), (0, BROWN)],
    )
    events = ENGINE.apply(state, 0, play(num(PINK, 1)))
    ended = first(events, "race_ended").race_ended
    assert sorted(ended.winners) == [2, 3]
    assert [b.points for b in ended.bets] == [6, 0, 4]
    assert list(ended.points) == [5 + 4, 0, 6]


def test_pm_6_5_after_four_races_most_points_wins_ties_share() -> None:
    """PM-6.5: after four races, the most points wins; ties share the win. C-7: per-race
    history."""
    state = position(
        hands=[[num(PINK, 1)], [num(BROWN, 2)], [num(BLACK, 2)]],
        top=num(PINK, 5),
        race=4,
        start=2,
        scores=[[3, 5, 0], [0, 6, 4], [5, 0, 0]],
    )
    assert ENGINE.result(state) is None
    events = ENGINE.apply(state, 0, play(num(PINK, 1)))  # seat 0 empties: +5
    assert kinds(events)[-2:] == ["race_ended", "game_ended"]
    assert state.phase == OVER
    assert ENGINE.active_seats(state) == []
    assert all(ENGINE.legal_moves(state, s) == [] for s in range(3))
    result = ENGINE.result(state)
    assert result is not None
    assert [r.score for r in result.seats] == [13, 11, 4]
    assert list(result.winners) == [0]
    assert [r.placement for r in result.seats] == [1, 2, 3]
    view = ENGINE.view(state, None)
    assert [list(r.points) for r in view.race_scores] == [
        [3, 5, 0],
        [0, 6, 4],
        [5, 0, 0],
        [5, 0, 0],
    ]
    assert not view.HasField("turn")


def test_pm_6_5_tie_shares_the_win() -> None:
    """PM-6.5: ties share the win."""
    state = position(
        hands=[[num(PINK, 1)], [num(BROWN, 2)]],
        top=num(PINK, 5),
        race=4,
        scores=[[0, 10], [0, 0], [0, 0]],
    )
    ENGINE.apply(state, 0, play(num(PINK, 1)))
    # seat 0 ends with 5 (its last card), seat 1 keeps its 10
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [1]
    state = position(
        hands=[[num(PINK, 1)], [num(BROWN, 2)]], top=num(PINK, 5), race=4, scores=[[0, 5]]
    )
    ENGINE.apply(state, 0, play(num(PINK, 1)))
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [0, 1]


def test_pm_6_1_tired_pig_to_the_finish_ends_the_race() -> None:
    """PM-6.1 (A) with a Tired Pig: its player moved the pig there and scores 3."""
    state = position(
        hands=[[tired(PINK), num(PINK, 1)], [num(BROWN, 2)]],
        top=num(PINK, 5),
        pigs=(11, 13, 12, 13),
        finish=14,
    )
    events = ENGINE.apply(state, 0, play(tired(PINK), pig=PINK))
    ended = first(events, "race_ended").race_ended
    assert list(ended.winners) == [1]
    assert ended.finisher_seat == 0
    assert state.phase == PLAY
    assert state.race == 2
