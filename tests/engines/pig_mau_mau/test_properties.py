"""Property tests: random legal play for 2..5 players and every option ends after four races,
conserves the 39 cards and each player's four betting cards, never shows a seat another
seat's hand, the draw pile or another seat's bet colour (views, events, errors), and replays
byte for byte from seed and move log (C-2, C-4, C-5, PM-6.5); a forgotten Mau call never hands
a pending +2 total on (PM-7.3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.engine import Setup
from croupier.engines.core.errors import IllegalMove
from croupier.engines.pig_mau_mau import ENGINE
from croupier.engines.pig_mau_mau.cards import COLOUR_NAMES
from croupier.v1.pig_mau_mau_pb2 import PigMauMauMove, PigMauMauOptions
from tests.engines.pig_mau_mau.positions import (
    all_cards,
    check_events_hide_secrets,
    encode,
    kinds,
    scrambled,
)
from tests.engines.playout import play_randomly

MAX_MOVES = 5_000


def options_strategy() -> st.SearchStrategy[PigMauMauOptions]:
    return st.builds(
        lambda mau, finish, start: PigMauMauOptions(
            mau=mau, finish_distance=finish, **({} if start is None else {"start_seat": start})
        ),
        st.booleans(),
        st.sampled_from([0, 0, 1, 5, 30]),
        st.one_of(st.none(), st.integers(0, 1)),
    )


def play_checked(options: PigMauMauOptions, seats: int, seed: int) -> None:
    chooser = random.Random(seed)
    state, events = ENGINE.new_game(options, seats, seed)
    check_events_hide_secrets(state, events)
    log: list[tuple[int, PigMauMauMove]] = []
    races_ended = 0
    while ENGINE.result(state) is None:
        assert len(log) < MAX_MOVES
        active = ENGINE.active_seats(state)
        assert len(active) == 1
        seat = active[0]
        moves = ENGINE.legal_moves(state, seat)
        assert moves
        for other in range(seats):
            if other != seat:
                assert ENGINE.legal_moves(state, other) == []
        move = chooser.choice(moves)
        # a seat off turn is refused with C-5, and the message names no pig, bet or card
        before = encode(state)
        other = (seat + 1) % seats
        with pytest.raises(IllegalMove) as refused:
            ENGINE.apply(state, other, move)
        assert refused.value.rule_id == "C-5"
        assert not any(name in refused.value.message for name in COLOUR_NAMES)
        assert encode(state) == before
        events = ENGINE.apply(state, seat, move)
        log.append((seat, move))
        races_ended += kinds(events).count("race_ended")
        if "mau_forgotten" in kinds(events):
            # PM-7.3: a forgotten call never moves a pending +2 total on to the next player
            assert "draw_pending" not in kinds(events)
            for emitted in events:
                event = emitted.for_seat(None)
                if event is not None and event.WhichOneof("kind") == "cards_drawn":
                    assert event.cards_drawn.seat == seat or not event.cards_drawn.pending_total
        check_events_hide_secrets(state, events)
        # the 39 game cards are all somewhere, once
        assert all_cards(state) == list(range(39))
        # every player's four betting cards: at most one in the row, the rest in hand
        owners = [bet.seat for bet in state.bet_row]
        assert len(owners) == len(set(owners)) <= min(seats, 5)
        # no view notices a change in what it may not see
        for viewer in [*range(seats), None]:
            want = ENGINE.view(state, viewer).SerializeToString(deterministic=True)
            other_state = scrambled(state, viewer, seed + len(log))
            got = ENGINE.view(other_state, viewer).SerializeToString(deterministic=True)
            assert got == want
            if viewer is not None:
                assert len(ENGINE.view(state, viewer).hand) == len(state.hands[viewer].cards)
    assert races_ended == 4
    assert len(state.race_scores) == 4
    assert len(state.bet_row) == 0
    result = ENGINE.result(state)
    assert result is not None
    assert [r.score for r in result.seats] == [
        sum(r.points[s] for r in state.race_scores) for s in range(seats)
    ]
    best = max(r.score for r in result.seats)
    assert list(result.winners) == [r.seat for r in result.seats if r.score == best]
    replayed = ENGINE.replay(Setup(options=options, seats=seats, seed=seed), log)
    assert encode(replayed) == encode(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    seats=st.integers(2, 5),
    options=options_strategy(),
)
def test_random_play_keeps_every_invariant(
    seed: int, seats: int, options: PigMauMauOptions
) -> None:
    """C-2, C-4, C-5, PM-1.2, PM-1.3, PM-6.5: see the module docstring."""
    play_checked(options, seats, seed)


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
@pytest.mark.parametrize("mau", [False, True])
def test_generic_playout_with_options(seats: int, mau: bool) -> None:
    """The generic random playout (tests/engines/playout.py) with each option."""
    options = PigMauMauOptions(mau=mau, finish_distance=8 if mau else 0)
    state, _ = play_randomly(ENGINE, options, seats, seed=seats * 7 + mau)
    assert len(state.race_scores) == 4
