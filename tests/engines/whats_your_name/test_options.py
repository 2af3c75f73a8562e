"""WN-7: option `hidden_card` (a secret card set aside at setup) and option `match` (one game
per player, the mirror card)."""

from __future__ import annotations

import itertools

from croupier.engines.whats_your_name import ENGINE
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.helpers import encode, kinds, of_kind
from tests.engines.whats_your_name.helpers import (
    apply_all,
    build,
    c,
    hide,
    mirror,
    play,
    ranks,
    refused,
    take,
)

Options = WhatsYourNameOptions
HIDDEN = Options(hidden_card=True)
MATCH = Options(match=True)


def _hidden_game(seats: int = 3) -> WhatsYourNameState:
    """A hidden-card game in which seat 0 holds its 13 among its four cards."""
    for seed in range(500):
        state, _ = ENGINE.new_game(HIDDEN, seats, seed=seed)
        if c(13, 0) in state.positions[0].hand:
            return state
    raise AssertionError("no such seed")


def test_wn_7_1_hidden_card_is_a_secret_simultaneous_setup_choice() -> None:
    """WN-7.1: at setup each player draws 4 instead of 3 and puts one of them (not a 13) face
    down beside their pile: their hidden card, seen only by them. The hidden-card choice is a
    setup move of each player, simultaneous and secret, before round 1."""
    state = _hidden_game()
    assert state.phase == WHATS_YOUR_NAME_PHASE_HIDE
    assert [len(state.positions[s].hand) for s in range(3)] == [4, 4, 4]
    assert [len(state.positions[s].pile) for s in range(3)] == [8, 8, 8]
    assert ENGINE.active_seats(state) == [0, 1, 2]
    assert 13 not in [m.hide.rank for m in ENGINE.legal_moves(state, 0)]
    assert len(ENGINE.legal_moves(state, 0)) == 3
    assert refused(state, 0, hide(13)) == "WN-7.1"
    assert refused(state, 0, play(ranks(state.positions[0].hand)[0])) == "C-5"
    rank = next(r for r in ranks(state.positions[0].hand) if r != 13)
    out = ENGINE.apply(state, 0, hide(rank))
    assert out[0].public is not None
    assert not out[0].public.hidden_card_set.HasField("card")
    assert out[0].for_seat(0).hidden_card_set.card.rank == rank  # type: ignore[union-attr]
    assert refused(state, 0, hide(ranks(state.positions[0].hand)[0])) == "WN-7.1"
    for viewer in (None, 1, 2):
        view = ENGINE.view(state, viewer)
        assert view.players[0].has_chosen
        assert view.players[0].has_hidden_card
        assert not view.players[0].HasField("revealed_hidden_card")
        assert not view.HasField("hidden_card")
    assert ENGINE.view(state, 0).hidden_card.rank == rank
    assert ENGINE.active_seats(state) == [1, 2]
    for seat in (2, 1):
        ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    assert state.phase == WHATS_YOUR_NAME_PHASE_PLAY
    assert state.round == 1
    assert [len(state.positions[s].hand) for s in range(3)] == [3, 3, 3]


def test_wn_7_1_hidden_choices_commute() -> None:
    """WN-7.1: the simultaneous choices may come in any order with the same outcome."""
    base = _hidden_game()
    moves = [(s, ENGINE.legal_moves(base, s)[1]) for s in range(3)]
    results = set()
    for order in itertools.permutations(moves):
        state = WhatsYourNameState.FromString(encode(base))
        apply_all(state, order)
        results.add(encode(state))
    assert len(results) == 1


def test_wn_7_1_hide_needs_the_option() -> None:
    """WN-7.1: without option `hidden_card` there is no hidden card."""
    state, _ = ENGINE.new_game(Options(), 3, seed=2)
    assert state.phase == WHATS_YOUR_NAME_PHASE_PLAY
    assert refused(state, 0, hide(ranks(state.positions[0].hand)[0])) == "WN-7.1"


def test_wn_7_1_an_acquired_card_of_the_hidden_rank_discards_both() -> None:
    """WN-7.1: When a card a player acquires has the rank of their hidden card, the two are
    discarded. Decision: this is applied automatically (C-6)."""
    state = build(
        3,
        hands=[[1, 2], [3, 4], [6, 7]],
        stage=[c(5, 2), c(9, 1), c(11, 0)],
        hidden={0: 5, 1: 9},
        piles=[[3], [5], [2]],
        priority=0,
        options=HIDDEN,
    )
    apply_all(state, [(0, play(1)), (1, play(3)), (2, play(6))])
    out = ENGINE.apply(state, 0, take(5))
    matched = of_kind(out, "hidden_card_matched")[0]
    assert matched.seat == 0
    assert (matched.card.rank, matched.card.colour) == (5, 2)
    assert (matched.hidden_card.rank, matched.hidden_card.colour) == (5, 0)
    assert not state.positions[0].acquired
    assert not state.positions[0].HasField("hidden")
    assert sorted(state.discarded) == sorted([c(5, 2), c(5, 0)])
    assert not ENGINE.view(state, None).players[0].has_hidden_card
    out = ENGINE.apply(state, 1, take(9))
    assert of_kind(out, "hidden_card_matched")[0].seat == 1


def test_wn_7_1_a_remaining_hidden_card_is_revealed_and_counts() -> None:
    """WN-7.1: At the end a remaining hidden card is revealed and counts in the total."""
    state = build(
        3,
        hands=[[], [], []],
        stage=[c(4, 0), c(6, 1), c(8, 2)],
        acquired=[[c(2, 1)], [c(3, 2)], []],
        hidden={0: 7, 2: 1},
        priority=0,
        options=HIDDEN,
        phase=WHATS_YOUR_NAME_PHASE_FINAL,
        round_number=12,
        draft_order=[2, 1, 0],
    )
    assert not ENGINE.view(state, 1).players[0].HasField("revealed_hidden_card")
    out = apply_all(state, [(2, take(4)), (1, take(6))])
    ended = of_kind(out, "game_ended")[0]
    assert [
        (t.total, t.hidden_card.rank if t.HasField("hidden_card") else 0) for t in ended.totals
    ] == [
        (17, 7),
        (9, 0),
        (5, 1),
    ]
    view = ENGINE.view(state, None)
    assert [p.revealed_hidden_card.rank for p in view.players] == [7, 0, 1]
    assert [p.total for p in view.players] == [17, 9, 5]
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) == [2]


def test_wn_7_1_a_hidden_game_has_eleven_play_rounds() -> None:
    """WN-7.1: then play goes on with 3 in hand (one card fewer in play: 11 play rounds)."""
    state, _out = ENGINE.new_game(HIDDEN, 2, seed=4)
    rounds = []
    while state.phase != WHATS_YOUR_NAME_PHASE_OVER:
        seat = ENGINE.active_seats(state)[0]
        rounds += of_kind(
            ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0]), "round_started"
        )
    assert [r.final for r in rounds] == [False] * 11 + [True]
    assert not state.positions[2].HasField("hidden"), "the virtual player has no hidden card"
    assert len(state.positions[2].pile) == 1, "the virtual player's last card stays unrevealed"


def test_wn_7_2_a_match_plays_one_game_per_player_and_sums_the_totals() -> None:
    """WN-7.2: play as many games as there are players; record each game's totals. After the
    last game the lowest sum of recorded totals wins."""
    state, out = ENGINE.new_game(MATCH, 3, seed=8)
    events = list(out)
    while state.phase != WHATS_YOUR_NAME_PHASE_OVER:
        seat = ENGINE.active_seats(state)[0]
        events += ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    assert [g.game_number for g in of_kind(events, "game_started")] == [1, 2, 3]
    ended = of_kind(events, "game_ended")
    assert [g.last for g in ended] == [False, False, True]
    assert [len(pos.totals) for pos in state.positions] == [3, 3, 3]
    for p in range(3):
        assert list(state.positions[p].totals) == [g.totals[p].total for g in ended]
        assert ended[-1].totals[p].match_total == sum(state.positions[p].totals)
    result = ENGINE.result(state)
    assert result is not None
    assert [s.score for s in result.seats] == [sum(pos.totals) for pos in state.positions]
    assert len(of_kind(events, "mirror_given")) == 2
    assert list(ENGINE.view(state, None).players[1].recorded_totals) == list(
        state.positions[1].totals
    )


def test_wn_7_2_mirror_goes_to_the_highest_recorded_total_ties_lowest_index() -> None:
    """WN-7.2: Before each game after the first, the player with the highest recorded total so
    far receives the mirror card (Decision: ties go to the tied seat with the lowest index)."""
    state = build(
        3,
        hands=[[], [], []],
        stage=[c(1, 0), c(1, 1), c(1, 2)],
        acquired=[[c(10, 0)], [c(2, 1)], [c(10, 2)]],
        priority=0,
        options=MATCH,
        phase=WHATS_YOUR_NAME_PHASE_FINAL,
        round_number=13,
        draft_order=[2, 1, 0],
    )
    out = ENGINE.apply(state, 2, take(1))
    assert [g.total for g in of_kind(out, "game_ended")[0].totals] == [11, 3, 11]
    assert kinds(out).index("game_started") < kinds(out).index("mirror_given")
    given = of_kind(out, "mirror_given")[0]
    assert (given.seat, given.recorded_total) == (0, 11)
    assert state.mirror_seat == 0
    assert state.game_number == 2
    assert ENGINE.view(state, 1).mirror_seat == 0


def _mirror_draft() -> WhatsYourNameState:
    return build(
        3,
        hands=[[1, 2], [3, 4], [6, 7]],
        stage=[c(5, 2), c(9, 1), c(11, 0)],
        acquired=[[], [c(12, 0), c(8, 2)], []],
        piles=[[3], [5], [2]],
        priority=0,
        options=MATCH,
        mirror=1,
    )


def test_wn_7_2_mirror_is_used_out_of_turn() -> None:
    """WN-7.2: The mirror may be discarded together with one of its holder's acquired cards at
    any moment (a move of its own, allowed out of turn) while the holder's pile is not empty."""
    state = _mirror_draft()
    ENGINE.apply(state, 1, play(3))
    assert ENGINE.active_seats(state) == [0, 1, 2], "the holder stays active after its play"
    assert sorted(m.use_mirror.rank for m in ENGINE.legal_moves(state, 1)) == [8, 12]
    apply_all(state, [(0, play(1)), (2, play(6))])
    assert state.phase == WHATS_YOUR_NAME_PHASE_DRAFT
    assert ENGINE.active_seats(state) == [0, 1], "seat 0 drafts; seat 1 may use the mirror"
    assert refused(state, 0, mirror(5)) == "WN-7.2", "only the holder"
    assert refused(state, 1, mirror(5)) == "WN-7.2", "an acquired card of that rank"
    out = ENGINE.apply(state, 1, mirror(12))
    used = of_kind(out, "mirror_used")[0]
    assert (used.seat, used.card.rank) == (1, 12)
    assert ranks(state.positions[1].acquired) == [8]
    assert state.discarded == [c(12, 0)]
    assert not state.HasField("mirror_seat")
    assert ENGINE.active_seats(state) == [0]
    assert refused(state, 1, mirror(8)) == "WN-7.2", "the mirror is used once"


def test_wn_7_2_holder_without_acquired_cards_cannot_use_it() -> None:
    """WN-7.2: the mirror goes with an acquired card; with none, the holder has nothing to do
    out of turn."""
    state = _mirror_draft()
    del state.positions[1].acquired[:]
    ENGINE.apply(state, 1, play(3))
    assert ENGINE.active_seats(state) == [0, 2]
    assert ENGINE.legal_moves(state, 1) == []


def test_wn_7_2_unused_mirror_is_discarded_when_the_pile_empties() -> None:
    """WN-7.2: when the holder's pile empties, an unused mirror is discarded."""
    state = _mirror_draft()
    out = apply_all(state, [(0, play(1)), (1, play(3)), (2, play(6)), (0, take(5)), (1, take(9))])
    assert of_kind(out, "mirror_discarded")[0].seat == 1
    assert not state.HasField("mirror_seat")
    assert ENGINE.active_seats(state) == [0, 1, 2]
    assert refused(state, 1, mirror(8)) == "WN-7.2"


def test_wn_7_2_mirror_needs_the_option() -> None:
    """WN-7.2: without option `match` there is no mirror."""
    state = _mirror_draft()
    state.options.match = False
    assert refused(state, 1, mirror(12)) == "WN-7.2"


def test_wn_7_2_match_ties_use_the_last_games_priority_holder() -> None:
    """WN-7.2: ties as WN-5.2 using the last game's priority holder."""
    state = build(
        3,
        hands=[[], [], []],
        stage=[],
        priority=2,
        options=MATCH,
        phase=WHATS_YOUR_NAME_PHASE_OVER,
        totals=[[10, 20, 5], [15, 15, 5], [30, 4, 1]],
    )
    result = ENGINE.result(state)
    assert result is not None
    assert [s.score for s in result.seats] == [35, 35, 35]
    assert list(result.winners) == [2]
    assert [s.placement for s in result.seats] == [2, 3, 1]
