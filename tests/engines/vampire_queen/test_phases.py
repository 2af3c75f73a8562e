"""VQ-3: phases (tricks), leads and follows, and the rulebook's worked example VQ-3.5."""

from __future__ import annotations

from croupier.engines.vampire_queen import ENGINE
from tests.engines.helpers import kinds
from tests.engines.vampire_queen.helpers import (
    H15,
    H20,
    Q,
    can_pass,
    hand,
    pass_,
    pass_move,
    play,
    play_move,
    plays_of,
    position,
    public,
    refused,
)


def test_vq_3_one_action_each_clockwise_from_the_leader() -> None:
    """VQ-3 A round is a sequence of phases; in a phase every player acts exactly once, starting
    with the leader and going clockwise (a pass is an action), and only the seat whose turn it
    is may act."""
    state = position([[7, 11], [9, 12], [4, 5], [8, 13]], leader=2)
    order = []
    for move in ([4], [8], [], [9]):
        active = ENGINE.active_seats(state)
        assert active == [state.turn]
        order.append(state.turn)
        for other in set(range(4)) - set(active):
            refused(state, other, play_move(*move) if move else pass_move(), "C-5")
        if move:
            play(state, state.turn, *move)
        else:
            pass_(state, state.turn)
    assert order == [2, 3, 0, 1]
    # Four actions, one per seat: the phase is over and the next one starts (VQ-3.4).
    assert not state.phase.plays
    assert state.phase.leader == 1 and state.turn == 1


def test_vq_3_1_leader_must_play() -> None:
    """VQ-3.1 The leader must play (never pass)."""
    state = position([[3, 4], [5, 6], [7, 8]])
    assert not can_pass(ENGINE.legal_moves(state, 0))
    refused(state, 0, pass_move(), "VQ-3.1")


def test_vq_3_1_leads_one_rank_queens_may_join() -> None:
    """VQ-3.1 The leader plays one vampire card; or several cards of one rank (Queens may join;
    Queens alone are allowed); or exactly one Hunter."""
    state = position([[3, 3, 5, Q, Q, H15], [5, 6], [7, 8]])
    assert plays_of(ENGINE.legal_moves(state, 0)) == {
        (3,),
        (3, Q),
        (3, Q, Q),
        (3, 3),
        (3, 3, Q),
        (3, 3, Q, Q),
        (5,),
        (5, Q),
        (5, Q, Q),
        (Q,),
        (Q, Q),
        (H15,),
    }
    refused(state, 0, play_move(3, 5), "VQ-3.1")
    refused(state, 0, play_move(3, 3, 5, Q), "VQ-3.1")
    refused(state, 0, play_move(H15, 3), "VQ-5.1")
    play(state, 0, 3, 3, Q)
    assert hand(state, 0) == [5, Q, H15]


def test_vq_3_1_leader_listing_is_complete_for_a_big_hand() -> None:
    """VQ-3.1 Every rank with every count and every Queen combination is listed, once."""
    big = [*range(1, 14), *range(1, 14), 7, 7, Q, Q, Q, Q, H15, H20]
    state = position([big, [1], [2]])
    listed = [tuple(m.play.cards) for m in ENGINE.legal_moves(state, 0)]
    assert len(listed) == len(set(listed))
    # Per rank: held copies c, Queens 4: c * 5 plays; Queens alone 4; two Hunters.
    expected = sum(big.count(rank) * 5 for rank in range(1, 14)) + 4 + 2
    assert len(listed) == expected


def test_vq_3_2_follow_same_count_strictly_higher() -> None:
    """VQ-3.2 Every other player either passes or plays exactly as many cards as the leader did,
    forming one rank, strictly higher than the most recent play in this phase."""
    state = position([[6, 6, 1], [6, 6, 7, 7, 7, 9, 9, Q], [8, 8, 2], [1, 1, 1]])
    play(state, 0, 6, 6)
    refused(state, 1, play_move(6, 6), "VQ-3.2")  # equal is not higher
    refused(state, 1, play_move(7, 7, 7), "VQ-3.2")  # three, not two
    refused(state, 1, play_move(7), "VQ-3.2")  # one, not two
    refused(state, 1, play_move(7, 9), "VQ-3.2")  # not one rank
    assert plays_of(ENGINE.legal_moves(state, 1)) == {(7, 7), (7, Q), (9, 9), (9, Q)}
    play(state, 1, 9, 9)
    # The bar is the most recent play (9s), not the leader's (6s).
    assert plays_of(ENGINE.legal_moves(state, 2)) == set()
    refused(state, 2, play_move(8, 8), "VQ-3.2")
    pass_(state, 2)
    assert ENGINE.view(state, 3).rank_to_beat == 9
    assert ENGINE.view(state, 3).count_to_play == 2


def test_vq_3_2_passing_is_always_allowed() -> None:
    """VQ-3.2 Passing is always allowed (even when able to play), except in a hunt."""
    state = position([[2, 5], [13, 13, Q], [3, 4]])
    play(state, 0, 2)
    moves = ENGINE.legal_moves(state, 1)
    assert can_pass(moves)
    assert plays_of(moves) == {(13,), (Q,)}
    assert kinds(pass_(state, 1)) == ["passed"]
    assert state.turn == 2


def test_vq_3_3_no_hunter_from_a_follower() -> None:
    """VQ-3.3 A non-leader can never play a Hunter in a normal phase."""
    state = position([[2, 5], [H20, 3], [H15, 4]])
    play(state, 0, 2)
    assert plays_of(ENGINE.legal_moves(state, 1)) == {(3,)}
    refused(state, 1, play_move(H20), "VQ-3.3")


def test_vq_3_4_phase_ends_highest_play_leads() -> None:
    """VQ-3.4 After every player has acted once, the phase ends. The played cards leave the game
    until the next round. The player of the highest play leads the next phase."""
    state = position([[4, 9], [5, 10], [6, 1], [2, 3]], leader=1)
    play(state, 1, 5)
    play(state, 2, 6)
    pass_(state, 3)
    events = play(state, 0, 9)
    assert kinds(events) == ["cards_played", "phase_won", "phase_started"]
    won = public(events, "phase_won")[0].phase_won
    assert (won.seat, list(won.cards), won.cards_to_grave) == (0, [9], 3)
    assert state.phase.leader == 0
    assert state.turn == 0
    assert not state.phase.plays
    # The cards are in the grave: recorded in this round's history, in no hand.
    record = state.history[-1]
    assert [(p.seat, list(p.cards)) for p in record.plays] == [(1, [5]), (2, [6]), (0, [9])]
    assert (record.leader, record.winner, record.hunt) == (1, 0, False)
    assert hand(state, 1) == [10]
    assert hand(state, 2) == [1]


def test_vq_3_4_all_others_pass_leader_leads_again() -> None:
    """VQ-3.4 If all others passed, the leader leads again."""
    state = position([[4, 9], [5, 10], [6, 1]], leader=2)
    play(state, 2, 6)
    pass_(state, 0)
    events = pass_(state, 1)
    assert public(events, "phase_won")[0].phase_won.seat == 2
    assert public(events, "phase_started")[0].phase_started.leader == 2
    assert ENGINE.active_seats(state) == [2]


def test_vq_3_5_worked_example_three_elevens_lead_next() -> None:
    """VQ-3.5 Worked example (rulebook, 5 players): leader plays three 6s; next plays three 10s;
    next passes; next plays three 11s; next passes. The phase ends; the player of the three
    11s leads."""
    # Oseop (0) leads; Anseok (1), Jihun (2), Yeongju (3), Jeonghui (4) follow clockwise.
    hands = [
        [6, 6, 6, 2, 3],
        [10, 10, 10, 4, 5],
        [1, 1, 1, 7],
        [11, 11, 11, 8, 9],
        [12, 12, 13],
    ]
    state = position(hands, leader=0)
    assert kinds(play(state, 0, 6, 6, 6)) == ["cards_played"]
    assert kinds(play(state, 1, 10, 10, 10)) == ["cards_played"]
    assert kinds(pass_(state, 2)) == ["passed"]
    assert kinds(play(state, 3, 11, 11, 11)) == ["cards_played"]
    events = pass_(state, 4)
    assert kinds(events) == ["passed", "phase_won", "phase_started"]
    assert public(events, "phase_won")[0].phase_won.seat == 3
    assert public(events, "phase_won")[0].phase_won.cards_to_grave == 9
    assert public(events, "phase_started")[0].phase_started.leader == 3
    assert ENGINE.active_seats(state) == [3]
    assert hand(state, 3) == [8, 9]
    assert [len(h.cards) for h in state.hands] == [2, 2, 4, 2, 3]
