"""How a Vampire Queen game moves on: plays and passes, the end of a phase or hunt, the deal
and the end of a round, the end of the game. Every step that needs no choice (C-6) runs here, right
after the move that triggers it, and is reported as events in order.

- VQ-4.4 the Hunter 20 holder leads every round (round 1 too, after the setup of VQ-2.1).
- VQ-2.2 / VQ-4.4 every round the 108 other cards are shuffled and dealt; the rest set aside.
- VQ-3.4 a phase ends when everyone has acted once; the highest play leads next; the cards go
  to the grave (kept in the round's history).
- VQ-5.4 / VQ-5.5 / VQ-5.6 a hunt ends with the forced passer, else the strongest card (later
  on a tie), taking every card; the taker leads next; VQ-5.7 the led Hunter is locked for them.
- VQ-4.1 / VQ-4.2 the round ends after a phase that leaves a hand empty; VQ-4.3 hands score.
- VQ-4.5 after the last round the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.core.seats import left
from croupier.engines.vampire_queen.cards import (
    HUNTER_20,
    HUNTERS,
    hand_size,
    hunt_strength,
    is_hunter,
    penalty,
    play_rank,
    shuffled_part,
    typed,
)
from croupier.engines.vampire_queen.setup import rounds_of
from croupier.v1.vampire_queen_pb2 import (
    VampireQueenEvent,
    VampireQueenHunterLock,
    VampireQueenPlay,
    VampireQueenRoundPenalties,
    VampireQueenState,
)

Event = VampireQueenEvent
Events = list[Emitted[VampireQueenEvent]]


def play(state: VampireQueenState, seat: int, cards: Sequence[int]) -> Events:
    """Seat `seat` (the seat to act, already validated) plays `cards` (ascending)."""
    phase = state.phase
    hand = state.hands[seat].cards
    kept: list[int] = list(hand)
    for card in cards:
        kept.remove(card)
    del hand[:]
    hand.extend(typed(kept))
    leading = not phase.plays
    if leading:
        phase.hunt = is_hunter(cards[0])
        # VQ-5.7: leading any phase lifts this seat's lock.
        for index in reversed(range(len(state.locks))):
            if state.locks[index].seat == seat:
                del state.locks[index]
    phase.plays.add(seat=seat, cards=typed(cards))
    rank = hunt_strength(cards[0]) if phase.hunt else (play_rank(cards) or 0)
    event = Event()
    played = event.cards_played
    played.seat = seat
    played.cards.extend(typed(cards))
    played.rank = rank
    played.hunt = phase.hunt
    played.cards_left = len(kept)
    events: Events = [Emitted(event)]
    _advance(state, events)
    return events


def pass_turn(state: VampireQueenState, seat: int) -> Events:
    """Seat `seat` (the seat to act, already validated) passes (VQ-3.2)."""
    state.phase.plays.add(seat=seat)
    event = Event()
    event.passed.seat = seat  # field by field: nested constructors build the inner one twice
    events: Events = [Emitted(event)]
    _advance(state, events)
    return events


def _advance(state: VampireQueenState, events: Events) -> None:
    """Hand the turn clockwise; force the pass of VQ-5.4; end the phase after the last seat."""
    phase = state.phase
    while True:
        following = left(state.turn, state.seats)
        if following == phase.leader:
            _end_phase(state, events)
            return
        state.turn = following
        hand = state.hands[following].cards
        if phase.hunt and hand and all(is_hunter(card) for card in hand):
            # VQ-5.4: a hand that is only a Hunter cannot play in a hunt (C-6: not asked).
            phase.plays.add(seat=following, forced=True)
            event = Event()
            passed = event.passed
            passed.seat = following
            passed.forced = True
            events.append(Emitted(event))
            continue
        return


def _end_phase(state: VampireQueenState, events: Events) -> None:
    phase = state.phase
    plays = phase.plays[:]
    if phase.hunt:
        winner = _take_hunt(state, plays, events)
    else:
        best = [p for p in plays if p.cards][-1]
        winner = best.seat
        gone = sum(len(p.cards) for p in plays)
        events.append(
            Emitted(
                Event(phase_won=Event.PhaseWon(seat=winner, cards=best.cards, cards_to_grave=gone))
            )
        )
    record = state.history.add(leader=phase.leader, hunt=phase.hunt, winner=winner)
    record.plays.extend(p for p in plays if p.cards or p.forced)
    state.ClearField("phase")
    if any(not hand.cards for hand in state.hands[:]):
        _end_round(state, events)
    else:
        _start_phase(state, winner, events)


def _take_hunt(state: VampireQueenState, plays: list[VampireQueenPlay], events: Events) -> int:
    """VQ-5.4 / VQ-5.5: who takes the hunt's cards; they go into that hand (VQ-5.6, VQ-5.7)."""
    forced = [p.seat for p in plays if p.forced]
    if forced:
        taker = forced[0]
    else:
        taker = plays[0].seat
        strongest = -1
        for p in plays:
            strength = hunt_strength(p.cards[0])
            if strength >= strongest:  # later play wins a tie
                taker, strongest = p.seat, strength
    taken = sorted(card for p in plays for card in p.cards[:])
    hand = state.hands[taker].cards
    merged = sorted([*hand[:], *taken])
    del hand[:]
    hand.extend(merged)
    hunter = plays[0].cards[0]
    state.locks.append(VampireQueenHunterLock(seat=taker, hunter=hunter))
    events.append(
        Emitted(
            Event(
                hunt_taken=Event.HuntTaken(
                    seat=taker, cards=taken, forced=bool(forced), locked_hunter=hunter
                )
            )
        )
    )
    return taker


def _start_phase(state: VampireQueenState, leader: int, events: Events) -> None:
    state.ClearField("phase")
    state.phase.leader = leader  # (sets the phase, as a copy of a new one would)
    state.turn = leader
    event = Event()
    started = event.phase_started
    started.round = state.round
    started.phase = len(state.history) + 1
    started.leader = leader
    events.append(Emitted(event))


def start_round(state: VampireQueenState, events: Events) -> None:
    """VQ-2.2 / VQ-4.4: Hunters stay; the 108 other cards are shuffled and dealt; the Hunter 20
    holder leads."""
    seats = state.seats
    state.round += 1
    del state.history[:]
    state.ClearField("phase")
    kept: list[list[int]] = [[c for c in hand.cards[:] if c in HUNTERS] for hand in state.hands[:]]
    deck = shuffled_part()
    rng.shuffle(state.rng, deck)
    size = hand_size(seats, state.options.deal_all)
    for seat in range(seats):
        hand = state.hands[seat].cards
        del hand[:]
        hand.extend(typed(sorted([*deck[seat * size : (seat + 1) * size], *kept[seat]])))
    del state.set_aside[:]
    state.set_aside.extend(typed(sorted(deck[seats * size :])))
    sizes = [len(hand.cards) for hand in state.hands[:]]
    started = Event.RoundStarted(
        round=state.round,
        rounds=rounds_of(state.options),
        hand_sizes=sizes,
        set_aside_count=len(state.set_aside),
    )
    private = {}
    for seat in range(seats):
        own = Event.RoundStarted()
        own.CopyFrom(started)
        own.hand.extend(state.hands[seat].cards)
        private[seat] = Event(round_started=own)
    events.append(Emitted(Event(round_started=started), private))
    leader = next(seat for seat in range(seats) if HUNTER_20 in state.hands[seat].cards[:])
    _start_phase(state, leader, events)


def totals(state: VampireQueenState) -> list[int]:
    result = [0] * state.seats
    for record in state.round_penalties[:]:
        for seat, points in enumerate(record.penalties[:]):
            result[seat] += points
    return result


def _end_round(state: VampireQueenState, events: Events) -> None:
    """VQ-4.1 / VQ-4.3: every remaining hand scores; then the next round or the end (VQ-4.5)."""
    penalties = [penalty(hand.cards) for hand in state.hands[:]]
    state.round_penalties.append(VampireQueenRoundPenalties(penalties=penalties))
    emptied = [seat for seat, hand in enumerate(state.hands[:]) if not hand.cards]
    sums = totals(state)
    events.append(
        Emitted(
            Event(
                round_scored=Event.RoundScored(
                    round=state.round, emptied=emptied, penalties=penalties, totals=sums
                )
            )
        )
    )
    if state.round < rounds_of(state.options):
        start_round(state, events)
        return
    state.over = True
    state.turn = 0
    del state.locks[:]
    best = min(sums)
    winners = [seat for seat, points in enumerate(sums) if points == best]
    events.append(Emitted(Event(game_over=Event.GameOver(totals=sums, winners=winners))))


def hunter_holders(state: VampireQueenState) -> dict[int, int]:
    """Which seat holds each Hunter that is in a hand (public, VQ-1.3). Hands are kept
    ascending and the Hunters are the two highest codes, so only a hand's last two cards can
    be Hunters (this runs for every view)."""
    holders: dict[int, int] = {}
    for seat, hand in enumerate(state.hands[:]):
        for card in hand.cards[-2:]:
            if card in HUNTERS:
                holders[card] = seat
    return holders
