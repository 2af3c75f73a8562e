"""Property tests: random legal play (hypothesis) for every option terminates, conserves the 54
cards, keeps every hand even between actions (TR-5.5), lists exactly the possible targets of
every step (TR-3.4, TR-4), never shows a seat another seat's unrevealed hand or the deck (C-4,
TR-6), and replays byte for byte from seed and move log (C-2)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.engine import Emitted
from croupier.engines.trinity import ENGINE
from croupier.engines.trinity.cards import ACE, SPADES, TEN, rank_of, suit_of
from croupier.engines.trinity.rules import row_of_seat
from croupier.v1.trinity_pb2 import (
    TRINITY_ROW_J,
    TRINITY_ROW_K,
    TRINITY_ROW_Q,
    TRINITY_STEP_ACTION,
    TRINITY_STEP_DISCARD,
    TRINITY_STEP_GIFT,
    TRINITY_STEP_GIFT_DISCARD,
    TRINITY_STEP_SUIT_EFFECT,
    TRINITY_STEP_SWAP,
    TrinityEvent,
    TrinityMove,
    TrinityOptions,
    TrinityState,
)
from tests.engines.helpers import encode
from tests.engines.playout import play_randomly
from tests.engines.trinity.helpers import (
    all_cards,
)

J, Q, K = TRINITY_ROW_J, TRINITY_ROW_Q, TRINITY_ROW_K
ROWS_CHOICES = [[], [J, Q, K], [K, J, Q], [Q, K, J]]


def options_strategy() -> st.SearchStrategy[TrinityOptions]:
    return st.builds(
        lambda rows, advanced, stop: TrinityOptions(
            rows=rows, advanced=advanced, stop_when_unwinnable=stop
        ),
        st.sampled_from(ROWS_CHOICES),
        st.booleans(),
        st.booleans(),
    )


# --- an independent statement of what may be chosen (the oracle) ----------------------------


def own_row(state: TrinityState, seat: int) -> list[int]:
    r = row_of_seat(state, seat)
    return list(state.board[4 * r : 4 * r + 4])


def oracle_swaps(state: TrinityState, seat: int, ten: bool) -> set[tuple[int, int, int]]:
    r = row_of_seat(state, seat)
    return {
        (own + 1, other_row + 1, other + 1)
        for own in range(4)
        for other_row in range(3)
        for other in range(4)
        if other_row != r
        and state.board[4 * r + own]
        and state.board[4 * other_row + other]
        and (not ten or own == other)
    }


def oracle_slot_targets(slots: list[int], suit: int) -> set[int]:
    filled = [i for i, x in enumerate(slots) if x]
    if suit == 3:  # ♣: any card of the row
        return {i + 1 for i in filled}
    if len(filled) < 2:
        return set()
    keep = filled[-1] if suit == 2 else filled[0]  # ♦ rightmost, ♥ leftmost
    return {i + 1 for i in filled if i != keep}


def oracle_reveals(hand: list[int], revealed: list[int]) -> set[int]:
    if len(hand) < 2:
        return set()
    return {x for x in hand if x not in revealed}


def oracle_use(state: TrinityState, seat: int, code: int) -> bool:
    rest = [x for x in state.hands[seat].cards if x != code]
    if not rest:
        return False
    if code >= 53:
        return True
    suit = suit_of(code)
    if suit == SPADES:
        effect = bool(oracle_reveals(rest, list(state.hands[seat].revealed)))
    else:
        effect = bool(oracle_slot_targets(own_row(state, seat), suit))
    rank = rank_of(code)
    swap = rank in (TEN, ACE) and bool(oracle_swaps(state, seat, rank == TEN))
    return effect or swap


def check_listing(state: TrinityState, seat: int, moves: list[TrinityMove]) -> None:
    """The listing holds every possible choice and nothing else (TR-3.4, TR-4)."""
    by_kind: dict[str, set[tuple[int, ...]]] = {}
    for m in moves:
        kind = m.WhichOneof("kind") or ""
        part = getattr(m, kind)
        key = tuple(f[1] for f in part.ListFields())
        assert key not in by_kind.setdefault(kind, set()), f"duplicate {m}"
        by_kind[kind].add(key)
    hand = list(state.hands[seat].cards)
    if state.step == TRINITY_STEP_ACTION:
        assert {k[0] for k in by_kind.get("place", set())} == set(hand)
        assert {k[0] for k in by_kind.get("discard_two", set())} == set(hand)
        usable = {x for x in hand if oracle_use(state, seat, x)}
        assert {k[0] for k in by_kind.get("use", set())} == usable
    elif state.step == TRINITY_STEP_SUIT_EFFECT:
        code = state.using_card
        rank = rank_of(code)
        special = rank in (TEN, ACE)
        swaps = oracle_swaps(state, seat, rank == TEN) if special else set()
        if suit_of(code) == SPADES:
            expected = oracle_reveals(hand, list(state.hands[seat].revealed))
            assert {k[0] for k in by_kind.get("reveal", set())} == expected
        else:
            expected = oracle_slot_targets(own_row(state, seat), suit_of(code))
            assert {k[0] for k in by_kind.get("target_slot", set())} == expected
        assert ("skip" in by_kind) == (special and bool(swaps))
    elif state.step == TRINITY_STEP_SWAP:
        swaps = oracle_swaps(state, seat, rank_of(state.using_card) == TEN)
        assert by_kind.get("swap", set()) == swaps
        assert ("skip" in by_kind) == state.effect_done
    elif state.step == TRINITY_STEP_DISCARD:
        expected = set(hand) - {state.revealed_now}
        assert {k[0] for k in by_kind.get("discard", set())} == expected
    elif state.step == TRINITY_STEP_GIFT:
        assert {k[0] for k in by_kind.get("give", set())} == set(hand)
    elif state.step == TRINITY_STEP_GIFT_DISCARD:
        expected = set(hand) - {state.gift_card} if len(hand) > 1 else set(hand)
        assert {k[0] for k in by_kind.get("discard", set())} == expected
    assert moves, "a seat to act always has a move (never a step it cannot complete)"


# --- what a seat may not see ---------------------------------------------------------------


def hidden_from(state: TrinityState, viewer: int | None) -> list[tuple[int, int]]:
    """(holder, index) of every card `viewer` may not see: the deck (holder -1) and the
    unrevealed cards of the other hands."""
    spots = [(-1, i) for i in range(len(state.deck))]
    for seat, h in enumerate(state.hands):
        if seat == viewer:
            continue
        spots += [(seat, i) for i, x in enumerate(h.cards) if x not in h.revealed]
    return spots


def scrambled(state: TrinityState, viewer: int | None, rnd: random.Random) -> TrinityState:
    """The state with the cards hidden from `viewer` shuffled among their places."""
    other = TrinityState.FromString(encode(state))
    spots = hidden_from(state, viewer)
    if viewer is not None and state.step == TRINITY_STEP_GIFT_DISCARD:
        # The giver (and the receiver) know the given card: it stays where it is.
        spots = [(s, i) for s, i in spots if _at(state, s, i) != state.gift_card]
    values = [_at(state, s, i) for s, i in spots]
    rnd.shuffle(values)
    for (s, i), value in zip(spots, values, strict=True):
        if s < 0:
            other.deck[i] = value
        else:
            other.hands[s].cards[i] = value
    return other


def _at(state: TrinityState, holder: int, index: int) -> int:
    return state.deck[index] if holder < 0 else state.hands[holder].cards[index]


def event_cards(event: TrinityEvent) -> Iterator[int]:
    part = getattr(event, event.WhichOneof("kind") or "")
    for field, value in part.ListFields():
        if "card" in field.name or field.name == "pushed_off":
            yield from (value if isinstance(value, list) or hasattr(value, "__len__") else [value])


def check_no_leak(
    state: TrinityState, emitted: list[Emitted[TrinityEvent]], rnd: random.Random
) -> None:
    for viewer in (0, 1, 2, None):
        view = ENGINE.view(state, viewer).SerializeToString(deterministic=True)
        again = ENGINE.view(scrambled(state, viewer, rnd), viewer)
        assert again.SerializeToString(deterministic=True) == view, f"view of {viewer} leaks"
        secret = {_at(state, s, i) for s, i in hidden_from(state, viewer)}
        for e in emitted:
            event = e.for_seat(viewer)
            if event is None:
                continue
            named = set(event_cards(event))
            if event.HasField("gave") and viewer == event.gave.giver:
                named.discard(event.gave.card)
            assert not named & secret, f"event {event} leaks to {viewer}"


# --- the playout ---------------------------------------------------------------------------


def play_checked(options: TrinityOptions, seed: int) -> TrinityState:
    rnd = random.Random(seed)
    state, emitted = ENGINE.new_game(options, 3, seed)
    check_no_leak(state, emitted, rnd)
    log: list[tuple[int, TrinityMove]] = []
    while ENGINE.result(state) is None:
        assert len(log) < 500
        assert sorted(all_cards(state)) == list(range(1, 55))
        if state.step == TRINITY_STEP_ACTION:
            assert all(len(h.cards) % 2 == 0 for h in state.hands), "TR-5.5"
        (seat,) = ENGINE.active_seats(state)
        moves = ENGINE.legal_moves(state, seat)
        check_listing(state, seat, moves)
        move = rnd.choice(moves)
        emitted = ENGINE.apply(state, seat, move)
        log.append((seat, move))
        check_no_leak(state, emitted, rnd)
    assert sorted(all_cards(state)) == list(range(1, 55))
    result = ENGINE.result(state)
    assert result is not None
    assert list(result.winners) in ([], [0, 1, 2])
    replayed = ENGINE.replay(ENGINE.setup_of(state), log)
    assert encode(replayed) == encode(state)
    return state


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy(), seed=st.integers(0, 2**64 - 1))
def test_tr_5_5_c_4_random_play_properties(options: TrinityOptions, seed: int) -> None:
    """Random legal play terminates with a shared result, conserving the cards, keeping hands
    even (TR-5.5), listing exactly the possible choices, leaking nothing, replaying exactly."""
    play_checked(options, seed)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy(), seed=st.integers(0, 2**64 - 1))
def test_generic_playout_every_option(options: TrinityOptions, seed: int) -> None:
    """The generic playout (tests/engines/playout.py) for every option."""
    play_randomly(ENGINE, options, 3, seed)
