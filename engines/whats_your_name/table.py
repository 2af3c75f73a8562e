"""Small steps shared by setup and the rounds: emitting events, drawing, acquiring cards and
discarding pairs (WN-4.1) and hidden-card matches (WN-7.1)."""

from __future__ import annotations

from croupier.v1.whats_your_name_pb2 import WhatsYourNameEvent, WhatsYourNameState
from engines.core.cards import draw
from engines.core.engine import Emitted
from engines.whats_your_name.cards import RANKS, to_card, to_cards

Event = WhatsYourNameEvent
Out = list[Emitted[WhatsYourNameEvent]]


def emit(out: Out, event: WhatsYourNameEvent) -> None:
    """A public event: every seat and every spectator sees the same thing."""
    out.append(Emitted(public=event))


def draw_cards(state: WhatsYourNameState, seat: int, count: int, out: Out) -> None:
    """WN-2.4, WN-3.6: move up to `count` cards from the top of the pile into the hand; the
    public event gives the count, the seat's own version the cards."""
    pos = state.positions[seat]
    if count <= 0 or not pos.pile:
        return
    drawn = draw(pos.pile, count)
    count = len(drawn)
    pos.hand.extend(drawn)
    left = len(pos.pile)
    out.append(
        Emitted(
            public=Event(cards_drawn=Event.CardsDrawn(seat=seat, count=count, pile_size=left)),
            private={
                seat: Event(
                    cards_drawn=Event.CardsDrawn(
                        seat=seat, count=count, cards=to_cards(drawn), pile_size=left
                    )
                )
            },
        )
    )


def acquire(state: WhatsYourNameState, seat: int, card: int, out: Out) -> None:
    """Lay `card` face up in front of table position `seat`, then discard what cancels.

    Acquired cards never hold two of one rank, nor the rank of the hidden card, so one new card
    cancels at most one: a pair (WN-4.1, two by two: a third copy stays) or the hidden card
    (WN-7.1, automatic because it only ever lowers the total).
    """
    pos = state.positions[seat]
    rank = card % RANKS
    for i, other in enumerate(pos.acquired):
        if other % RANKS == rank:
            del pos.acquired[i]
            state.discarded.extend((other, card))
            emit(
                out,
                Event(pair_discarded=Event.PairDiscarded(seat=seat, cards=to_cards((other, card)))),
            )
            return
    if pos.HasField("hidden") and pos.hidden % RANKS == rank:
        hidden = pos.hidden
        pos.ClearField("hidden")
        state.discarded.extend((card, hidden))
        emit(
            out,
            Event(
                hidden_card_matched=Event.HiddenCardMatched(
                    seat=seat, card=to_card(card), hidden_card=to_card(hidden)
                )
            ),
        )
        return
    pos.acquired.append(card)


def take_from_stage(
    state: WhatsYourNameState, seat: int, rank: int, automatic: bool, out: Out
) -> None:
    """WN-3.3: take the first stage card of `rank` (the caller checked there is one)."""
    index = next(i for i, c in enumerate(state.stage) if c % RANKS + 1 == rank)
    card = state.stage[index]
    del state.stage[index]
    emit(out, Event(card_taken=Event.CardTaken(seat=seat, card=to_card(card), automatic=automatic)))
    acquire(state, seat, card, out)
