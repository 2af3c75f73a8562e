"""WN-6: the two-player game's virtual player (table position 2, not a seat)."""

from __future__ import annotations

from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_OVER,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.helpers import kinds, of_kind
from tests.engines.whats_your_name.helpers import (
    apply_all,
    build,
    c,
    play,
    ranks,
    refused,
    take,
)

Options = WhatsYourNameOptions


def two_player_round(vp_pile: list[int]) -> WhatsYourNameState:
    return build(
        2,
        hands=[[2, 5, 13], [4, 9, 6]],
        stage=[c(3, 0), c(7, 1), c(10, 2)],
        piles=[[1, 8], [1, 8], vp_pile],
        priority=0,
    )


def test_wn_6_3_virtual_player_takes_the_leftover_and_reveals_its_next_card() -> None:
    """WN-6.3: It has no hand and plays no card. In each play round, after both players have
    drafted, it takes the last card left on the stage (if any) face up in front of it, then
    reveals the top card of its pile onto the stage."""
    state = two_player_round([1, 11])
    assert ENGINE.active_seats(state) == [0, 1]
    assert refused(state, 2, play(1)) == "C-5", "the virtual player is no seat"
    apply_all(state, [(0, play(5)), (1, play(4))])
    out = apply_all(state, [(1, take(3)), (0, take(7))])
    taken = of_kind(out, "card_taken")
    assert [(t.seat, t.card.rank, t.automatic) for t in taken] == [
        (1, 3, False),
        (0, 7, False),
        (2, 10, True),
    ]
    assert of_kind(out, "virtual_revealed")[0].card.rank == 11
    assert kinds(out).index("card_taken") < kinds(out).index("virtual_revealed")
    assert ranks(state.positions[2].acquired) == [10]
    assert ranks(state.stage) == [11, 5, 4]
    assert list(state.positions[2].pile) == [c(1, 2)]
    view = ENGINE.view(state, 0)
    assert view.players[2].virtual
    assert view.players[2].pile_size == 1
    assert [x.rank for x in view.players[2].acquired] == [10]


def test_wn_6_3_a_revealed_thirteen_has_no_effect() -> None:
    """WN-6.3: A revealed 13 has no effect: it lies on the stage like any card."""
    state = two_player_round([1, 13])
    apply_all(state, [(0, play(5)), (1, play(4)), (1, take(3)), (0, take(7))])
    assert ranks(state.stage) == [13, 5, 4]
    assert ranks(state.positions[2].acquired) == [10]
    apply_all(state, [(0, play(2)), (1, play(9))])
    ENGINE.apply(state, 0, take(13))
    assert 13 in ranks(state.positions[0].acquired)


def test_wn_6_3_a_players_thirteen_leaves_the_virtual_player_nothing() -> None:
    """WN-6.3 with WN-3.4 (worked scenario, two players): a player's 13 sweeps the stage, so
    the virtual player takes nothing; it still reveals its next card."""
    state = two_player_round([1, 11])
    out = apply_all(state, [(1, play(9)), (0, play(13))])
    assert of_kind(out, "stage_swept")[0].seat == 0
    assert ranks(state.positions[0].acquired) == [3, 7, 10]
    assert not state.positions[2].acquired
    assert [t.seat for t in of_kind(out, "card_taken")] == []
    assert of_kind(out, "virtual_revealed")[0].card.rank == 11
    assert ranks(state.stage) == [11, 13, 9]


def test_wn_6_4_virtual_player_takes_the_last_card_of_the_final_round() -> None:
    """WN-6.4: In the final round it takes the card left after both players have taken
    theirs."""
    state = build(
        2,
        hands=[[], []],
        stage=[c(6, 2), c(2, 0), c(9, 1)],
        priority=1,
        phase=WHATS_YOUR_NAME_PHASE_FINAL,
        round_number=13,
        draft_order=[0, 1],
    )
    out = apply_all(state, [(0, take(2)), (1, take(6))])
    assert [(t.seat, t.card.rank) for t in of_kind(out, "card_taken")] == [(0, 2), (1, 6), (2, 9)]
    assert state.phase == WHATS_YOUR_NAME_PHASE_OVER


def test_wn_6_5_virtual_player_pairs_off_is_scored_and_can_beat_both_players() -> None:
    """WN-6.5: Its acquired cards pair off (WN-4) and it is scored (WN-5); it ranks among the
    players, and if it has the lowest total, no player wins."""
    state = build(
        2,
        hands=[[], []],
        stage=[c(12, 0), c(11, 1), c(4, 2)],
        acquired=[[c(6, 0)], [c(5, 1)], [c(4, 0), c(2, 1)]],
        priority=0,
        phase=WHATS_YOUR_NAME_PHASE_FINAL,
        round_number=13,
        draft_order=[1, 0],
    )
    out = apply_all(state, [(1, take(12)), (0, take(11))])
    assert of_kind(out, "pair_discarded")[0].seat == 2
    assert ranks(state.positions[2].acquired) == [2]
    ended = of_kind(out, "game_ended")[0]
    assert [(t.seat, t.total, t.placement) for t in ended.totals] == [
        (0, 17, 2),
        (1, 17, 3),
        (2, 2, 1),
    ]
    result = ENGINE.result(state)
    assert result is not None
    assert [s.seat for s in result.seats] == [0, 1], "only real seats are listed"
    assert [s.placement for s in result.seats] == [2, 3]
    assert list(result.winners) == []
    assert "virtual player" in result.summary
    assert "no player wins" in result.summary
    assert ENGINE.view(state, None).players[2].total == 2


def test_wn_6_5_virtual_player_ranks_in_the_tie_order() -> None:
    """WN-6.5 with WN-5.2: the virtual player sits at table position 2, so with the priority
    at seat 1 it wins a tie against seat 0 (closer clockwise)."""
    state = build(
        2,
        hands=[[], []],
        stage=[],
        priority=1,
        phase=WHATS_YOUR_NAME_PHASE_OVER,
        totals=[[9], [12], [9]],
    )
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == []
    assert [s.placement for s in result.seats] == [2, 3]
    state.priority_seat = 0
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [0]
    assert [s.placement for s in result.seats] == [1, 3]


def test_wn_6_virtual_player_full_game_scores_all_three_sets() -> None:
    """WN-6.3/6.5: in a full two-player game the virtual player reveals one card per play round
    and ends with its pile empty; all 39 cards are accounted for."""
    state, _ = ENGINE.new_game(Options(), 2, seed=21)
    while state.phase != WHATS_YOUR_NAME_PHASE_OVER:
        seat = ENGINE.active_seats(state)[-1]
        ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[-1])
    assert not state.positions[2].pile
    cards = [*state.discarded] + [a for pos in state.positions for a in pos.acquired]
    assert sorted(cards) == list(range(39))
