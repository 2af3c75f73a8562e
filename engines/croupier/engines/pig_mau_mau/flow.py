"""How a Pig Mau Mau game moves on: what a validated move does and the automatic steps that
follow it (C-6). The start of each turn decides whether the player has a choice: a player who
cannot play draws at once (PM-3.2), a player facing a +2 without one draws the total at once
(PM-4.1). Playing a card (PM-1, PM-3), stepping back (PM-4.2), the mau calls (PM-7); a race is
set up (PM-2) and drawn from with the reshuffle (PM-3.3); bets are placed after a draw (PM-5);
a race's end is scored (PM-6, bets by PM-1.4); after the fourth race the game is over.
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core import rng
from croupier.engines.core.cards import refill_from_discard
from croupier.engines.core.engine import Emitted
from croupier.engines.core.scoring import build_result
from croupier.engines.core.seats import left
from croupier.engines.pig_mau_mau.cards import (
    CARD_MESSAGES,
    COLOURS,
    DECK_SIZE,
    FARMER,
    KIND,
    NO_COLOUR,
    NUMBER,
    NUMBER_OF,
    PLAYABLE,
    PLUS_TWO,
    PLUS_TWOS,
    PRINTED,
    SKIP,
    SUIT,
    TIRED_PIG,
    colour_index,
    pig_color,
)
from croupier.v1.pig_mau_mau_pb2 import (
    MauCall,
    PigColor,
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauPhase,
    PigMauMauRaceScore,
    PigMauMauState,
)

RACES: Final = 4
HAND_SIZE: Final = 5
BET_POINTS: Final = (6, 4, 3, 2, 1)  # PM-1.4
FINISH_POINTS: Final = 3  # PM-6.2
EMPTY_HAND_POINTS: Final = 5  # PM-6.3

Events = list[Emitted[PigMauMauEvent]]
Event = PigMauMauEvent

PLAY: Final = PigMauMauPhase.PIG_MAU_MAU_PHASE_PLAY
STEPS: Final = PigMauMauPhase.PIG_MAU_MAU_PHASE_STEPS
BET: Final = PigMauMauPhase.PIG_MAU_MAU_PHASE_BET
OVER: Final = PigMauMauPhase.PIG_MAU_MAU_PHASE_OVER


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
    for hand in state.hands[:]:
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
            filled.hand.extend([CARD_MESSAGES[c] for c in sorted(state.hands[seat].cards[:])])
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
    for race in state.race_scores[:]:
        for seat, points in enumerate(race.points[:]):
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
        lead = max(state.pigs[:])  # PM-6.3: the pig(s) furthest ahead
        winners = [c for c in range(COLOURS) if state.pigs[c] == lead]
    revealed = []
    scale = iter(BET_POINTS)
    for bet in state.bet_row[:]:
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
        pigs=state.pigs[:],
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


TIRED_PIG_STEPS: Final = 3  # PM-1.2


_CALL_FOR: Final = (MauCall.MAU_CALL_MAU_MAU, MauCall.MAU_CALL_MAU)
_NO_CALL: Final = MauCall.MAU_CALL_UNSPECIFIED


def required_call(cards_left: int) -> MauCall.ValueType:
    """PM-7.1: the call a play leaving `cards_left` cards needs under the `mau` option."""
    return _CALL_FOR[cards_left] if cards_left < 2 else _NO_CALL


def begin_turn(state: PigMauMauState, seat: int, events: Events) -> None:
    """Hand the turn to `seat`, applying the draws it has no choice about. A seat that can
    neither play nor draw (nothing left anywhere) passes and the next seat begins (PM-3.3).

    The loop ends: with the draw pile empty and the discard pile down to its top card, the
    other 38 cards are in hands, so at least six green cards are, and their holder can play
    once the first passing seat has dropped any pending +2."""
    for _ in range(3 * state.seats + 2):
        state.turn = seat
        state.phase = PLAY
        hand = state.hands[seat].cards
        if state.pending_draw:
            if not PLUS_TWOS.isdisjoint(hand[:]):
                return  # a choice: stack or draw (PM-4.1)
            if take_pending(state, seat, events):
                return
        else:
            if not PLAYABLE[state.discard_pile[-1]][state.required_color].isdisjoint(hand[:]):
                return  # PM-3.1: a card can be played
            drawn = draw_cards(state, 1, events)  # PM-3.2: forced draw
            if drawn:
                hand.extend(drawn)
                _report_draw(seat, drawn, 0, events)
                state.phase = BET  # PM-5.1
                return
        passed = Event()
        passed.turn_passed.seat = seat
        events.append(Emitted(passed))
        seat = left(seat, state.seats)
    raise AssertionError("no seat can play or draw")  # impossible, see the docstring


def _report_draw(seat: int, drawn: list[int], total: int, events: Events) -> None:
    def drew(cards: list[int]) -> Event:
        # field by field: several times quicker than nested constructors
        event = Event()
        filled = event.cards_drawn
        filled.seat = seat
        filled.count = len(drawn)
        filled.cards.extend([CARD_MESSAGES[c] for c in cards])  # copies: the shared stay intact
        filled.pending_total = total
        return event

    events.append(Emitted(drew([]), {seat: drew(drawn)}))


def take_pending(state: PigMauMauState, seat: int, events: Events) -> bool:
    """PM-4.1/PM-4.2: draw the +2 total; then one backward step per card drawn (skipped when
    every pig is on START), then the bet (PM-5.1). False when nothing could be drawn."""
    total = state.pending_draw
    state.pending_draw = 0
    drawn = draw_cards(state, total, events)
    if not drawn:
        return False
    state.hands[seat].cards.extend(drawn)
    _report_draw(seat, drawn, total, events)
    granted = Event()
    granted.steps_granted.seat = seat
    granted.steps_granted.steps = len(drawn)
    events.append(Emitted(granted))
    state.steps_left = len(drawn)
    state.phase = STEPS
    _end_steps_if_done(state, seat, events)
    return True


def _end_steps_if_done(state: PigMauMauState, seat: int, events: Events) -> None:
    if state.steps_left and any(state.pigs[:]):
        return
    end_steps(state, seat, events)


def end_steps(state: PigMauMauState, seat: int, events: Events) -> None:
    """PM-4.2 Decision: unused steps are lost; the betting step follows."""
    unused = state.steps_left
    state.steps_left = 0
    state.phase = BET
    ended = Event()
    ended.steps_ended.seat = seat
    ended.steps_ended.unused = unused
    events.append(Emitted(ended))


def _pig_moved(seat: int, colour: int, before: int, after: int) -> Emitted[Event]:
    event = Event()
    moved = event.pig_moved
    moved.seat = seat
    moved.pig = pig_color(colour)
    moved.before = before
    moved.after = after
    return Emitted(event)


def step_back(state: PigMauMauState, seat: int, colour: int, events: Events) -> None:
    """PM-4.2: one pig one space back."""
    before = state.pigs[colour]
    state.pigs[colour] = before - 1
    state.steps_left -= 1
    events.append(_pig_moved(seat, colour, before, before - 1))
    _end_steps_if_done(state, seat, events)


def bet(state: PigMauMauState, seat: int, colour: int | None, events: Events) -> None:
    """PM-5: place/change a bet or decline; then the next player (left of the drawer)."""
    if colour is None:
        declined = Event()
        declined.bet_declined.seat = seat
        events.append(Emitted(declined))
    else:
        place_bet(state, seat, colour, events)
    begin_turn(state, left(seat, state.seats), events)


def _move_pig(state: PigMauMauState, seat: int, colour: int, spaces: int, events: Events) -> bool:
    """Move a pig forward; True when it reaches or passes the finish (PM-6.1 A)."""
    pigs = state.pigs
    finish = state.finish
    before = pigs[colour]
    after = before + spaces
    if after > finish:
        after = finish  # the pig stops on the finish (a comparison is quicker than min())
    pigs[colour] = after
    events.append(_pig_moved(seat, colour, before, after))
    return after >= finish


def play_card(
    state: PigMauMauState, seat: int, play: PigMauMauMove.PlayCard, events: Events
) -> None:
    """PM-3.1 and the card's action (PM-1.2), the `mau` penalty (PM-7.2, PM-7.3), the end of
    the race (PM-6.1), the X skip and the +2 hand-over."""
    card = play.card  # each field read once: a protobuf read costs about a function call
    call = play.call
    hand = state.hands[seat].cards
    left_after = len(hand) - 1
    if state.options.mau:
        needed = required_call(left_after)
        if needed != _NO_CALL and call != needed:
            # PM-7.2: the card stays in the hand, no action, the turn passes.
            forgotten = Event()
            told = forgotten.mau_forgotten
            told.seat = seat
            told.card.CopyFrom(CARD_MESSAGES[card])
            told.required = needed
            events.append(Emitted(forgotten))
            if state.pending_draw:
                # PM-7.3: the play is undone as a whole, so this +2 never answered the pending
                # total: its player takes it as one who does not answer (the draw, then the
                # steps and the bet), and only then does the turn pass. Passing the turn here
                # would hand the total on, and forgetting the call would spare them the draw.
                draw_instead(state, seat, events)
                return
            begin_turn(state, left(seat, state.seats), events)
            return
    hand.remove(card)
    state.discard_pile.append(card)
    kind = KIND[card]
    named = colour_index(play.color) if kind == FARMER else NO_COLOUR
    # field by field: several times quicker than nested constructors
    event = Event()
    played = event.card_played
    played.seat = seat
    played.card.CopyFrom(CARD_MESSAGES[card])
    played.named_color = pig_color(named)
    played.call = call
    played.cards_left = left_after
    events.append(Emitted(event))
    finished_pig: int | None = None
    if kind == NUMBER:
        set_required(state, NO_COLOUR)
        if _move_pig(state, seat, SUIT[card], NUMBER_OF[card], events):
            finished_pig = SUIT[card]
    elif kind == TIRED_PIG:
        set_required(state, PRINTED[card])
        pig = colour_index(play.pig)
        if _move_pig(state, seat, pig, TIRED_PIG_STEPS, events):
            finished_pig = pig
    elif kind == FARMER:
        set_required(state, named)
    else:
        set_required(state, NO_COLOUR)
    if finished_pig is not None or left_after == 0:
        end_race(
            state,
            events,
            finisher=seat if finished_pig is not None else None,
            finished_pig=finished_pig,
            emptied=seat if left_after == 0 else None,
        )
        if state.phase != OVER:
            begin_turn(state, state.race_start_seat, events)
        return
    following = left(seat, state.seats)
    if kind == SKIP:
        skipped = Event()
        skipped.seat_skipped.seat = following
        events.append(Emitted(skipped))
        following = left(following, state.seats)
    elif kind == PLUS_TWO:
        total = state.pending_draw + 2
        state.pending_draw = total
        pending = Event()
        pending.draw_pending.seat = following
        pending.draw_pending.total = total
        events.append(Emitted(pending))
    begin_turn(state, following, events)


def draw_instead(state: PigMauMauState, seat: int, events: Events) -> None:
    """PM-4.1: the player facing a +2 draws the total instead of stacking (also what a +2
    answer without its Mau call comes to, PM-7.3)."""
    if not take_pending(state, seat, events):
        passed = Event()
        passed.turn_passed.seat = seat
        events.append(Emitted(passed))
        begin_turn(state, left(seat, state.seats), events)


def perform(state: PigMauMauState, seat: int, move: PigMauMauMove, kind: str) -> Events:
    """Carry out a validated move of the form `kind` (`rules.check_form`)."""
    events: list[Emitted[PigMauMauEvent]] = []
    if kind == "play":
        play_card(state, seat, move.play, events)
    elif kind == "draw":
        draw_instead(state, seat, events)
    elif kind == "step_back":
        step_back(state, seat, colour_index(move.step_back.pig), events)
    elif kind == "end_steps":
        end_steps(state, seat, events)
    elif kind == "place_bet":
        bet(state, seat, colour_index(move.place_bet.color), events)
    else:
        bet(state, seat, None, events)
    return events
