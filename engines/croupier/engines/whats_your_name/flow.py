"""What follows a move: the rounds of one game and its end (WN-3, WN-5, WN-6.3, WN-6.4, WN-7).

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

from collections.abc import Sequence

from croupier.engines.core.engine import Emitted
from croupier.engines.core.seats import clockwise_distance, right
from croupier.engines.whats_your_name.cards import (
    HAND_SIZE,
    RANKS,
    THIRTEEN,
    VIRTUAL,
    has_virtual,
    table_size,
    to_card,
    to_cards,
)
from croupier.engines.whats_your_name.setup import deal_game, games_in
from croupier.engines.whats_your_name.table import (
    Event,
    Out,
    acquire,
    draw_cards,
    emit,
    take_from_stage,
)
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameState,
)


def start_round(state: WhatsYourNameState, out: Out) -> None:
    """Begin the next round: a play round while hands hold cards, else the final round."""
    state.round += 1
    seats = state.seats
    positions = state.positions
    if all(not positions[seat].hand for seat in range(seats)):
        _start_final_round(state, out)
        return
    state.phase = WHATS_YOUR_NAME_PHASE_PLAY
    event = Event()
    event.round_started.round = state.round
    emit(out, event)
    # Decision (ours), C-6: a seat holding a single card has no choice; it is played for it.
    for seat in range(seats):
        hand = positions[seat].hand
        if len(hand) == 1:
            commit(state, seat, hand[0], True, out)


def hide(state: WhatsYourNameState, seat: int, card: int, out: Out) -> None:
    """WN-7.1: set `card` aside as the seat's hidden card; the last choice starts round 1."""
    positions = state.positions
    pos = positions[seat]
    pos.hand.remove(card)
    pos.hidden = card
    shown = Event()
    shown.hidden_card_set.seat = seat
    mine = Event()
    own = mine.hidden_card_set
    own.seat = seat
    own.card.CopyFrom(to_card(card))
    out.append(Emitted(shown, {seat: mine}))
    if all(positions[s].HasField("hidden") for s in range(state.seats)):
        start_round(state, out)


def commit(state: WhatsYourNameState, seat: int, card: int, automatic: bool, out: Out) -> None:
    """WN-3.1: commit `card` secretly; when it is the last play, reveal and draft."""
    positions = state.positions
    pos = positions[seat]
    pos.hand.remove(card)
    pos.played = card
    shown = Event()
    chosen = shown.card_chosen
    chosen.seat = seat
    chosen.automatic = automatic
    mine = Event()
    own = mine.card_chosen
    own.seat = seat
    own.card.CopyFrom(to_card(card))
    own.automatic = automatic
    out.append(Emitted(shown, {seat: mine}))
    # The last play reveals them all (a loop: a generator costs more than these checks).
    for other in range(state.seats):
        if not positions[other].HasField("played"):
            return
    _reveal(state, out)


def drafting_order(played: Sequence[int], holder: int) -> list[int]:
    """WN-3.2: ascending rank played (`played` by seat); equal ranks from the priority holder
    clockwise."""
    seats = len(played)
    return sorted(
        range(seats), key=lambda s: (played[s] % RANKS, clockwise_distance(holder, s, seats))
    )


def _reveal(state: WhatsYourNameState, out: Out) -> None:
    positions = state.positions
    played = [positions[s].played for s in range(state.seats)]
    order = drafting_order(played, state.priority_seat)
    event = Event()
    revealed = event.plays_revealed
    plays = revealed.plays
    for s, card in enumerate(played):
        play = plays.add()
        play.seat = s
        play.card.CopyFrom(to_card(card))
    revealed.drafting_order.extend(order)
    emit(out, event)
    thirteens = [s for s in order if played[s] % RANKS + 1 == THIRTEEN]
    if thirteens:
        # WN-3.4: the first 13 in drafting order takes the whole stage; nobody else drafts.
        sweeper = thirteens[0]
        stage = state.stage
        cards = stage[:]
        del stage[:]
        event = Event()
        swept = event.stage_swept
        swept.seat = sweeper
        swept.cards.extend(to_cards(cards))
        swept.thirteen_seats.extend(thirteens)
        emit(out, event)
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
    draft_order = state.draft_order
    stage = state.stage
    while draft_order:
        if not stage:  # cannot happen: the stage holds a card for every drafter
            del draft_order[:]
            break
        ranks = {card % RANKS for card in stage}
        if len(ranks) > 1:
            return  # a real choice: wait for the drafter's move
        take_from_stage(state, draft_order[0], stage[0] % RANKS + 1, True, out)
        del draft_order[0]
    if state.phase == WHATS_YOUR_NAME_PHASE_FINAL:
        _end_game(state, out)
    else:
        _end_play_round(state, out)


def _virtual_takes_leftover(state: WhatsYourNameState, out: Out) -> None:
    """WN-6.3, WN-6.4: the virtual player takes the card left on the stage, if any."""
    stage = state.stage
    if stage:
        take_from_stage(state, VIRTUAL, stage[0] % RANKS + 1, True, out)


def _end_play_round(state: WhatsYourNameState, out: Out) -> None:
    positions = state.positions
    if has_virtual(state):
        _virtual_takes_leftover(state, out)
        pile = positions[VIRTUAL].pile
        if pile:  # WN-6.3: reveal its next card; a 13 has no effect
            card = pile.pop()
            state.stage.append(card)
            event = Event()
            event.virtual_revealed.card.CopyFrom(to_card(card))
            emit(out, event)
    # WN-3.5: the plays move onto the stage.
    seats = state.seats
    played = []
    for seat in range(seats):
        pos = positions[seat]
        played.append(pos.played)
        pos.ClearField("played")
    state.stage.extend(played)
    event = Event()
    event.plays_to_stage.cards.extend(to_cards(played))
    emit(out, event)
    # WN-3.6: refill to three while the pile lasts.
    for seat in range(seats):
        draw_cards(state, seat, HAND_SIZE - len(positions[seat].hand), out)
    if state.HasField("mirror_seat") and not positions[state.mirror_seat].pile:
        # WN-7.2: the holder's pile is empty; the unused mirror is discarded.
        holder = state.mirror_seat
        state.ClearField("mirror_seat")
        event = Event()
        event.mirror_discarded.seat = holder
        emit(out, event)
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
    total = sum(card % RANKS + 1 for card in pos.acquired[:])
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
            match_total=sum(pos.totals[:]),
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


def after_deal(state: WhatsYourNameState, out: Out) -> None:
    """After the first deal: round 1 starts at once, unless hidden cards come first (WN-7.1)."""
    if state.phase != WHATS_YOUR_NAME_PHASE_HIDE:
        start_round(state, out)


def use_mirror(state: WhatsYourNameState, seat: int, rank: int, out: Out) -> None:
    """WN-7.2: discard the mirror with the holder's acquired card of `rank`."""
    acquired = state.positions[seat].acquired
    index = next(i for i, c in enumerate(acquired) if c % RANKS + 1 == rank)
    card = acquired[index]
    del acquired[index]
    state.discarded.append(card)
    state.ClearField("mirror_seat")
    emit(out, Event(mirror_used=Event.MirrorUsed(seat=seat, card=to_card(card))))
