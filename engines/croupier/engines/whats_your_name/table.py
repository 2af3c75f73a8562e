"""Small steps shared by setup and the flow: emitting events, drawing, acquiring cards and
discarding pairs (WN-4.1) and hidden-card matches (WN-7.1)."""

from __future__ import annotations

from croupier.engines.core.cards import draw
from croupier.engines.core.engine import Emitted
from croupier.engines.whats_your_name.cards import RANKS, to_card, to_cards
from croupier.v1.whats_your_name_pb2 import WhatsYourNameEvent, WhatsYourNameState

Event = WhatsYourNameEvent
Out = list[Emitted[WhatsYourNameEvent]]


def emit(out: Out, event: WhatsYourNameEvent) -> None:
    """A public event: every seat and every spectator sees the same thing."""
    out.append(Emitted(event))


# Events are filled in field by field: a nested constructor would build each inner message
# once more only to copy it into the event.


def draw_cards(state: WhatsYourNameState, seat: int, count: int, out: Out) -> None:
    """WN-2.4, WN-3.6: move up to `count` cards from the top of the pile into the hand; the
    public event gives the count, the seat's own version the cards."""
    if count <= 0:
        return
    pos = state.positions[seat]
    pile = pos.pile
    if not pile:
        return
    drawn = draw(pile, count)
    count = len(drawn)
    pos.hand.extend(drawn)
    left = len(pile)
    shown = Event()
    drew = shown.cards_drawn
    drew.seat = seat
    drew.count = count
    drew.pile_size = left
    mine = Event()
    own = mine.cards_drawn
    own.seat = seat
    own.count = count
    own.cards.extend(to_cards(drawn))
    own.pile_size = left
    out.append(Emitted(shown, {seat: mine}))


def acquire(state: WhatsYourNameState, seat: int, card: int, out: Out) -> None:
    """Lay `card` face up in front of table position `seat`, then discard what cancels.

    Acquired cards never hold two of one rank, nor the rank of the hidden card, so one new card
    cancels at most one: a pair (WN-4.1, two by two: a third copy stays) or the hidden card
    (WN-7.1, automatic because it only ever lowers the total).
    """
    pos = state.positions[seat]
    acquired = pos.acquired
    rank = card % RANKS
    for i, other in enumerate(acquired[:]):  # a slice: engines/README.md
        if other % RANKS == rank:
            del acquired[i]
            state.discarded.extend((other, card))
            event = Event()
            pair = event.pair_discarded
            pair.seat = seat
            pair.cards.extend(to_cards((other, card)))
            emit(out, event)
            return
    if pos.HasField("hidden") and pos.hidden % RANKS == rank:
        hidden = pos.hidden
        pos.ClearField("hidden")
        state.discarded.extend((card, hidden))
        event = Event()
        matched = event.hidden_card_matched
        matched.seat = seat
        matched.card.CopyFrom(to_card(card))
        matched.hidden_card.CopyFrom(to_card(hidden))
        emit(out, event)
        return
    acquired.append(card)


def take_from_stage(
    state: WhatsYourNameState, seat: int, rank: int, automatic: bool, out: Out
) -> None:
    """WN-3.3: take the first stage card of `rank` (the caller checked there is one)."""
    stage = state.stage
    index = [c % RANKS + 1 for c in stage].index(rank)
    card = stage[index]
    del stage[index]
    event = Event()
    taken = event.card_taken
    taken.seat = seat
    taken.card.CopyFrom(to_card(card))
    taken.automatic = automatic
    emit(out, event)
    acquire(state, seat, card, out)
