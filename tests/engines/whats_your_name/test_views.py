"""WN-8 (what each seat sees) and WN-1.3 (the mirror card exists only with `match`)."""

from __future__ import annotations

from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_OVER,
    WhatsYourNameOptions,
)
from tests.engines.whats_your_name.helpers import apply_all, build, c, play, take

Options = WhatsYourNameOptions


def test_wn_8_what_each_seat_sees() -> None:
    """WN-8: Own hand and own hidden card; every stage card; every acquired card; each pile's
    and hand's size; who holds the priority card; during a play round, which seats have
    already chosen (never what); the revealed plays after the reveal; scores."""
    state = build(
        3,
        hands=[[1, 2, 3], [4, 5, 6], [7, 8, 9]],
        stage=[c(10, 0), c(11, 1), c(12, 2)],
        piles=[[3, 4], [1], []],
        acquired=[[c(2, 2)], [], [c(5, 0), c(6, 1)]],
        hidden={1: 12},
        priority=1,
        options=Options(hidden_card=True),
    )
    ENGINE.apply(state, 2, play(8))
    own = ENGINE.view(state, 1)
    assert [x.rank for x in own.hand] == [4, 5, 6]
    assert own.hidden_card.rank == 12
    assert not own.HasField("chosen_card")
    assert [x.rank for x in own.stage] == [10, 11, 12]
    assert [[x.rank for x in p.acquired] for p in own.players] == [[2], [], [5, 6]]
    assert [(p.pile_size, p.hand_size) for p in own.players] == [(2, 3), (1, 3), (0, 2)]
    assert own.priority_seat == 1
    assert [p.has_chosen for p in own.players] == [False, False, True]
    assert [p.has_hidden_card for p in own.players] == [False, True, False]
    assert [p.total for p in own.players] == [2, 0, 11]
    assert not any(p.HasField("played") for p in own.players)
    spectator = ENGINE.view(state, None)
    assert not spectator.hand
    assert not spectator.HasField("hidden_card")
    assert ENGINE.view(state, 2).chosen_card.rank == 8
    apply_all(state, [(0, play(3)), (1, play(4))])
    after = ENGINE.view(state, None)
    assert [p.played.rank for p in after.players] == [3, 4, 8]
    assert list(after.draft_order) == [0, 1, 2]
    ENGINE.apply(state, 0, take(10))
    ENGINE.apply(state, 1, take(11))
    done = ENGINE.view(state, 0)
    assert not any(p.HasField("played") for p in done.players)
    assert [x.rank for x in done.stage] == [3, 4, 8]


def test_wn_1_3_the_mirror_exists_only_with_match() -> None:
    """WN-1.3: A mirror card (only with option `match`, WN-7). It is first given before the
    second game."""
    for options in (Options(), Options(hidden_card=True)):
        state, _ = ENGINE.new_game(options, 3, seed=12)
        while state.phase != WHATS_YOUR_NAME_PHASE_OVER:
            assert not state.HasField("mirror_seat")
            seat = ENGINE.active_seats(state)[0]
            moves = ENGINE.legal_moves(state, seat)
            assert all(m.WhichOneof("kind") != "use_mirror" for m in moves)
            ENGINE.apply(state, seat, moves[0])
    state, _ = ENGINE.new_game(Options(match=True), 3, seed=12)
    assert not state.HasField("mirror_seat")
    while state.game_number == 1:
        seat = ENGINE.active_seats(state)[0]
        ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    assert state.HasField("mirror_seat")
