"""Property tests: random legal play for 2..6 players and every option combination ends,
conserves each colour set's 13 cards, never shows a seat a secret play, a hand, a pile's order
or a hidden card it may not see (views and events), and replays byte for byte."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.engines.core.engine import Emitted
from croupier.engines.whats_your_name import ENGINE
from croupier.engines.whats_your_name.cards import table_size
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameCard,
    WhatsYourNameEvent,
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines.helpers import encode
from tests.engines.playout import play_randomly
from tests.engines.whats_your_name.helpers import (
    all_cards,
)

Options = WhatsYourNameOptions
OPTION_SETS = [
    Options(),
    Options(hidden_card=True),
    Options(match=True),
    Options(hidden_card=True, match=True),
]
PRIVATE_KINDS = {"cards_drawn", "hidden_card_set", "card_chosen"}


def _shift(cards: list[int]) -> list[int]:
    return [(card + 5) % 78 for card in reversed(cards)]


def scrambled(state: WhatsYourNameState, viewer: int | None) -> WhatsYourNameState:
    """A copy with everything `viewer` may not see changed: every pile's content and order,
    the generator, and other seats' hands, hidden cards and (before the reveal) plays."""
    other = WhatsYourNameState.FromString(encode(state))
    other.rng.seed ^= 0x5A5A5A5A
    other.rng.draws += 17
    for p, pos in enumerate(other.positions):
        pile = _shift(list(pos.pile))
        del pos.pile[:]
        pos.pile.extend(pile)
        if p == viewer:
            continue
        hand = _shift(list(pos.hand))
        del pos.hand[:]
        pos.hand.extend(hand)
        if pos.HasField("hidden") and other.phase != WHATS_YOUR_NAME_PHASE_OVER:
            pos.hidden = (pos.hidden + 5) % 78
        if pos.HasField("played") and other.phase == WHATS_YOUR_NAME_PHASE_PLAY:
            pos.played = (pos.played + 5) % 78
    return other


def hidden_from(state: WhatsYourNameState, viewer: int | None) -> set[int]:
    """The cards `viewer` may not see now (C-4, WN-8)."""
    secret: set[int] = set()
    for p, pos in enumerate(state.positions):
        secret.update(pos.pile)
        if p == viewer:
            continue
        secret.update(pos.hand)
        if pos.HasField("hidden") and state.phase != WHATS_YOUR_NAME_PHASE_OVER:
            secret.add(pos.hidden)
        if pos.HasField("played") and state.phase == WHATS_YOUR_NAME_PHASE_PLAY:
            secret.add(pos.played)
    return secret


def cards_in(message: Message) -> Iterator[int]:
    """Every card named anywhere inside an event."""
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, WhatsYourNameCard):
                yield item.colour * 13 + item.rank - 1
            else:
                yield from cards_in(item)


def check_events(
    state: WhatsYourNameState, out: list[Emitted[WhatsYourNameEvent]], seats: int
) -> None:
    kinds = [e.public.WhichOneof("kind") if e.public else None for e in out]
    # a new game of a match reshuffles every card: check what follows its start
    start = max((i for i, k in enumerate(kinds) if k == "game_started"), default=0)
    for emitted in out:
        assert emitted.public is not None, "every event has a public version"
        kind = emitted.public.WhichOneof("kind")
        if kind in PRIVATE_KINDS:
            assert not list(cards_in(emitted.public)), f"public {kind} names a card"
        for seat in emitted.private:
            assert emitted.private[seat].WhichOneof("kind") == kind
    for viewer in [*range(seats), None]:
        secret = hidden_from(state, viewer)
        for emitted in out[start:]:
            event = emitted.for_seat(viewer)
            assert event is not None
            leaked = secret.intersection(cards_in(event))
            assert not leaked, f"{event} shows seat {viewer} hidden cards {leaked}"


def check_state(state: WhatsYourNameState, seats: int) -> None:
    positions = table_size(seats)
    assert sorted(all_cards(state)) == list(range(13 * positions)), "cards are conserved"
    assert len(encode(state)) < 2048
    for viewer in [*range(seats), None]:
        view = ENGINE.view(state, viewer).SerializeToString(deterministic=True)
        same = ENGINE.view(scrambled(state, viewer), viewer).SerializeToString(deterministic=True)
        assert view == same, f"seat {viewer}'s view depends on what it may not see"


def play_checked(options: Options, seats: int, seed: int) -> None:
    chooser = random.Random(seed)
    state, out = ENGINE.new_game(options, seats, seed)
    check_events(state, out, seats)
    check_state(state, seats)
    log: list[tuple[int, WhatsYourNameMove]] = []
    while ENGINE.result(state) is None:
        assert len(log) < 5000
        seat = chooser.choice(ENGINE.active_seats(state))
        move = chooser.choice(ENGINE.legal_moves(state, seat))
        out = ENGINE.apply(state, seat, move)
        log.append((seat, move))
        check_events(state, out, seats)
        check_state(state, seats)
    games = seats if options.match else 1
    assert all(len(pos.totals) == games for pos in state.positions)
    replayed = ENGINE.replay(ENGINE.setup_of(state), log)
    assert encode(replayed) == encode(state), "replay from seed and log differs"


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("options", OPTION_SETS, ids=["base", "hidden", "match", "both"])
def test_random_play_every_seat_count_and_option(options: Options, seats: int) -> None:
    """Random legal play ends for 2..6 players and every option, with the generic checks."""
    play_randomly(ENGINE, options, seats, seed=seats * 31 + 7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    seats=st.integers(2, 6),
    hidden=st.booleans(),
    match=st.booleans(),
    ages=st.permutations(range(6)),
    listed=st.integers(0, 6),
)
def test_random_play_conserves_hides_and_replays(
    seed: int, seats: int, hidden: bool, match: bool, ages: list[int], listed: int
) -> None:
    """WN-1.1 conservation, C-4/WN-8 secrecy (views and events of every seat and the
    spectator after every move), termination and byte-identical replay."""
    youngest = [s for s in ages if s < seats][:listed]
    options = Options(hidden_card=hidden, match=match, youngest_seat=youngest)
    play_checked(options, seats, seed)


@pytest.mark.parametrize("options", OPTION_SETS, ids=["base", "hidden", "match", "both"])
def test_six_player_games_stay_secret(options: Options) -> None:
    """The largest table, every option, checked after every move."""
    play_checked(options, 6, seed=99)
