"""Property tests (hypothesis): random legal playouts for 3..12 players and every option end,
keep all 110 cards accounted for after every move, never show a seat another seat's hand or
the set-aside cards (views and events), keep the stored state small, and replay byte for byte.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.engine import Setup
from croupier.engines.vampire_queen import ENGINE
from croupier.engines.vampire_queen.cards import HUNTERS, full_deck
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenMove,
    VampireQueenOptions,
    VampireQueenState,
)
from tests.engines.helpers import encode
from tests.engines.playout import play_randomly
from tests.engines.vampire_queen.helpers import (
    Events,
)

FULL_DECK = Counter(full_deck())
MAX_STATE_BYTES = 2048


def accounted(state: VampireQueenState) -> Counter[int]:
    """Every card: hands, set aside, on the table, and in the grave (this round's normal
    phases; a hunt's cards went back into a hand)."""
    cards: Counter[int] = Counter(state.set_aside)
    for held in state.hands:
        cards.update(held.cards)
    for action in state.phase.plays:
        cards.update(action.cards)
    for record in state.history:
        if not record.hunt:
            for action in record.plays:
                cards.update(action.cards)
    return cards


def scrambled_state(
    state: VampireQueenState, viewer: int | None, chooser: random.Random
) -> VampireQueenState:
    """The state with everything `viewer` may not see exchanged at random: the non-Hunter cards
    of the other hands (sizes and Hunter holders are public) with the set-aside pile, and the
    generator's position."""
    other = VampireQueenState()
    other.CopyFrom(state)
    seats = [seat for seat in range(state.seats) if seat != viewer]
    pool = list(other.set_aside)
    for seat in seats:
        pool.extend(card for card in other.hands[seat].cards if card not in HUNTERS)
    chooser.shuffle(pool)
    for seat in seats:
        cards = other.hands[seat].cards
        hunters = [card for card in cards if card in HUNTERS]
        size = len(cards) - len(hunters)
        dealt, pool = pool[:size], pool[size:]
        del cards[:]
        cards.extend(sorted([*dealt, *hunters]))
    del other.set_aside[:]
    other.set_aside.extend(sorted(pool))
    other.rng.draws += 7919
    other.rng.seed ^= 0x5DEECE66D
    return other


def scrambled(state: VampireQueenState, viewer: int | None, chooser: random.Random) -> bytes:
    """The view bytes of `viewer` in a scrambled copy of the state."""
    other = scrambled_state(state, viewer, chooser)
    return ENGINE.view(other, viewer).SerializeToString(deterministic=True)


def check_views(state: VampireQueenState, chooser: random.Random) -> None:
    for viewer in [*range(state.seats), None]:
        view = ENGINE.view(state, viewer)
        own = list(state.hands[viewer].cards) if viewer is not None else []
        assert list(view.hand) == own
        assert list(view.hand_sizes) == [len(h.cards) for h in state.hands]
        assert view.SerializeToString(deterministic=True) == scrambled(state, viewer, chooser)


def check_events(state: VampireQueenState, events: Events) -> None:
    """Only a seat's own dealt hand reaches it; no other event carries a hand."""
    for emitted in events:
        assert set(emitted.private) <= set(range(state.seats))
        for viewer in [*range(state.seats), None]:
            event = emitted.for_seat(viewer)
            if event is None:
                continue
            if event.WhichOneof("kind") == "round_started":
                own = list(state.hands[viewer].cards) if viewer is not None else []
                assert list(event.round_started.hand) == own
        for seat, event in emitted.private.items():
            assert event.WhichOneof("kind") == "round_started"
            assert list(event.round_started.hand) == list(state.hands[seat].cards)


def playout(options: VampireQueenOptions, seats: int, seed: int) -> None:
    chooser = random.Random(seed)
    state, events = ENGINE.new_game(options, seats, seed)
    check_events(state, events)
    log: list[tuple[int, VampireQueenMove]] = []
    while ENGINE.result(state) is None:
        assert len(log) < 20_000
        assert accounted(state) == FULL_DECK
        assert len(encode(state)) < MAX_STATE_BYTES
        check_views(state, chooser)
        (seat,) = ENGINE.active_seats(state)
        move = chooser.choice(ENGINE.legal_moves(state, seat))
        events = ENGINE.apply(state, seat, move)
        check_events(state, events)
        log.append((seat, move))
    assert accounted(state) == FULL_DECK
    assert len(state.round_penalties) == (options.rounds or 5)
    assert ENGINE.active_seats(state) == []
    replayed = ENGINE.replay(Setup(options=options, seats=seats, seed=seed), log)
    assert encode(replayed) == encode(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    seats=st.integers(3, 12),
    deal_all=st.booleans(),
    rounds=st.integers(1, 2),
    first=st.none() | st.integers(0, 11),
)
def test_random_playouts_keep_every_invariant(
    seed: int, seats: int, deal_all: bool, rounds: int, first: int | None
) -> None:
    """VQ-1 / VQ-2 / C-2 / C-4: random legal play ends, conserves the 110 cards, never leaks a
    hidden card to a view or event, and replays from seed and log byte for byte."""
    options = VampireQueenOptions(deal_all=deal_all, rounds=rounds)
    if first is not None:
        options.first_hunter_seat = first % seats
    playout(options, seats, seed)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), seats=st.integers(3, 12), deal_all=st.booleans())
def test_generic_playout_with_options(seed: int, seats: int, deal_all: bool) -> None:
    """VQ-2.2 / VQ-2.4 The generic playout checks (only the seat to act has moves, refused moves
    change nothing, encoding round-trips) hold for the options too, over a full 5-round game."""
    play_randomly(ENGINE, VampireQueenOptions(deal_all=deal_all), seats, seed)
