"""Small helpers to build Pig Mau Mau positions and moves for the rule tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from croupier.engines.core.engine import Emitted
from croupier.engines.pig_mau_mau import ENGINE
from croupier.engines.pig_mau_mau.cards import (
    DECK_SIZE,
    FARMERS,
    number_card,
    pig_color,
    plus_two_card,
    skip_card,
    tired_pig_card,
)
from croupier.v1.pig_mau_mau_pb2 import (
    MauCall,
    PigMauMauBet,
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauOptions,
    PigMauMauPhase,
    PigMauMauState,
)
from tests.engines.helpers import encode as encode
from tests.engines.helpers import kinds as kinds

PINK, BROWN, BLACK, BEIGE = 0, 1, 2, 3
FARMER_A, FARMER_B, FARMER_C = FARMERS
PLAY = PigMauMauPhase.PIG_MAU_MAU_PHASE_PLAY
STEPS = PigMauMauPhase.PIG_MAU_MAU_PHASE_STEPS
BET = PigMauMauPhase.PIG_MAU_MAU_PHASE_BET
OVER = PigMauMauPhase.PIG_MAU_MAU_PHASE_OVER
Move = PigMauMauMove
Events = list[Emitted[PigMauMauEvent]]


def num(colour: int, number: int) -> int:
    return number_card(colour, number)


def x(colour: int) -> int:
    return skip_card(colour)


def p2(colour: int) -> int:
    return plus_two_card(colour)


def tired(colour: int) -> int:
    return tired_pig_card(colour)


def play(
    card: int, *, pig: int | None = None, color: int | None = None, call: int = 0
) -> PigMauMauMove:
    return Move(
        play=Move.PlayCard(
            card=card,
            pig=pig_color(-1 if pig is None else pig),
            color=pig_color(-1 if color is None else color),
            call=MauCall.ValueType(call),
        )
    )


def step(pig: int) -> PigMauMauMove:
    return Move(step_back=Move.StepBack(pig=pig_color(pig)))


def bet(colour: int) -> PigMauMauMove:
    return Move(place_bet=Move.PlaceBet(color=pig_color(colour)))


DRAW = Move(draw=Move.Draw())
END_STEPS = Move(end_steps=Move.EndSteps())
DECLINE = Move(decline_bet=Move.DeclineBet())
MAU = MauCall.MAU_CALL_MAU
MAU_MAU = MauCall.MAU_CALL_MAU_MAU


def position(
    *,
    hands: Sequence[Sequence[int]],
    top: int,
    pigs: Sequence[int] = (0, 0, 0, 0),
    turn: int = 0,
    required: int | None = None,
    pending: int = 0,
    bets: Sequence[tuple[int, int]] = (),
    phase: PigMauMauPhase.ValueType = PLAY,
    steps: int = 0,
    draw: Sequence[int] | None = None,
    race: int = 1,
    start: int = 0,
    mau: bool = False,
    finish: int = 0,
    scores: Sequence[Sequence[int]] = (),
) -> PigMauMauState:
    """A position with the given hands and top card. The draw pile is `draw` (its top last) or
    every other card; when `draw` is given, the cards left over lie under the top card. So the
    39 cards are always all there."""
    seats = len(hands)
    options = PigMauMauOptions(mau=mau, finish_distance=finish, start_seat=start)
    state, _ = ENGINE.new_game(options, seats, seed=7)
    used = {c for hand in hands for c in hand} | {top}
    if draw is not None:
        used |= set(draw)
    assert len(used) == sum(len(h) for h in hands) + 1 + (len(draw) if draw else 0)
    rest = [c for c in range(DECK_SIZE) if c not in used]
    for seat, hand in enumerate(hands):
        del state.hands[seat].cards[:]
        state.hands[seat].cards.extend(hand)
    del state.draw_pile[:]
    del state.discard_pile[:]
    if draw is None:
        state.draw_pile.extend(rest)
    else:
        state.draw_pile.extend(draw)
        state.discard_pile.extend(rest)
    state.discard_pile.append(top)
    del state.pigs[:]
    state.pigs.extend(pigs)
    state.turn = turn
    state.phase = phase
    state.required_color = pig_color(-1 if required is None else required)
    state.pending_draw = pending
    state.steps_left = steps
    del state.bet_row[:]
    for seat, colour in bets:
        state.bet_row.append(PigMauMauBet(seat=seat, color=pig_color(colour)))
    state.race = race
    state.race_start_seat = start
    del state.race_scores[:]
    for index, points in enumerate(scores, 1):
        state.race_scores.add(race=index, points=points)
    return state


def first(events: Events, kind: str, seat: int | None = None) -> PigMauMauEvent:
    for emitted in events:
        event = emitted.for_seat(seat)
        if event is not None and event.WhichOneof("kind") == kind:
            return event
    raise AssertionError(f"no {kind} event")


def all_cards(state: PigMauMauState) -> list[int]:
    cards = [c for hand in state.hands for c in hand.cards]
    return sorted([*cards, *state.draw_pile, *state.discard_pile])


def scrambled(state: PigMauMauState, viewer: int | None, seed: int) -> PigMauMauState:
    """A copy of `state` whose parts hidden from `viewer` are changed: the cards of other hands
    and the draw pile dealt anew (sizes kept), other seats' bet colours and the generator
    replaced. The viewer's view must not notice (C-4)."""
    rnd = random.Random(seed)
    copy = PigMauMauState()
    copy.CopyFrom(state)
    others = [s for s in range(state.seats) if s != viewer]
    pool = [*copy.draw_pile, *(c for s in others for c in copy.hands[s].cards)]
    rnd.shuffle(pool)
    size = len(copy.draw_pile)
    del copy.draw_pile[:]
    copy.draw_pile.extend(pool[:size])
    pool = pool[size:]
    for s in others:
        count = len(copy.hands[s].cards)
        del copy.hands[s].cards[:]
        copy.hands[s].cards.extend(pool[:count])
        pool = pool[count:]
    for bet in copy.bet_row:
        if bet.seat != viewer:
            bet.color = pig_color(rnd.randrange(4))
    copy.rng.seed = rnd.getrandbits(64)
    copy.rng.draws = rnd.getrandbits(20)
    return copy


def check_events_hide_secrets(state: PigMauMauState, events: Events) -> None:
    """Every event as each audience receives it carries only what that audience may see:
    drawn cards and dealt hands only for their owner, a bet's colour only for its bettor."""
    audiences: list[int | None] = [*range(state.seats), None]
    for emitted in events:
        assert set(emitted.private) <= set(range(state.seats))
        for audience in audiences:
            event = emitted.for_seat(audience)
            if event is None:
                continue
            kind = event.WhichOneof("kind")
            if kind == "cards_drawn":
                if audience != event.cards_drawn.seat:
                    assert not event.cards_drawn.cards
                else:
                    assert len(event.cards_drawn.cards) == event.cards_drawn.count
            elif kind == "race_started":
                own = {c.code for c in event.race_started.hand}
                if audience is None:
                    assert not own
                else:
                    assert own <= set(state.hands[audience].cards)
            elif kind == "bet_placed" and audience != event.bet_placed.seat:
                assert event.bet_placed.color == 0
