"""WN-4 pairs and WN-5 end: pairs discarded two by two, totals, tie order."""

from __future__ import annotations

import pytest

from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_OVER,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.helpers import of_kind
from tests.engines.whats_your_name.helpers import (
    apply_all,
    build,
    c,
    play,
    ranks,
    take,
)

Options = WhatsYourNameOptions


def test_wn_4_1_two_acquired_cards_of_a_rank_are_discarded_at_once() -> None:
    """WN-4.1: Whenever a player's acquired cards contain two of the same rank, those two are
    discarded at once, out of the game."""
    state = build(
        3,
        hands=[[1, 2], [3, 4], [6, 7]],
        stage=[c(5, 2), c(9, 1), c(11, 0)],
        acquired=[[c(5, 1), c(8, 0)], [], []],
        piles=[[3], [5], [2]],
        priority=0,
    )
    apply_all(state, [(0, play(1)), (1, play(3)), (2, play(6))])
    out = ENGINE.apply(state, 0, take(5))
    pair = of_kind(out, "pair_discarded")[0]
    assert pair.seat == 0
    assert [(x.rank, x.colour) for x in pair.cards] == [(5, 1), (5, 2)]
    assert ranks(state.positions[0].acquired) == [8]
    assert sorted(state.discarded) == [c(5, 1), c(5, 2)]
    view = ENGINE.view(state, None)
    assert [x.rank for x in view.discarded] == [5, 5]
    assert view.players[0].total == 8


@pytest.mark.parametrize(
    ("fives_on_stage", "already", "left"),
    [(3, 0, 1), (4, 0, 0), (5, 0, 1), (2, 1, 1), (3, 1, 0)],
)
def test_wn_4_1_pairs_go_two_by_two(fives_on_stage: int, already: int, left: int) -> None:
    """WN-4.1: Pairs always go two by two: three of a rank leave one, four leave none, five
    leave one."""
    stage = [c(5, colour) for colour in range(fives_on_stage)]
    stage += [c(10 - i, 5 - i) for i in range(6 - fives_on_stage)]
    state = build(
        6,
        hands=[[13, 1], [2, 3], [3, 4], [4, 5], [6, 7], [8, 9]],
        stage=stage,
        acquired=[[c(5, 5)] * already, [], [], [], [], []],
        piles=[[1]] * 6,
        priority=0,
    )
    out = apply_all(state, [(s, play(ENGINE.legal_moves(state, s)[0].play.rank)) for s in range(6)])
    assert of_kind(out, "stage_swept")[0].seat == 0
    assert ranks(state.positions[0].acquired).count(5) == left
    assert len(of_kind(out, "pair_discarded")) == (fives_on_stage + already) // 2


def _final_three(priority: int, acquired: list[list[int]], stage: list[int]) -> WhatsYourNameState:
    return build(
        3,
        hands=[[], [], []],
        stage=stage,
        acquired=acquired,
        priority=priority,
        phase=WHATS_YOUR_NAME_PHASE_FINAL,
        round_number=13,
        draft_order=[(priority - i) % 3 for i in range(1, 4)],
    )


def test_wn_5_1_lowest_total_wins() -> None:
    """WN-5.1: After the final round, each player sums the ranks of their acquired cards. The
    lowest total wins."""
    state = _final_three(
        0,
        [[c(2, 0), c(3, 1)], [c(10, 2)], [c(1, 0), c(12, 1)]],
        [c(4, 0), c(6, 1), c(8, 2)],
    )
    assert ENGINE.result(state) is None
    out = apply_all(state, [(2, take(4)), (1, take(6))])  # seat 0 gets the 8
    assert state.phase == WHATS_YOUR_NAME_PHASE_OVER
    ended = of_kind(out, "game_ended")[0]
    assert [(t.seat, t.total, t.placement) for t in ended.totals] == [
        (0, 13, 1),
        (1, 16, 2),
        (2, 17, 3),
    ]
    result = ENGINE.result(state)
    assert result is not None
    assert [(s.seat, s.score, s.placement) for s in result.seats] == [
        (0, 13, 1),
        (1, 16, 2),
        (2, 17, 3),
    ]
    assert list(result.winners) == [0]
    assert [p.total for p in ENGINE.view(state, None).players] == [13, 16, 17]


@pytest.mark.parametrize(
    ("priority", "totals", "placements"),
    [
        (2, [10, 10, 10, 12], [2, 3, 1, 4]),  # the holder wins the tie
        (1, [8, 12, 9, 8], [2, 4, 3, 1]),  # holder not tied: closest clockwise (3 before 0)
        (3, [5, 5, 5, 5], [2, 3, 4, 1]),
        (0, [7, 3, 3, 9], [3, 1, 2, 4]),
    ],
)
def test_wn_5_2_ties_go_to_the_priority_holder_then_clockwise(
    priority: int, totals: list[int], placements: list[int]
) -> None:
    """WN-5.2: Ties: the priority holder wins; otherwise the tied player closest clockwise to
    the priority holder wins. Placements of everyone follow the same order."""
    state = build(
        4,
        hands=[[]] * 4,
        stage=[],
        priority=priority,
        phase=WHATS_YOUR_NAME_PHASE_OVER,
        totals=[[t] for t in totals],
    )
    result = ENGINE.result(state)
    assert result is not None
    assert [s.placement for s in result.seats] == placements
    assert list(result.winners) == [placements.index(1)]
    assert [s.score for s in result.seats] == totals
