"""Setting up one game (WN-2, WN-6.1, WN-7.2): colour sets shuffled into piles, a first card
of each pile revealed onto the stage (never a 13), the priority card, the mirror for the
highest recorded total in a match, and the first hands."""

from __future__ import annotations

from croupier.engines.core import rng
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.whats_your_name.cards import (
    HAND_SIZE,
    HIDDEN_DEAL,
    RANKS,
    THIRTEEN,
    colour_set,
    rank_of,
    table_size,
    to_card,
)
from croupier.engines.whats_your_name.table import Event, Out, draw_cards, emit
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PRIORITY_REASON_LOT,
    WHATS_YOUR_NAME_PRIORITY_REASON_LOWEST_CARD,
    WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST,
    WhatsYourNameOptions,
    WhatsYourNameState,
)


def new_game(
    options: WhatsYourNameOptions, seats: int, seed: int
) -> tuple[WhatsYourNameState, Out]:
    """A new game (or match) dealt: options checked, the table laid out, game 1 dealt (WN-2)."""
    ages = list(options.youngest_seat)
    for seat in ages:
        if not 0 <= seat < seats:
            raise InvalidOptions("youngest_seat", f"there is no seat {seat}")
    if len(set(ages)) != len(ages):
        raise InvalidOptions("youngest_seat", "a seat may be listed only once")
    state = WhatsYourNameState(rng=rng.seeded(seed), seats=seats)
    state.options.CopyFrom(options)
    for _ in range(table_size(seats)):
        state.positions.add()
    out: Out = []
    deal_game(state, out)
    return state, out


def games_in(state: WhatsYourNameState) -> int:
    """WN-7.2: a match has as many games as players; otherwise one game."""
    return state.seats if state.options.match else 1


def deal_game(state: WhatsYourNameState, out: Out) -> None:
    """Start game `game_number + 1`: everything up to (not including) the first play round.

    Leaves the phase at HIDE with option `hidden_card`; otherwise the caller starts round 1.
    """
    state.game_number += 1
    state.round = 0
    del state.stage[:]
    del state.draft_order[:]
    del state.discarded[:]
    state.ClearField("mirror_seat")
    positions = table_size(state.seats)
    if state.options.match:
        emit(
            out,
            Event(
                game_started=Event.GameStarted(game_number=state.game_number, games=games_in(state))
            ),
        )
        if state.game_number > 1:
            _give_mirror(state, out)
    for p in range(positions):
        pos = state.positions[p]
        del pos.hand[:]
        del pos.acquired[:]
        pos.ClearField("hidden")
        pos.ClearField("played")
        pile = colour_set(p)  # WN-2.1
        rng.shuffle(state.rng, pile)
        returned = 0
        while pile[-1] % RANKS + 1 == THIRTEEN:  # WN-2.2: a 13 goes back, reshuffle
            returned += 1
            rng.shuffle(state.rng, pile)
        top = pile.pop()
        del pos.pile[:]
        pos.pile.extend(pile)
        state.stage.append(top)
        event = Event()  # filled in field by field (see `table`)
        revealed = event.setup_revealed
        revealed.seat = p
        revealed.card.CopyFrom(to_card(top))
        revealed.thirteens_returned = returned
        emit(out, event)
    _take_priority(state, out)
    deal = HIDDEN_DEAL if state.options.hidden_card else HAND_SIZE
    for seat in range(state.seats):  # WN-2.4 (WN-7.1: four with a hidden card)
        draw_cards(state, seat, deal, out)
    if state.options.hidden_card:
        state.phase = WHATS_YOUR_NAME_PHASE_HIDE


def _take_priority(state: WhatsYourNameState, out: Out) -> None:
    """WN-2.3, WN-6.2: the lowest stage card among the seats (never the virtual player); a
    tie goes to the youngest by option `youngest_seat`, else by lot (C-3)."""
    ranks = [rank_of(state.stage[seat]) for seat in range(state.seats)]
    low = min(ranks)
    tied = [seat for seat in range(state.seats) if ranks[seat] == low]
    if len(tied) == 1:
        holder, reason = tied[0], WHATS_YOUR_NAME_PRIORITY_REASON_LOWEST_CARD
    else:
        listed = [seat for seat in state.options.youngest_seat if seat in tied]
        if listed:
            holder, reason = listed[0], WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST
        else:
            holder = rng.choice(state.rng, tied)
            reason = WHATS_YOUR_NAME_PRIORITY_REASON_LOT
    state.priority_seat = holder
    emit(
        out,
        Event(priority_taken=Event.PriorityTaken(seat=holder, tied_seats=tied, reason=reason)),
    )


def _give_mirror(state: WhatsYourNameState, out: Out) -> None:
    """WN-7.2: the seat with the highest recorded total so far (ties: the lowest seat index;
    the virtual player, who makes no move, never receives it)."""
    sums = [sum(state.positions[seat].totals[:]) for seat in range(state.seats)]
    holder = sums.index(max(sums))
    state.mirror_seat = holder
    emit(out, Event(mirror_given=Event.MirrorGiven(seat=holder, recorded_total=sums[holder])))
