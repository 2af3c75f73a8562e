"""What follows a validated play (HC-3): the card leaves the hand for the trick (HC-3.5); the
last card of a trick gives it to the highest (HC-3.3), who leads next (HC-3.4); the last trick
ends the game (HC-4.1)."""

from __future__ import annotations

from croupier.engines.core.engine import Emitted
from croupier.engines.core.seats import left
from croupier.v1.high_card_pb2 import HighCardEvent, HighCardState

Event = HighCardEvent
Events = list[Emitted[HighCardEvent]]


def play(state: HighCardState, seat: int, card: int) -> Events:
    state.hands[seat].cards.remove(card)
    state.trick.append(card)
    events: Events = [Emitted(Event(played=Event.Played(seat=seat, card=card)))]
    if len(state.trick) < state.seats:
        state.turn = left(seat, state.seats)
        return events
    # The i-th card of the trick was played i seats clockwise from the leader.
    best = max(range(state.seats), key=lambda i: state.trick[i])
    winner = (state.leader + best) % state.seats
    state.points[winner] += 1
    events.append(Emitted(Event(trick_won=Event.TrickWon(seat=winner, card=state.trick[best]))))
    del state.trick[:]
    state.leader = state.turn = winner
    if not state.hands[winner].cards:  # every hand empties on the same trick
        state.over = True
        events.append(Emitted(Event(game_over=Event.GameOver(points=state.points))))
    return events
