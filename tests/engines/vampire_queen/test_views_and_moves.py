"""VQ-6 (what each seat sees, C-4) and how moves are checked (C-5, malformed moves)."""

from __future__ import annotations

import pytest

from croupier.engines.core.errors import MalformedMove
from croupier.engines.vampire_queen import ENGINE
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions
from tests.engines.helpers import encode
from tests.engines.vampire_queen.helpers import (
    H15,
    H20,
    Q,
    hand,
    pass_,
    play,
    play_move,
    position,
    refused,
)


def test_vq_6_view_shows_what_a_seat_may_see() -> None:
    """VQ-6 Own hand; every hand's size; who holds each Hunter; every card played in the
    current phase and the history of completed phases of this round; per-round and total
    penalties; whose turn it is. The set-aside leftover cards are seen by no one."""
    state = position(
        [[3, 4, 9, H15], [5, 6, 10, 11], [7, 8, 12, H20], [1, 1, 2, 2]],
        leader=0,
        penalties=[[4, 0, 20, 7]],
        round_number=2,
    )
    play(state, 0, 3)
    pass_(state, 1)
    pass_(state, 2)
    pass_(state, 3)  # phase 1 done: seat 0 leads again
    play(state, 0, 4)
    pass_(state, 1)
    view = ENGINE.view(state, 2)
    assert (view.round, view.rounds) == (2, 5)
    assert list(view.hand) == [7, 8, 12, H20]
    assert list(view.hand_sizes) == [2, 4, 4, 4]
    assert (view.hunter_15_holder, view.hunter_20_holder) == (0, 2)
    assert [(p.seat, list(p.cards)) for p in view.phase.plays] == [(0, [4]), (1, [])]
    assert (view.phase.leader, view.phase.hunt) == (0, False)
    assert len(view.history) == 1
    assert [(p.seat, list(p.cards)) for p in view.history[0].plays] == [(0, [3])]
    assert view.history[0].winner == 0
    assert [list(r.penalties) for r in view.round_penalties] == [[4, 0, 20, 7]]
    assert list(view.totals) == [4, 0, 20, 7]
    assert view.turn == 2
    assert (view.count_to_play, view.rank_to_beat) == (1, 4)
    assert view.set_aside_count == len(state.set_aside)
    assert not view.over
    spectator = ENGINE.view(state, None)
    assert list(spectator.hand) == []
    assert list(spectator.hand_sizes) == [2, 4, 4, 4]


def test_vq_6_view_never_shows_other_hands_or_set_aside() -> None:
    """VQ-6 / C-4 A seat's view does not change when the cards it may not see are exchanged:
    other hands (Hunters kept, VQ-1.3) and the set-aside pile."""
    state, _ = ENGINE.new_game(VampireQueenOptions(first_hunter_seat=0), 4, seed=11)
    other = state.__class__()
    other.CopyFrom(state)
    # Swap seat 2's and seat 3's first non-Hunter card with set-aside cards.
    for seat in (2, 3):
        cards = [c for c in other.hands[seat].cards if c not in (H15, H20)]
        spare = other.set_aside[seat]
        if cards[0] != spare:
            other.set_aside[seat] = cards[0]
            cards[0] = spare
            keep = [c for c in other.hands[seat].cards if c in (H15, H20)]
            del other.hands[seat].cards[:]
            other.hands[seat].cards.extend(sorted([*cards, *keep]))
    other.rng.draws += 1000
    assert encode(other) != encode(state)
    for viewer in (0, 1, None):
        assert ENGINE.view(other, viewer).SerializeToString(deterministic=True) == ENGINE.view(
            state, viewer
        ).SerializeToString(deterministic=True)
    assert ENGINE.view(other, 2) != ENGINE.view(state, 2)


def test_c_5_only_the_seat_to_act_may_move() -> None:
    """C-5 Only the seats the rules allow may act; a refused move changes nothing."""
    state = position([[3, 4], [5, 6], [7, 8]], leader=0)
    assert ENGINE.active_seats(state) == [0]
    assert ENGINE.legal_moves(state, 1) == []
    refused(state, 1, play_move(5), "C-5")


def test_c_5_cards_must_be_held() -> None:
    """C-5 A seat plays only cards it holds, copies counted."""
    state = position([[3, 4, Q], [5, 6], [7, 8]], leader=0)
    refused(state, 0, play_move(5), "C-5")
    refused(state, 0, play_move(3, 3), "C-5")
    refused(state, 0, play_move(Q, Q), "C-5")
    refused(state, 0, play_move(H20), "C-5")


def test_a_play_is_a_multiset_in_any_order() -> None:
    """VQ-1.2 A move plays a multiset of cards: repeated codes, in any order."""
    state = position([[Q, 11, 11, 2], [5, 6], [7, 8]], leader=0)
    play(state, 0, Q, 11, 11)
    assert hand(state, 0) == [2]
    assert list(state.phase.plays[0].cards) == [11, 11, Q]


@pytest.mark.parametrize(
    ("move", "field"),
    [
        (VampireQueenMove(), "kind"),
        (VampireQueenMove(play=VampireQueenMove.PlayCards()), "play.cards"),
        (play_move(0), "play.cards"),
        (play_move(16), "play.cards"),
        (play_move(3, 99), "play.cards"),
    ],
)
def test_malformed_moves_are_refused(move: VampireQueenMove, field: str) -> None:
    """C-5 A move that is not a move of this game (no kind, no cards, an unknown card) is
    malformed and changes nothing."""
    state = position([[3, 4], [5, 6], [7, 8]], leader=0)
    before = encode(state)
    with pytest.raises(MalformedMove) as caught:
        ENGINE.apply(state, 0, move)
    assert caught.value.field == field
    assert encode(state) == before
