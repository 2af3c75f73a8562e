"""The rounds of one game and its end (WN-3, WN-5, WN-6.3, WN-6.4, WN-7).

Play round: every seat secretly commits a card; the last commitment reveals all (WN-3.1) and
fixes the drafting order (WN-3.2). A 13 sweeps the stage (WN-3.4); otherwise the seats draft
one stage card each in order (WN-3.3), a step with one possible rank being automatic (WN-3.8).
Then the virtual player takes the leftover and reveals its next card (WN-6.3), the plays move
onto the stage (WN-3.5) and hands refill to three (WN-3.6). When hands are empty the final
round lets every seat take one stage card counter-clockwise, priority holder last (WN-3.7),
the virtual player last of all (WN-6.4); then the totals are recorded (WN-5.1) and, in a
match, the next game is dealt (WN-7.2).
"""

from __future__ import annotations

from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameState,
)
from engines.core.engine import Emitted
from engines.core.seats import clockwise_distance, right
from engines.whats_your_name.cards import (
    HAND_SIZE,
    RANKS,
    THIRTEEN,
    VIRTUAL,
    has_virtual,
    table_size,
    to_card,
    to_cards,
)
from engines.whats_your_name.setup import deal_game, games_in
from engines.whats_your_name.table import Event, Out, acquire, draw_cards, emit, take_from_stage


def start_round(state: WhatsYourNameState, out: Out) -> None:
    """Begin the next round: a play round while hands hold cards, else the final round."""
    state.round += 1
    seats = state.seats
    if all(len(state.positions[seat].hand) == 0 for seat in range(seats)):
        _start_final_round(state, out)
        return
    state.phase = WHATS_YOUR_NAME_PHASE_PLAY
    emit(out, Event(round_started=Event.RoundStarted(round=state.round)))
    # Decision (ours), C-6: a seat holding a single card has no choice; it is played for it.
    for seat in range(seats):
        hand = state.positions[seat].hand
        if len(hand) == 1:
            commit(state, seat, hand[0], True, out)


def hide(state: WhatsYourNameState, seat: int, card: int, out: Out) -> None:
    """WN-7.1: set `card` aside as the seat's hidden card; the last choice starts round 1."""
    pos = state.positions[seat]
    pos.hand.remove(card)
    pos.hidden = card
    out.append(
        Emitted(
            public=Event(hidden_card_set=Event.HiddenCardSet(seat=seat)),
            private={
                seat: Event(hidden_card_set=Event.HiddenCardSet(seat=seat, card=to_card(card)))
            },
        )
    )
    if all(state.positions[s].HasField("hidden") for s in range(state.seats)):
        start_round(state, out)


def commit(state: WhatsYourNameState, seat: int, card: int, automatic: bool, out: Out) -> None:
    """WN-3.1: commit `card` secretly; when it is the last play, reveal and draft."""
    pos = state.positions[seat]
    pos.hand.remove(card)
    pos.played = card
    out.append(
        Emitted(
            public=Event(card_chosen=Event.CardChosen(seat=seat, automatic=automatic)),
            private={
                seat: Event(
                    card_chosen=Event.CardChosen(seat=seat, card=to_card(card), automatic=automatic)
                )
            },
        )
    )
    if all(state.positions[s].HasField("played") for s in range(state.seats)):
        _reveal(state, out)


def drafting_order(state: WhatsYourNameState) -> list[int]:
    """WN-3.2: ascending rank played; equal ranks from the priority holder clockwise."""
    seats, holder = state.seats, state.priority_seat
    return sorted(
        range(seats),
        key=lambda s: (state.positions[s].played % RANKS, clockwise_distance(holder, s, seats)),
    )


def _reveal(state: WhatsYourNameState, out: Out) -> None:
    order = drafting_order(state)
    plays = [
        Event.Play(seat=s, card=to_card(state.positions[s].played)) for s in range(state.seats)
    ]
    emit(out, Event(plays_revealed=Event.PlaysRevealed(plays=plays, drafting_order=order)))
    thirteens = [s for s in order if state.positions[s].played % RANKS + 1 == THIRTEEN]
    if thirteens:
        # WN-3.4: the first 13 in drafting order takes the whole stage; nobody else drafts.
        sweeper = thirteens[0]
        cards = list(state.stage)
        del state.stage[:]
        emit(
            out,
            Event(
                stage_swept=Event.StageSwept(
                    seat=sweeper, cards=to_cards(cards), thirteen_seats=thirteens
                )
            ),
        )
        for card in cards:
            acquire(state, sweeper, card, out)
        _end_play_round(state, out)
        return
    state.phase = WHATS_YOUR_NAME_PHASE_DRAFT
    state.draft_order.extend(order)
    continue_drafting(state, out)


def take(state: WhatsYourNameState, seat: int, rank: int, out: Out) -> None:
    """WN-3.3, WN-3.7: the current drafter takes a stage card of its choice."""
    take_from_stage(state, seat, rank, False, out)
    del state.draft_order[0]
    continue_drafting(state, out)


def continue_drafting(state: WhatsYourNameState, out: Out) -> None:
    """Apply forced steps (WN-3.8: one possible rank) until a seat has a choice or the
    drafting is over."""
    while state.draft_order:
        stage = state.stage
        if not stage:  # cannot happen: the stage holds a card for every drafter
            del state.draft_order[:]
            break
        first = stage[0] % RANKS
        if any(card % RANKS != first for card in stage):
            return  # a real choice: wait for the drafter's move
        take_from_stage(state, state.draft_order[0], first + 1, True, out)
        del state.draft_order[0]
    if state.phase == WHATS_YOUR_NAME_PHASE_FINAL:
        _end_game(state, out)
    else:
        _end_play_round(state, out)


def _virtual_takes_leftover(state: WhatsYourNameState, out: Out) -> None:
    """WN-6.3, WN-6.4: the virtual player takes the card left on the stage, if any."""
    if state.stage:
        take_from_stage(state, VIRTUAL, state.stage[0] % RANKS + 1, True, out)


def _end_play_round(state: WhatsYourNameState, out: Out) -> None:
    if has_virtual(state):
        _virtual_takes_leftover(state, out)
        pile = state.positions[VIRTUAL].pile
        if pile:  # WN-6.3: reveal its next card; a 13 has no effect
            card = pile.pop()
            state.stage.append(card)
            emit(out, Event(virtual_revealed=Event.VirtualRevealed(card=to_card(card))))
    # WN-3.5: the plays move onto the stage.
    played = []
    for seat in range(state.seats):
        pos = state.positions[seat]
        played.append(pos.played)
        pos.ClearField("played")
    state.stage.extend(played)
    emit(out, Event(plays_to_stage=Event.PlaysToStage(cards=to_cards(played))))
    # WN-3.6: refill to three while the pile lasts.
    for seat in range(state.seats):
        draw_cards(state, seat, HAND_SIZE - len(state.positions[seat].hand), out)
    if state.HasField("mirror_seat") and not state.positions[state.mirror_seat].pile:
        # WN-7.2: the holder's pile is empty; the unused mirror is discarded.
        holder = state.mirror_seat
        state.ClearField("mirror_seat")
        emit(out, Event(mirror_discarded=Event.MirrorDiscarded(seat=holder)))
    state.phase = WHATS_YOUR_NAME_PHASE_PLAY
    start_round(state, out)


def final_order(state: WhatsYourNameState) -> list[int]:
    """WN-3.7: from the right of the priority holder counter-clockwise, the holder last."""
    seats, holder = state.seats, state.priority_seat
    return [right(holder - i + 1, seats) for i in range(1, seats + 1)]


def _start_final_round(state: WhatsYourNameState, out: Out) -> None:
    state.phase = WHATS_YOUR_NAME_PHASE_FINAL
    order = final_order(state)
    emit(out, Event(round_started=Event.RoundStarted(round=state.round, final=True, order=order)))
    state.draft_order.extend(order)
    continue_drafting(state, out)


def game_total(state: WhatsYourNameState, position: int) -> int:
    """WN-5.1, WN-7.1: the ranks of the acquired cards plus a hidden card left."""
    pos = state.positions[position]
    total = sum(card % RANKS + 1 for card in pos.acquired)
    if pos.HasField("hidden"):
        total += pos.hidden % RANKS + 1
    return total


def standing_key(state: WhatsYourNameState, position: int, score: int) -> tuple[int, int]:
    """WN-5.2: lower score first; ties to the priority holder, then clockwise from it."""
    return (score, clockwise_distance(state.priority_seat, position, table_size(state.seats)))


def _end_game(state: WhatsYourNameState, out: Out) -> None:
    if has_virtual(state):
        _virtual_takes_leftover(state, out)
    state.ClearField("mirror_seat")
    positions = range(table_size(state.seats))
    totals = [game_total(state, p) for p in positions]
    for p in positions:
        state.positions[p].totals.append(totals[p])
    ranking = sorted(positions, key=lambda p: standing_key(state, p, totals[p]))
    last = state.game_number >= games_in(state)
    lines = []
    for p in positions:
        pos = state.positions[p]
        line = Event.Total(
            seat=p,
            total=totals[p],
            acquired=to_cards(pos.acquired),
            match_total=sum(pos.totals),
            placement=ranking.index(p) + 1,
        )
        if pos.HasField("hidden"):
            line.hidden_card.CopyFrom(to_card(pos.hidden))
        lines.append(line)
    emit(
        out,
        Event(game_ended=Event.GameEnded(game_number=state.game_number, totals=lines, last=last)),
    )
    if last:
        state.phase = WHATS_YOUR_NAME_PHASE_OVER
        return
    deal_game(state, out)  # WN-7.2: the next game of the match
    if not state.options.hidden_card:
        start_round(state, out)
