"""VQ-4: the end of a round, scoring, the next round and the end of the game."""

from __future__ import annotations

from collections import Counter

from croupier.engines.vampire_queen import ENGINE
from croupier.engines.vampire_queen.cards import full_deck
from tests.engines.helpers import kinds
from tests.engines.vampire_queen.helpers import (
    H15,
    H20,
    Q,
    hand,
    pass_,
    play,
    play_move,
    position,
    public,
    refused,
)


def test_vq_4_1_round_ends_after_the_phase_that_empties_a_hand() -> None:
    """VQ-4.1 The round ends at the end of a phase after which at least one player's hand is
    empty. A player who empties their hand mid-phase simply acts no more in it; the others
    finish the phase."""
    state = position([[5], [7, 8, H20], [9, 2]], leader=0, rounds=2)
    events = play(state, 0, 5)
    assert kinds(events) == ["cards_played"]  # the phase goes on
    assert public(events, "cards_played")[0].cards_played.cards_left == 0
    assert ENGINE.active_seats(state) == [1]
    play(state, 1, 7)
    events = play(state, 2, 9)
    assert kinds(events) == [
        "cards_played",
        "phase_won",
        "round_scored",
        "round_started",
        "phase_started",
    ]
    scored = public(events, "round_scored")[0].round_scored
    assert list(scored.emptied) == [0]
    assert list(scored.penalties) == [0, 8 + 20, 2]
    assert state.round == 2


def test_vq_4_1_round_goes_on_while_every_hand_holds_cards() -> None:
    """VQ-4.1 Without an empty hand at the end of a phase, the next phase starts."""
    state = position([[5, 6], [7, 8], [9, 2]], leader=0)
    play(state, 0, 5)
    pass_(state, 1)
    events = pass_(state, 2)
    assert kinds(events) == ["passed", "phase_won", "phase_started"]
    assert state.round == 1


def test_vq_4_2_hunt_taker_who_played_last_card_has_not_emptied() -> None:
    """VQ-4.2 In a hunt, emptiness is checked after the cards are taken: a player who played
    their last card but then had to take the phase's cards has not emptied their hand."""
    state = position([[H20, 2], [13], [3, 4]], leader=0)
    play(state, 0, H20)
    assert public(play(state, 1, 13), "cards_played")[0].cards_played.cards_left == 0
    events = play(state, 2, 3)
    assert kinds(events) == ["cards_played", "hunt_taken", "phase_started"]
    assert hand(state, 1) == [3, 13, H20]
    assert state.round == 1
    assert ENGINE.active_seats(state) == [1]


def test_vq_4_2_hunt_non_taker_who_played_last_card_has_emptied() -> None:
    """VQ-4.2 A player who played their last card in a hunt and did not take the cards has an
    empty hand after it: the round ends."""
    state = position([[H20, 2], [13, 1], [3]], leader=0, rounds=1)
    play(state, 0, H20)
    play(state, 1, 13)
    events = play(state, 2, 3)
    assert kinds(events) == ["cards_played", "hunt_taken", "round_scored", "game_over"]
    scored = public(events, "round_scored")[0].round_scored
    assert list(scored.emptied) == [2]
    assert list(scored.penalties) == [2, 1 + 3 + 13 + 20, 0]


def test_vq_4_3_remaining_hands_score_their_numbers() -> None:
    """VQ-4.3 Vampires score their rank, each Queen 14, Hunter 15 scores 15, Hunter 20 scores
    20. Example: a hand of 3, 10 and a Queen scores 27."""
    state = position([[5], [3, 10, Q], [H15, H20, 1]], leader=0, rounds=1)
    play(state, 0, 5)
    pass_(state, 1)
    events = pass_(state, 2)
    scored = public(events, "round_scored")[0].round_scored
    assert list(scored.penalties) == [0, 27, 36]
    assert list(scored.totals) == [0, 27, 36]
    assert [list(r.penalties) for r in state.round_penalties] == [[0, 27, 36]]
    assert list(ENGINE.view(state, 1).round_penalties[0].penalties) == [0, 27, 36]


def test_vq_4_4_next_round_hunters_stay_others_reshuffled() -> None:
    """VQ-4.4 Next round: Hunters are not reshuffled; they stay in their holders' hands. All
    other cards are gathered, shuffled and dealt as in VQ-2.2. The holder of Hunter 20 leads
    the first phase."""
    state = position([[5], [3, 10, Q], [H15, 1], [H20, 2]], leader=0, rounds=3)
    play(state, 0, 5)
    pass_(state, 1)
    pass_(state, 2)
    events = pass_(state, 3)
    assert state.round == 2
    assert H15 in hand(state, 2)
    assert H20 in hand(state, 3)
    assert [len(h.cards) for h in state.hands] == [13, 13, 14, 14]
    everything = Counter(state.set_aside)
    for held in state.hands:
        everything.update(held.cards)
    assert everything == Counter(full_deck())
    assert len(state.history) == 0
    assert state.phase.leader == 3
    assert ENGINE.active_seats(state) == [3]
    started = public(events, "round_started")[0].round_started
    assert (started.round, list(started.hand_sizes)) == (2, [13, 13, 14, 14])
    # Each seat receives its own new hand privately, and only its own.
    for seat in range(4):
        own = [e.for_seat(seat) for e in events if e.private]
        assert len(own) == 1
        assert own[0] is not None
        assert list(own[0].round_started.hand) == hand(state, seat)


def test_vq_4_5_lowest_total_wins_ties_share() -> None:
    """VQ-4.5 After the last round the game ends; the lowest total penalty wins; ties share the
    win."""
    state = position(
        [[5], [1, 2], [H15, H20, 6]], leader=0, rounds=2, round_number=2, penalties=[[3, 0, 9]]
    )
    play(state, 0, 5)
    pass_(state, 1)
    events = pass_(state, 2)
    assert kinds(events) == ["passed", "phase_won", "round_scored", "game_over"]
    over = public(events, "game_over")[0].game_over
    assert list(over.totals) == [3, 3, 50]
    assert list(over.winners) == [0, 1]
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [0, 1]
    assert [(s.seat, s.score, s.placement) for s in result.seats] == [
        (0, 3, 1),
        (1, 3, 1),
        (2, 50, 3),
    ]
    assert ENGINE.active_seats(state) == []
    for seat in range(3):
        assert ENGINE.legal_moves(state, seat) == []
    refused(state, 1, play_move(1), "C-5")
    view = ENGINE.view(state, 0)
    assert view.over
    assert not view.HasField("turn")
    assert list(view.totals) == [3, 3, 50]


def test_vq_4_5_game_not_over_has_no_result() -> None:
    """VQ-4.5 Before the last round ends there is no result."""
    state = position([[5, 1], [1, 2], [H15, H20, 6]])
    assert ENGINE.result(state) is None
