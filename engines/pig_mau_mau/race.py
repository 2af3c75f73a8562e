"""Setting up a race (PM-2), drawing with the reshuffle (PM-3.3), and ending and scoring a race
(PM-6): the automatic steps of the game (C-6)."""

from __future__ import annotations

from croupier.v1.pig_mau_mau_pb2 import (
    PigColor,
    PigMauMauEvent,
    PigMauMauPhase,
    PigMauMauRaceScore,
    PigMauMauState,
)
from engines.core import rng
from engines.core.cards import refill_from_discard
from engines.core.engine import Emitted
from engines.core.scoring import build_result
from engines.core.seats import left
from engines.pig_mau_mau.cards import (
    CARD_MESSAGES,
    COLOURS,
    DECK_SIZE,
    NO_COLOUR,
    PRINTED,
    pig_color,
)

RACES = 4
HAND_SIZE = 5
BET_POINTS = (6, 4, 3, 2, 1)  # PM-1.4
FINISH_POINTS = 3  # PM-6.2
EMPTY_HAND_POINTS = 5  # PM-6.3
DEFAULT_FINISH = {2: 12, 3: 14, 4: 16, 5: 18}  # PM-1.5 Decision

Events = list[Emitted[PigMauMauEvent]]
Event = PigMauMauEvent

PLAY = PigMauMauPhase.PIG_MAU_MAU_PHASE_PLAY
STEPS = PigMauMauPhase.PIG_MAU_MAU_PHASE_STEPS
BET = PigMauMauPhase.PIG_MAU_MAU_PHASE_BET
OVER = PigMauMauPhase.PIG_MAU_MAU_PHASE_OVER


def set_required(state: PigMauMauState, colour: int) -> None:
    state.required_color = pig_color(colour)


def start_race(state: PigMauMauState, race: int, start_seat: int, events: Events) -> None:
    """PM-2.1/PM-2.2: pigs on START, empty bet row, fresh shuffle, deal 5 each, turn up the
    first card (no action; a Tired Pig demands its printed colour, a Farmer nothing)."""
    state.race = race
    state.race_start_seat = start_seat
    del state.pigs[:]
    state.pigs.extend([0] * COLOURS)
    del state.bet_row[:]
    state.pending_draw = 0
    state.steps_left = 0
    deck = list(range(DECK_SIZE))
    rng.shuffle(state.rng, deck)
    for hand in state.hands:
        del hand.cards[:]
    for _ in range(HAND_SIZE):
        for seat in range(state.seats):
            state.hands[seat].cards.append(deck.pop())
    first = deck.pop()
    del state.discard_pile[:]
    state.discard_pile.append(first)
    del state.draw_pile[:]
    state.draw_pile.extend(deck)
    set_required(state, PRINTED[first])
    sizes = [HAND_SIZE] * state.seats

    finish = state.finish
    draw_size = len(deck)

    def started(seat: int | None) -> Event:
        # field by field, copying shared card messages: quicker than nested constructors
        event = Event()
        filled = event.race_started
        filled.race = race
        filled.start_seat = start_seat
        filled.finish = finish
        filled.first_card.CopyFrom(CARD_MESSAGES[first])
        filled.hand_sizes.extend(sizes)
        if seat is not None:
            filled.hand.extend([CARD_MESSAGES[c] for c in sorted(state.hands[seat].cards)])
        filled.draw_size = draw_size
        return event

    events.append(Emitted(started(None), {s: started(s) for s in range(state.seats)}))


def draw_cards(state: PigMauMauState, count: int, events: Events) -> list[int]:
    """Take up to `count` cards from the draw pile, rebuilding it from the discard pile but its
    top card whenever it runs out (PM-3.3); fewer when nothing is left."""
    drawn: list[int] = []
    pile = state.draw_pile
    while len(drawn) < count:
        if not pile:
            if not refill_from_discard(pile, state.discard_pile, state.rng):
                break
            events.append(Emitted(Event(pile_reshuffled=Event.PileReshuffled(draw_size=len(pile)))))
        drawn.append(pile.pop())
    return drawn


def totals(state: PigMauMauState) -> list[int]:
    sums = [0] * state.seats
    for race in state.race_scores:
        for seat, points in enumerate(race.points):
            sums[seat] += points
    return sums


def end_race(
    state: PigMauMauState,
    events: Events,
    *,
    finisher: int | None,
    finished_pig: int | None,
    emptied: int | None,
) -> None:
    """PM-6: score the race (3 for the finisher, 5 for the emptied hand), reveal the bets and
    score those on the winning pig(s) 6-4-3-2-1 in row order; then set up the next race
    (the caller begins its first turn), or end the game."""
    points = [0] * state.seats
    if finisher is not None:
        points[finisher] += FINISH_POINTS
    if emptied is not None:
        points[emptied] += EMPTY_HAND_POINTS
    if finished_pig is not None:
        winners = [finished_pig]  # PM-6.2: that pig alone wins
    else:
        lead = max(state.pigs)  # PM-6.3: the pig(s) furthest ahead
        winners = [c for c in range(COLOURS) if state.pigs[c] == lead]
    revealed = []
    scale = iter(BET_POINTS)
    for bet in state.bet_row:
        won = (int(bet.color) - 1) in winners
        score = next(scale) if won else 0
        points[bet.seat] += score
        revealed.append(Event.RevealedBet(seat=bet.seat, color=bet.color, points=score))
    state.race_scores.append(PigMauMauRaceScore(race=state.race, points=points))
    sums = totals(state)
    ended = Event.RaceEnded(
        race=state.race,
        winners=[pig_color(c) for c in winners],
        bets=revealed,
        points=points,
        totals=sums,
        pigs=list(state.pigs),
    )
    if finisher is not None:
        ended.finisher_seat = finisher
    if emptied is not None:
        ended.emptied_seat = emptied
    events.append(Emitted(Event(race_ended=ended)))
    del state.bet_row[:]  # PM-6.4: every betting card goes back to its owner
    state.pending_draw = 0
    state.steps_left = 0
    if state.race < RACES:
        start_race(state, state.race + 1, left(state.race_start_seat, state.seats), events)
        return
    state.phase = OVER  # PM-6.5
    result = build_result(sums, lower_is_better=False, summary="")
    events.append(Emitted(Event(game_ended=Event.GameEnded(totals=sums, winners=result.winners))))


def place_bet(state: PigMauMauState, seat: int, colour: int, events: Events) -> None:
    """PM-5.1/PM-5.2: the new card goes to the first empty slot; an earlier bet of the seat is
    taken back first and the bets below it move up one slot."""
    row = state.bet_row
    previous: int | None = None
    for i, bet in enumerate(row):  # a plain loop: quicker than next() over a generator
        if bet.seat == seat:
            previous = i
            break
    if previous is not None:
        del row[previous]
    added = row.add()
    added.seat = seat
    added.color = pig_color(colour)
    slot = len(row) - 1

    def placed(color: PigColor.ValueType) -> Event:
        event = Event()  # field by field: quicker than nested constructors
        filled = event.bet_placed
        filled.seat = seat
        filled.slot = slot
        filled.color = color
        filled.changed = previous is not None
        filled.previous_slot = previous or 0
        return event

    events.append(Emitted(placed(pig_color(NO_COLOUR)), {seat: placed(pig_color(colour))}))
