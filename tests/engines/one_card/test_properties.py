"""Property tests: random legal play (random catches and forgotten calls included) for 2..10
players and varied options terminates, conserves the deck, never shows a seat another seat's
hand or the draw pile's order, keeps the stored state under 2 KB, and replays byte for byte."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.engine import Emitted
from croupier.engines.one_card import ENGINE
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import (
    OneCardDeck,
    OneCardEvent,
    OneCardMove,
    OneCardOptions,
    OneCardState,
)
from tests.engines.helpers import encode
from tests.engines.playout import MAX_MOVES, play_randomly

Event = OneCardEvent


def deck_of(options: OneCardOptions) -> Counter[int]:
    return Counter(c.build_deck(c.deck_counts(options.deck)))


def cards_in(state: OneCardState) -> Counter[int]:
    total: Counter[int] = Counter(state.draw_pile)
    total.update(state.discard_pile)
    for hand in state.hands:
        total.update(hand.cards)
    return total


def scrambled(state: OneCardState, seat: int | None, rnd: random.Random) -> OneCardState:
    """A copy where everything `seat` may not see is exchanged at random: the other hands'
    cards and the draw pile's content and order (sizes kept)."""
    other = OneCardState()
    other.CopyFrom(state)
    others = [s for s in range(state.seats) if s != seat]
    hidden = [code for s in others for code in other.hands[s].cards] + list(other.draw_pile)
    rnd.shuffle(hidden)
    for s in others:
        size = len(other.hands[s].cards)
        del other.hands[s].cards[:]
        other.hands[s].cards.extend(hidden[:size])
        hidden = hidden[size:]
    del other.draw_pile[:]
    other.draw_pile.extend(hidden)
    return other


def check_events(events: list[Emitted[Event]], seats: int) -> None:
    """C-4: drawn or dealt cards appear only in the version of the seat that got them."""
    for emitted in events:
        for seat, private in emitted.private.items():
            kind = private.WhichOneof("kind")
            assert kind in ("drew", "dealt")
            assert getattr(private, kind).seat == seat
        public = emitted.public
        if public is not None:
            kind = public.WhichOneof("kind")
            if kind in ("drew", "dealt"):
                assert not getattr(public, kind).cards
        for viewer in [*range(seats), None]:
            event = emitted.for_seat(viewer)
            if event is None:
                continue
            kind = event.WhichOneof("kind")
            if kind in ("drew", "dealt") and getattr(event, kind).cards:
                assert getattr(event, kind).seat == viewer


def check_views(state: OneCardState, rnd: random.Random) -> None:
    """C-4 / OC-7: each view holds exactly its own hand, and does not change when the hidden
    parts of the state are scrambled."""
    for viewer in [*range(state.seats), None]:
        view = ENGINE.view(state, viewer)
        own = sorted(state.hands[viewer].cards) if viewer is not None else []
        assert [c.from_message(card, "hand") for card in view.hand] == own
        assert encode(ENGINE.view(scrambled(state, viewer, rnd), viewer)) == encode(view)


def walk(options: OneCardOptions, seats: int, seed: int, *, views_every: int = 1) -> Counter[str]:
    """Random legal play as the generic playout does it (a uniform active seat, then a uniform
    legal move), with this game's invariants after every move; returns what happened."""
    chooser = random.Random(seed)
    rnd = random.Random(seed + 1)
    deck = deck_of(options)
    state, events = ENGINE.new_game(options, seats, seed)
    check_events(events, seats)
    log: list[tuple[int, OneCardMove]] = []
    seen: Counter[str] = Counter()
    while ENGINE.result(state) is None:
        assert len(log) < MAX_MOVES
        active = ENGINE.active_seats(state)
        seat = chooser.choice(active)
        move = chooser.choice(ENGINE.legal_moves(state, seat))
        kind = move.WhichOneof("kind")
        if kind == "play" and state.HasField("catchable_seat") is False:
            hand_after = len(state.hands[seat].cards) - len(move.play.cards)
            if hand_after == 1 and not move.play.call_one_card:
                seen["forgotten call"] += 1
        seen[kind or ""] += 1
        events = ENGINE.apply(state, seat, move)
        log.append((seat, move))
        check_events(events, seats)
        seen["automatic draw"] += sum(
            1
            for e in events
            if e.public and e.public.WhichOneof("kind") == "drew" and e.public.drew.automatic
        )
        assert cards_in(state) == deck, "cards are not conserved"
        assert len(encode(state)) < 2048
        if len(log) % views_every == 0:
            check_views(state, rnd)
    replayed = ENGINE.replay(ENGINE.setup_of(state), log)
    assert encode(replayed) == encode(state)
    seen["moves"] = len(log)
    return seen


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    seats=st.integers(2, 10),
    wins=st.integers(0, 2),
    dealer=st.one_of(st.none(), st.integers(0, 9)),
    numbers=st.integers(2, 4),
    # +2 and +3 per colour up to 2: with more, uniformly random players (who rarely keep
    # cards back) can bounce attacks for tens of thousands of moves; see docs/games/one_card.md
    attacks=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    others=st.tuples(st.integers(0, 4), st.integers(0, 4)),
    wilds=st.tuples(st.integers(0, 8), st.integers(0, 8)).filter(lambda w: sum(w) >= 2),
)
def test_random_play_properties(
    seed: int,
    seats: int,
    wins: int,
    dealer: int | None,
    numbers: int,
    attacks: tuple[int, int],
    others: tuple[int, int],
    wilds: tuple[int, int],
) -> None:
    """Random legal play, every seat count, varied deck composition, wins_to_match and
    dealer: terminates, conserves the deck, hides what it must, replays byte for byte."""
    deck = OneCardDeck(
        number_copies=numbers,
        plus_two_per_color=attacks[0],
        plus_three_per_color=attacks[1],
        jump_per_color=others[0],
        u_turn_per_color=others[1],
        rainbows=wilds[0],
        quatrans=wilds[1],
    )
    options = OneCardOptions(deck=deck, wins_to_match=wins)
    if dealer is not None:
        options.dealer_seat = dealer % seats
    walk(options, seats, seed, views_every=4)


def test_random_play_default_deck_every_seat_count() -> None:
    """The default 108-card deck, 2..10 players: every invariant at every step; over these
    games the random players catch, forget calls, call on their own and draw voluntarily."""
    total: Counter[str] = Counter()
    for seats in range(2, 11):
        total += walk(OneCardOptions(), seats, seed=500 + seats, views_every=2)
    for happening in ("catch", "call_one_card", "forgotten call", "draw", "automatic draw"):
        assert total[happening] > 0, happening


def test_generic_playout_with_match_play() -> None:
    """The generic playout (every step checked) on a three-win match."""
    state, _ = play_randomly(ENGINE, OneCardOptions(wins_to_match=3), 4, seed=99)
    assert max(state.wins) == 3
    assert len(state.history) == sum(state.wins)


def test_largest_state_stays_small() -> None:
    """The stored state stays under 2 KB for the largest game: 10 players, the biggest deck,
    a five-win match."""
    deck = OneCardDeck(
        number_copies=4,
        plus_two_per_color=4,
        plus_three_per_color=4,
        jump_per_color=4,
        u_turn_per_color=4,
        rainbows=8,
        quatrans=8,
    )
    options = OneCardOptions(deck=deck, wins_to_match=5)
    state, _ = ENGINE.new_game(options, 10, seed=7)
    assert sum(deck_of(options).values()) == 224
    chooser = random.Random(7)
    biggest = 0
    for _ in range(MAX_MOVES):
        if state.over:
            break
        seat = chooser.choice(ENGINE.active_seats(state))
        ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
        biggest = max(biggest, len(encode(state)))
    assert biggest < 2048
    # the worst case by construction: the longest five-win match (4 x 10 + 1 games) with
    # every loser holding many cards, and the whole biggest deck in the piles
    while len(state.history) < 41:
        state.history.add(winner=9, cards_left=[150] * 10)
    state.pending_attack = 99
    state.catchable_seat = 9
    assert len(encode(state)) < 2048
