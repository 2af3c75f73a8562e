"""What a validated move does, and the automatic steps that follow it (C-6): the start of each
turn decides whether the player has a choice; a player who cannot play draws at once (PM-3.2),
a player facing a +2 without one draws the total at once (PM-4.1)."""

from __future__ import annotations

from croupier.v1.pig_mau_mau_pb2 import MauCall, PigMauMauMove, PigMauMauState
from engines.core.engine import Emitted
from engines.core.seats import left
from engines.pig_mau_mau.cards import (
    FARMER,
    KIND,
    NO_COLOUR,
    NUMBER,
    NUMBER_OF,
    PLUS_TWO,
    PRINTED,
    SKIP,
    SUIT,
    TIRED_PIG,
    card_message,
    colour_index,
    matches,
    pig_color,
)
from engines.pig_mau_mau.race import (
    BET,
    OVER,
    PLAY,
    STEPS,
    Event,
    Events,
    draw_cards,
    end_race,
    place_bet,
    set_required,
)

TIRED_PIG_STEPS = 3  # PM-1.2


def can_play(state: PigMauMauState, hand: list[int]) -> bool:
    """Whether any card of `hand` may be played now (no +2 pending)."""
    top = state.discard_pile[-1]
    required = colour_index(state.required_color)
    return any(matches(card, top, required) for card in hand)


_CALL_FOR = (MauCall.MAU_CALL_MAU_MAU, MauCall.MAU_CALL_MAU)
_NO_CALL = MauCall.MAU_CALL_UNSPECIFIED


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
        hand = list(state.hands[seat].cards)
        if state.pending_draw:
            if any(KIND[c] == PLUS_TWO for c in hand):
                return  # a choice: stack or draw (PM-4.1)
            if take_pending(state, seat, events):
                return
        else:
            if can_play(state, hand):
                return
            drawn = draw_cards(state, 1, events)  # PM-3.2: forced draw
            if drawn:
                state.hands[seat].cards.extend(drawn)
                _report_draw(seat, drawn, 0, events)
                state.phase = BET  # PM-5.1
                return
        events.append(Emitted(Event(turn_passed=Event.TurnPassed(seat=seat))))
        seat = left(seat, state.seats)
    raise AssertionError("no seat can play or draw")  # impossible, see the docstring


def _report_draw(seat: int, drawn: list[int], total: int, events: Events) -> None:
    def drew(cards: list[int]) -> Event:
        return Event(
            cards_drawn=Event.CardsDrawn(
                seat=seat,
                count=len(drawn),
                cards=[card_message(c) for c in cards],
                pending_total=total,
            )
        )

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
    events.append(Emitted(Event(steps_granted=Event.StepsGranted(seat=seat, steps=len(drawn)))))
    state.steps_left = len(drawn)
    state.phase = STEPS
    _end_steps_if_done(state, seat, events)
    return True


def _end_steps_if_done(state: PigMauMauState, seat: int, events: Events) -> None:
    if state.steps_left and any(state.pigs):
        return
    end_steps(state, seat, events)


def end_steps(state: PigMauMauState, seat: int, events: Events) -> None:
    """PM-4.2 Decision: unused steps are lost; the betting step follows."""
    unused = state.steps_left
    state.steps_left = 0
    state.phase = BET
    events.append(Emitted(Event(steps_ended=Event.StepsEnded(seat=seat, unused=unused))))


def step_back(state: PigMauMauState, seat: int, colour: int, events: Events) -> None:
    """PM-4.2: one pig one space back."""
    before = state.pigs[colour]
    state.pigs[colour] = before - 1
    state.steps_left -= 1
    events.append(
        Emitted(
            Event(
                pig_moved=Event.PigMoved(
                    seat=seat, pig=pig_color(colour), before=before, after=before - 1
                )
            )
        )
    )
    _end_steps_if_done(state, seat, events)


def bet(state: PigMauMauState, seat: int, colour: int | None, events: Events) -> None:
    """PM-5: place/change a bet or decline; then the next player (left of the drawer)."""
    if colour is None:
        events.append(Emitted(Event(bet_declined=Event.BetDeclined(seat=seat))))
    else:
        place_bet(state, seat, colour, events)
    begin_turn(state, left(seat, state.seats), events)


def _move_pig(state: PigMauMauState, seat: int, colour: int, spaces: int, events: Events) -> bool:
    """Move a pig forward; True when it reaches or passes the finish (PM-6.1 A)."""
    before = state.pigs[colour]
    after = min(before + spaces, state.finish)
    state.pigs[colour] = after
    events.append(
        Emitted(
            Event(
                pig_moved=Event.PigMoved(
                    seat=seat, pig=pig_color(colour), before=before, after=after
                )
            )
        )
    )
    return after >= state.finish


def play_card(
    state: PigMauMauState, seat: int, play: PigMauMauMove.PlayCard, events: Events
) -> None:
    """PM-3.1 and the card's action (PM-1.2), the `mau` penalty (PM-7.2), the end of the race
    (PM-6.1), the X skip and the +2 hand-over."""
    card = play.card
    hand = state.hands[seat].cards
    left_after = len(hand) - 1
    if state.options.mau:
        needed = required_call(left_after)
        if needed != _NO_CALL and play.call != needed:
            # PM-7.2: the card stays in the hand, no action, the turn passes.
            events.append(
                Emitted(
                    Event(
                        mau_forgotten=Event.MauForgotten(
                            seat=seat, card=card_message(card), required=needed
                        )
                    )
                )
            )
            begin_turn(state, left(seat, state.seats), events)
            return
    hand.remove(card)
    state.discard_pile.append(card)
    kind = KIND[card]
    named = colour_index(play.color) if kind == FARMER else NO_COLOUR
    events.append(
        Emitted(
            Event(
                card_played=Event.CardPlayed(
                    seat=seat,
                    card=card_message(card),
                    named_color=pig_color(named),
                    call=play.call,
                    cards_left=left_after,
                )
            )
        )
    )
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
        events.append(Emitted(Event(seat_skipped=Event.SeatSkipped(seat=following))))
        following = left(following, state.seats)
    elif kind == PLUS_TWO:
        state.pending_draw += 2
        events.append(
            Emitted(Event(draw_pending=Event.DrawPending(seat=following, total=state.pending_draw)))
        )
    begin_turn(state, following, events)


def draw_instead(state: PigMauMauState, seat: int, events: Events) -> None:
    """PM-4.1: the player facing a +2 draws the total instead of stacking."""
    if not take_pending(state, seat, events):
        events.append(Emitted(Event(turn_passed=Event.TurnPassed(seat=seat))))
        begin_turn(state, left(seat, state.seats), events)
