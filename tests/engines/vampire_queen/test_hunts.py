"""VQ-5: the hunt phase, the forced pass, the hunter lock and the worked example VQ-5.8."""

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


def test_vq_5_1_hunter_led_alone_starts_a_hunt() -> None:
    """VQ-5.1 A Hunter can be played only by the leader, alone, as the lead. That phase is a
    hunt."""
    state = position([[H15, 3, 3], [4, 5], [6, H20]])
    refused(state, 0, play_move(H15, 3), "VQ-5.1")
    events = play(state, 0, H15)
    played = public(events, "cards_played")[0].cards_played
    assert (played.hunt, played.rank) == (True, 0)
    assert state.phase.hunt
    assert ENGINE.view(state, None).phase.hunt
    assert not ENGINE.view(state, None).HasField("hunter_15_holder")  # it lies on the table


def test_vq_5_2_hunter_zero_queen_one() -> None:
    """VQ-5.2 In a hunt, the leader's Hunter counts as 0, a Queen counts as 1, vampires their
    rank."""
    # A Queen does not beat a 2.
    state = position([[H20, 9], [2, 8], [Q, 8]])
    play(state, 0, H20)
    play(state, 1, 2)
    events = play(state, 2, Q)
    assert public(events, "cards_played")[0].cards_played.rank == 1
    assert public(events, "hunt_taken")[0].hunt_taken.seat == 1
    # A Queen ties a 1; the later of them takes.
    state = position([[H20, 9], [Q, 8], [1, 8]])
    play(state, 0, H20)
    play(state, 1, Q)
    events = play(state, 2, 1)
    assert public(events, "hunt_taken")[0].hunt_taken.seat == 2


def test_vq_5_3_no_pass_one_card_any_strength_no_hunter() -> None:
    """VQ-5.3 No one may pass; every other player must play exactly one card, any card,
    regardless of strength. A non-leader may never play a Hunter in a hunt."""
    state = position([[H20, 13], [H15, 1, 1, 7, Q], [2, 3]])
    play(state, 0, H20)
    moves = ENGINE.legal_moves(state, 1)
    assert not can_pass(moves)
    assert plays_of(moves) == {(1,), (7,), (Q,)}
    refused(state, 1, pass_move(), "VQ-5.3")
    refused(state, 1, play_move(1, 1), "VQ-5.3")
    refused(state, 1, play_move(H15), "VQ-5.3")
    play(state, 1, 1)  # weaker than nothing in particular: any card will do
    assert ENGINE.active_seats(state) == [2]


def test_vq_5_4_forced_pass_takes_the_cards() -> None:
    """VQ-5.4 A non-leader whose whole hand is a single Hunter cannot play; they are forced to
    pass and must take all the cards played in that phase (instead of VQ-5.5)."""
    state = position([[H20, 5], [H15], [3, 4], [6, 7]], leader=0)
    events = play(state, 0, H20)
    # C-6: the pass is applied at once, nobody is asked.
    assert kinds(events) == ["cards_played", "passed"]
    assert public(events, "passed")[0].passed.forced
    assert ENGINE.active_seats(state) == [2]
    assert ENGINE.legal_moves(state, 1) == []
    play(state, 2, 4)
    events = play(state, 3, 7)  # the strongest card, yet the forced passer takes
    taken = public(events, "hunt_taken")[0].hunt_taken
    assert (taken.seat, taken.forced, list(taken.cards)) == (1, True, [4, 7, H20])
    assert hand(state, 1) == [4, 7, H15, H20]
    assert hand(state, 3) == [6]
    assert state.history[-1].winner == 1
    assert [(p.seat, p.forced) for p in state.history[-1].plays][1] == (1, True)


def test_vq_5_4_forced_pass_as_last_seat_ends_the_hunt() -> None:
    """VQ-5.4 The forced pass may be the phase's last action: the hunt ends right away."""
    state = position([[H20, 5], [6, 2], [H15]], leader=0)
    play(state, 0, H20)
    events = play(state, 1, 6)
    assert kinds(events) == ["cards_played", "passed", "hunt_taken", "phase_started"]
    assert hand(state, 2) == [6, H15, H20]
    assert ENGINE.active_seats(state) == [2]


def test_vq_5_4_hunter_holder_with_other_cards_is_not_forced() -> None:
    """VQ-5.4 Only a hand that is a single Hunter is forced; a Hunter holder with other cards
    plays one of them."""
    state = position([[H20, 5], [H15, 2], [3, 4]], leader=0)
    events = play(state, 0, H20)
    assert kinds(events) == ["cards_played"]
    assert plays_of(ENGINE.legal_moves(state, 1)) == {(2,)}


def test_vq_5_5_strongest_takes_later_wins_ties() -> None:
    """VQ-5.5 Otherwise the player of the strongest card takes all the cards played in the phase
    into their hand; on a tie, the one who played later in the phase takes them."""
    state = position([[H15, 1], [9, 2], [4, 2], [9, 3]], leader=0)
    play(state, 0, H15)
    play(state, 1, 9)
    play(state, 2, 4)
    events = play(state, 3, 9)
    taken = public(events, "hunt_taken")[0].hunt_taken
    assert (taken.seat, taken.forced, list(taken.cards)) == (3, False, [4, 9, 9, H15])
    assert hand(state, 3) == [3, 4, 9, 9, H15]
    assert hand(state, 1) == [2]
    assert state.history[-1].hunt


def test_vq_5_6_taker_leads_next() -> None:
    """VQ-5.6 The player who took the cards leads the next phase (also the forced passer)."""
    state = position([[H15, 1], [9, 2], [4, 2]], leader=0)
    play(state, 0, H15)
    play(state, 1, 9)
    events = play(state, 2, 4)
    assert public(events, "phase_started")[0].phase_started.leader == 1
    assert ENGINE.active_seats(state) == [1]


def test_vq_5_7_taken_hunter_locked_for_the_next_lead() -> None:
    """VQ-5.7 A Hunter taken into a hand during a hunt cannot be led in the very next phase by
    its new holder; they must first lead at least one other phase. A Hunter they held before
    may be led at once."""
    state = position([[H20, 1, 1], [9, 2, H15, 5], [4, 2, 6]], leader=0)
    play(state, 0, H20)
    play(state, 1, 9)
    events = play(state, 2, 4)
    assert public(events, "hunt_taken")[0].hunt_taken.locked_hunter == H20
    lead = plays_of(ENGINE.legal_moves(state, 1))
    assert (H20,) not in lead
    assert (H15,) in lead  # held before the hunt
    message = refused(state, 1, play_move(H20), "VQ-5.7")
    assert "Hunter 20" in message
    view = ENGINE.view(state, 2)
    assert [(lock.seat, lock.hunter) for lock in view.locks] == [(1, H20)]
    # Seat 1 leads another phase; everybody passes; seat 1 leads again, unlocked.
    play(state, 1, 2)
    pass_(state, 2)
    pass_(state, 0)
    assert not state.locks
    assert (H20,) in plays_of(ENGINE.legal_moves(state, 1))
    play(state, 1, H20)


def test_vq_5_7_leading_the_other_hunter_lifts_the_lock() -> None:
    """VQ-5.7 Leading a hunt with the Hunter held before counts as leading another phase."""
    state = position([[1, 1], [9, 2, H15, H20, 5], [4, 2, 6]], leader=1, locks=[(1, H15)])
    refused(state, 1, play_move(H15), "VQ-5.7")
    play(state, 1, H20)
    assert not state.locks


def test_vq_5_7_lock_outlasts_the_round() -> None:
    """VQ-5.7 Decision (ours): the lock lasts until its holder next leads, even when the hunt
    ended the round; the new round's first phase is still the very next phase."""
    state = position([[H20, 2], [13, 7], [3]], leader=0, rounds=2)
    play(state, 0, H20)
    play(state, 1, 13)
    events = play(state, 2, 3)  # seat 2 emptied its hand: the round ends
    assert "round_started" in kinds(events)
    assert state.round == 2
    assert H20 in hand(state, 1)
    assert ENGINE.active_seats(state) == [1]  # the Hunter 20 holder leads
    refused(state, 1, play_move(H20), "VQ-5.7")


def test_vq_5_8_worked_example_later_two_takes_five_cards() -> None:
    """VQ-5.8 Worked example (rulebook): the leader plays Hunter 20; the others play 2, 1, 2,
    Queen. The Queen counts 1, so the two 2s tie; the later of them takes all five cards and
    leads next, and may not lead Hunter 20 in that phase."""
    # Oseop (0) leads; Anseok (1), Jihun (2), Yeongju (3), Jeonghui (4).
    hands = [[H20, 5, 6], [2, 7, 8], [1, 9, 10], [2, 11, 12], [Q, 13, 13]]
    state = position(hands, leader=0)
    assert kinds(play(state, 0, H20)) == ["cards_played"]
    assert kinds(play(state, 1, 2)) == ["cards_played"]
    assert kinds(play(state, 2, 1)) == ["cards_played"]
    assert kinds(play(state, 3, 2)) == ["cards_played"]
    events = play(state, 4, Q)
    assert kinds(events) == ["cards_played", "hunt_taken", "phase_started"]
    taken = public(events, "hunt_taken")[0].hunt_taken
    assert (taken.seat, list(taken.cards)) == (3, [1, 2, 2, Q, H20])
    assert hand(state, 3) == [1, 2, 2, 11, 12, Q, H20]
    assert public(events, "phase_started")[0].phase_started.leader == 3
    assert ENGINE.view(state, None).hunter_20_holder == 3
    refused(state, 3, play_move(H20), "VQ-5.7")
    assert (H20,) not in plays_of(ENGINE.legal_moves(state, 3))
