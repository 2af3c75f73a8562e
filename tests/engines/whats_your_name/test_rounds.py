"""WN-3: play rounds (secret simultaneous plays), drafting, the 13, refill, the final round."""

from __future__ import annotations

import itertools

import pytest

from croupier.engines.core.errors import MalformedMove
from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.helpers import encode, kinds, of_kind
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


def four_player_round(priority: int = 2) -> WhatsYourNameState:
    """4 players, stage 1 4 8 11, piles of two cards each."""
    return build(
        4,
        hands=[[5, 2, 7], [2, 6, 10], [9, 3, 12], [5, 1, 8]],
        stage=[c(1, 0), c(4, 1), c(8, 2), c(11, 3)],
        piles=[[3, 4], [3, 4], [4, 5], [3, 4]],
        priority=priority,
    )


def test_wn_3_1_every_seat_plays_secretly_in_any_order() -> None:
    """WN-3.1: each player secretly chooses one card from their hand. A choice is hidden from
    everyone (C-4) until all players have chosen; then all are revealed at once."""
    state = four_player_round()
    assert ENGINE.active_seats(state) == [0, 1, 2, 3]
    out = ENGINE.apply(state, 2, play(9))
    # the public event says who chose, never what; the chooser's own version says what
    assert out[0].public is not None
    assert not out[0].public.card_chosen.HasField("card")
    assert out[0].for_seat(2).card_chosen.card.rank == 9  # type: ignore[union-attr]
    assert out[0].for_seat(0) == out[0].public
    assert ENGINE.active_seats(state) == [0, 1, 3]
    for viewer in (None, 0, 1, 3):
        view = ENGINE.view(state, viewer)
        assert [p.has_chosen for p in view.players] == [False, False, True, False]
        assert not any(p.HasField("played") for p in view.players)
        assert not view.HasField("chosen_card")
    assert ENGINE.view(state, 2).chosen_card.rank == 9
    out = apply_all(state, [(0, play(5)), (3, play(1))])
    assert "plays_revealed" not in kinds(out)
    out = ENGINE.apply(state, 1, play(2))
    revealed = of_kind(out, "plays_revealed")[0]
    assert [(p.seat, p.card.rank) for p in revealed.plays] == [(0, 5), (1, 2), (2, 9), (3, 1)]


def test_wn_3_1_a_committed_card_cannot_be_changed() -> None:
    """WN-3.1: once chosen, a seat's card is final: another play is refused with the rule id
    and changes nothing."""
    state = four_player_round()
    ENGINE.apply(state, 0, play(5))
    assert refused(state, 0, play(2)) == "WN-3.1"
    assert refused(state, 0, play(5)) == "WN-3.1"
    assert ENGINE.legal_moves(state, 0) == []
    assert refused(state, 1, play(5)) == "WN-3.1", "a card not in hand"


def test_wn_3_1_plays_commute_so_concurrent_submissions_stay_valid() -> None:
    """WN-3.1: plays are independent: every order of the same four plays is accepted and ends
    in the same state, so a play re-applied after another seat's play stays valid."""
    plays = [(0, play(5)), (1, play(6)), (2, play(3)), (3, play(8))]
    results = set()
    for order in itertools.permutations(plays):
        state = four_player_round()
        apply_all(state, order)
        results.add(encode(state))
    assert len(results) == 1


def test_wn_3_1_wrong_phase_and_malformed_moves_are_refused() -> None:
    """WN-3.1 / C-5: during a play round nobody takes a stage card; a move without a kind or
    with a rank outside 1..13 is malformed."""
    state = four_player_round()
    assert refused(state, 0, take(1)) == "C-5"
    before = encode(state)
    for move in (WhatsYourNameMove(), play(0), play(14), take(-1)):
        with pytest.raises(MalformedMove):
            ENGINE.apply(state, 0, move)
    assert encode(state) == before


def test_wn_3_2_same_number_priority_order_decides() -> None:
    """WN-3.2 (worked scenario): two players play the same number; equal ranks are ordered by
    clockwise distance from the priority holder (the holder first, then the player to their
    left, and so on). Priority at seat 2: seat 3 (5) drafts before seat 0 (5)."""
    state = four_player_round(priority=2)
    out = apply_all(state, [(0, play(5)), (1, play(2)), (2, play(9)), (3, play(5))])
    assert list(of_kind(out, "plays_revealed")[0].drafting_order) == [1, 3, 0, 2]
    assert state.phase == WHATS_YOUR_NAME_PHASE_DRAFT
    assert ENGINE.active_seats(state) == [1]
    assert refused(state, 0, take(4)) == "C-5"
    ENGINE.apply(state, 1, take(1))
    assert ENGINE.active_seats(state) == [3], "the tie goes to seat 3, closer to the holder"
    ENGINE.apply(state, 3, take(4))
    out = ENGINE.apply(state, 0, take(8))
    assert [(t.seat, t.card.rank, t.automatic) for t in of_kind(out, "card_taken")] == [
        (0, 8, False),
        (2, 11, True),
    ]
    assert [ranks(state.positions[s].acquired) for s in range(4)] == [[8], [1], [11], [4]]


def test_wn_3_2_holder_first_among_equal_plays() -> None:
    """WN-3.2: the priority holder drafts first among equal ranks."""
    state = four_player_round(priority=3)
    out = apply_all(state, [(0, play(5)), (1, play(6)), (2, play(3)), (3, play(5))])
    assert list(of_kind(out, "plays_revealed")[0].drafting_order) == [2, 3, 0, 1]


def test_wn_3_3_each_drafter_chooses_any_stage_card() -> None:
    """WN-3.3: In drafting order, each player takes one card of their choice from the stage and
    lays it face up in front of them ("acquired" cards, public)."""
    state = four_player_round(priority=0)
    apply_all(state, [(0, play(2)), (1, play(6)), (2, play(9)), (3, play(8))])
    assert sorted(m.take.rank for m in ENGINE.legal_moves(state, 0)) == [1, 4, 8, 11]
    assert refused(state, 0, take(5)) == "WN-3.3", "no 5 on the stage"
    ENGINE.apply(state, 0, take(11))
    assert [a.rank for a in ENGINE.view(state, None).players[0].acquired] == [11]
    assert ENGINE.view(state, 1).players[0].total == 11


def test_wn_3_4_a_thirteen_sweeps_the_stage() -> None:
    """WN-3.4: a player who played a 13 takes every card on the stage and nobody else drafts
    this round."""
    state = build(
        3,
        hands=[[1, 2, 3], [13, 4, 5], [6, 7, 8]],
        stage=[c(2, 0), c(9, 1), c(10, 2)],
        piles=[[9], [9], [9]],
        priority=0,
    )
    out = apply_all(state, [(0, play(1)), (1, play(13)), (2, play(6))])
    swept = of_kind(out, "stage_swept")[0]
    assert swept.seat == 1
    assert [x.rank for x in swept.cards] == [2, 9, 10]
    assert "card_taken" not in kinds(out)
    assert ranks(state.positions[1].acquired) == [2, 9, 10]
    assert not state.positions[0].acquired
    assert not state.positions[2].acquired
    assert ranks(state.stage) == [1, 13, 6]
    assert state.phase == WHATS_YOUR_NAME_PHASE_PLAY


@pytest.mark.parametrize(("priority", "sweeper"), [(2, 3), (0, 0), (1, 3), (3, 3)])
def test_wn_3_4_two_thirteens_first_in_drafting_order_takes_all(
    priority: int, sweeper: int
) -> None:
    """WN-3.4 (worked scenario, a round with two 13s): If several played a 13, the first of
    them in drafting order (WN-3.2) takes all."""
    state = build(
        4,
        hands=[[13, 2], [4, 5], [6, 7], [13, 8]],
        stage=[c(3, 0), c(5, 1), c(9, 2), c(12, 3)],
        piles=[[1], [1], [1], [1]],
        priority=priority,
    )
    out = apply_all(state, [(0, play(13)), (1, play(4)), (2, play(6)), (3, play(13))])
    swept = of_kind(out, "stage_swept")[0]
    assert swept.seat == sweeper
    assert set(swept.thirteen_seats) == {0, 3}
    assert swept.thirteen_seats[0] == sweeper
    assert ranks(state.positions[sweeper].acquired) == [3, 5, 9, 12]
    assert "card_taken" not in kinds(out)
    # both 13s now lie on the stage with the other plays
    assert sorted(ranks(state.stage)) == [4, 6, 13, 13]


def test_wn_3_5_plays_move_onto_the_emptied_stage() -> None:
    """WN-3.5: After drafting, the stage is empty; every card played this round moves onto the
    stage."""
    state = four_player_round(priority=0)
    apply_all(state, [(0, play(2)), (1, play(6)), (2, play(9)), (3, play(8))])
    out = apply_all(state, [(0, take(1)), (1, take(4)), (3, take(8))])
    assert of_kind(out, "plays_to_stage")[0].cards[0].rank == 2
    assert state.stage == [c(2, 0), c(6, 1), c(9, 2), c(8, 3)]
    assert not any(p.HasField("played") for p in state.positions)


def test_wn_3_6_hands_refill_to_three_then_play_on_from_hand() -> None:
    """WN-3.6: Each player draws from their pile until their hand has 3 cards, or until the
    pile is empty; once the pile is empty they play on from their hand alone."""
    state = build(
        3,
        hands=[[1, 2, 3], [4, 5, 6], [7, 8, 9]],
        stage=[c(10, 0), c(11, 1), c(12, 2)],
        piles=[[4, 5], [1], []],
        priority=0,
    )
    out = apply_all(state, [(0, play(1)), (1, play(4)), (2, play(7))])
    out += apply_all(state, [(0, take(10)), (1, take(11))])
    drawn = of_kind(out, "cards_drawn")
    assert [(d.seat, d.count, d.pile_size) for d in drawn] == [(0, 1, 1), (1, 1, 0)]
    assert [len(state.positions[s].hand) for s in range(3)] == [3, 3, 2]
    assert state.phase == WHATS_YOUR_NAME_PHASE_PLAY
    assert ENGINE.active_seats(state) == [0, 1, 2]
    assert sorted(m.play.rank for m in ENGINE.legal_moves(state, 2)) == [8, 9]
    # the drawing seat alone sees what it drew
    own = next(e.for_seat(0) for e in out if e.public and e.public.HasField("cards_drawn"))
    assert own is not None
    assert [x.rank for x in own.cards_drawn.cards] == [5]
    assert not drawn[0].cards


def test_wn_3_7_final_round_counter_clockwise_priority_holder_last() -> None:
    """WN-3.7: The final round comes when hands are empty: no card is played; starting with the
    player to the right of the priority holder and going counter-clockwise, each player takes
    one card from the stage; the priority holder takes last."""
    state = build(
        4,
        hands=[[2], [3], [4], [6]],
        stage=[c(10, 0), c(11, 1), c(12, 2), c(9, 3)],
        priority=1,
        round_number=12,
    )
    out = apply_all(state, [(0, play(2)), (1, play(3)), (2, play(4)), (3, play(6))])
    out += apply_all(state, [(0, take(10)), (1, take(11)), (2, take(12))])
    started = of_kind(out, "round_started")[-1]
    assert started.final
    assert started.round == 13
    assert list(started.order) == [0, 3, 2, 1]
    assert state.phase == WHATS_YOUR_NAME_PHASE_FINAL
    assert ENGINE.active_seats(state) == [0]
    assert refused(state, 1, take(2)) == "C-5"
    assert refused(state, 0, take(13)) == "WN-3.7"
    assert refused(state, 0, play(2)) == "C-5"
    out = apply_all(state, [(0, take(6)), (3, take(2)), (2, take(3))])
    assert [(t.seat, t.card.rank) for t in of_kind(out, "card_taken")] == [
        (0, 6),
        (3, 2),
        (2, 3),
        (1, 4),
    ]
    assert state.phase == WHATS_YOUR_NAME_PHASE_OVER
    assert ENGINE.active_seats(state) == []


def test_wn_3_8_a_step_with_one_possible_card_is_automatic() -> None:
    """WN-3.8: A drafting step with exactly one possible card is applied automatically (C-6).
    Decision (ours): cards of one rank are the same card (WN-1.1), so two 6s of different
    colours leave no choice either."""
    state = build(
        3,
        hands=[[1, 2], [3, 4], [5, 6]],
        stage=[c(6, 0), c(9, 1), c(6, 2)],
        piles=[[7], [7], [7]],
        priority=0,
    )
    apply_all(state, [(0, play(1)), (1, play(3)), (2, play(5))])
    assert [m.take.rank for m in ENGINE.legal_moves(state, 0)] == [6, 9]
    out = ENGINE.apply(state, 0, take(9))
    taken = of_kind(out, "card_taken")
    assert [(t.seat, t.card.rank, t.card.colour, t.automatic) for t in taken] == [
        (0, 9, 1, False),
        (1, 6, 0, True),
        (2, 6, 2, True),
    ]


def test_decision_a_single_card_in_hand_is_played_automatically() -> None:
    """C-6, Decision (ours): a seat holding a single card has no choice; it is played for it
    (secretly: the public event still names no card)."""
    state = build(
        3,
        hands=[[1, 2], [3, 4], [5, 6]],
        stage=[c(7, 0), c(8, 1), c(9, 2)],
        priority=0,
    )
    apply_all(state, [(0, play(1)), (1, play(3)), (2, play(5))])
    out = apply_all(state, [(0, take(7)), (1, take(8))])
    chosen = of_kind(out, "card_chosen")
    assert [(x.seat, x.automatic, x.HasField("card")) for x in chosen] == [
        (0, True, False),
        (1, True, False),
        (2, True, False),
    ]
    assert kinds(out)[-1] == "plays_revealed", "the reveal follows at once"
    assert state.phase == WHATS_YOUR_NAME_PHASE_DRAFT
    assert ENGINE.active_seats(state) == [0]


def test_wn_3_7_full_game_has_twelve_play_rounds_and_a_final_one() -> None:
    """WN-3.7: the 13th round in the base game, after 12 play rounds."""
    state, out = ENGINE.new_game(Options(), 3, seed=5)
    rounds = of_kind(out, "round_started")
    while state.phase != WHATS_YOUR_NAME_PHASE_OVER:
        seat = ENGINE.active_seats(state)[0]
        out = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
        rounds += of_kind(out, "round_started")
    assert [r.round for r in rounds] == list(range(1, 14))
    assert [r.final for r in rounds] == [False] * 12 + [True]
