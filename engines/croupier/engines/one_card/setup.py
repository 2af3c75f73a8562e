"""Creating a match and dealing each game (OC-1, OC-2, OC-6.3).

Options are validated here: the deck composition table (OC-1), `wins_to_match` (OC-6.3) and
`dealer_seat` (OC-2.3). Each game of a match is dealt from a freshly shuffled full deck; the
dealer passes to the left from one game to the next.
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core import rng
from croupier.engines.core.cards import draw
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import InvalidOptions
from croupier.engines.core.seats import clockwise_from, left
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import OneCardEvent, OneCardOptions, OneCardState

HAND_SIZE: Final = 7  # OC-2.1
MAX_WINS_TO_MATCH: Final = 5

Event = OneCardEvent


def wins_to_match(options: OneCardOptions) -> int:
    return options.wins_to_match or 1


def validate(options: OneCardOptions, seats: int) -> None:
    counts = c.deck_counts(options.deck)
    for name, count in counts.items():
        limit = c.DECK_LIMITS[name]
        if not 0 <= count <= limit:
            raise InvalidOptions(f"deck.{name}", f"must be between 0 and {limit}, not {count}")
    numbers = 36 * counts["number_copies"]
    if numbers < HAND_SIZE * seats + 1:
        raise InvalidOptions(
            "deck.number_copies",
            f"OC-2.2: {seats} players need at least {HAND_SIZE * seats + 1} number cards so that"
            f" a number card is left to start the discard pile; this deck has {numbers}",
        )
    if counts["rainbows"] + counts["quatrans"] < 2:
        raise InvalidOptions(
            "deck", "OC-3.5: the deck needs at least two Rainbow or Quatran cards in all"
        )
    if not 0 <= options.wins_to_match <= MAX_WINS_TO_MATCH:
        raise InvalidOptions(
            "wins_to_match", f"must be between 1 and {MAX_WINS_TO_MATCH} (0 means 1)"
        )
    if options.HasField("dealer_seat") and not 0 <= options.dealer_seat < seats:
        raise InvalidOptions("dealer_seat", f"there is no seat {options.dealer_seat}")


def new_state(options: OneCardOptions, seats: int, seed: int) -> OneCardState:
    state = OneCardState(seats=seats, rng=rng.seeded(seed), wins=[0] * seats)
    state.options.CopyFrom(options)
    for _ in range(seats):
        state.hands.add()
    return state


def first_dealer(state: OneCardState) -> tuple[int, bool]:
    """OC-2.3 / C-3: the dealer option, else a seat drawn by the seeded generator."""
    if state.options.HasField("dealer_seat"):
        return state.options.dealer_seat, False
    return rng.below(state.rng, state.seats), True


def deal_game(state: OneCardState, dealer: int, by_lot: bool = False) -> list[Emitted[Event]]:
    """Shuffle the whole deck, deal 7 each, turn the start card (OC-2.1..OC-2.3)."""
    deck = c.build_deck(c.deck_counts(state.options.deck))
    rng.shuffle(state.rng, deck)
    del state.draw_pile[:]
    state.draw_pile.extend(deck)
    del state.discard_pile[:]
    state.counter_clockwise = False
    state.named_color = 0  # type: ignore[assignment]
    state.pending_attack = 0
    state.quatran_pending = False
    state.ClearField("catchable_seat")
    state.dealer = dealer
    state.game_number += 1
    first = left(dealer, state.seats)
    state.current_seat = first
    events: list[Emitted[Event]] = [
        Emitted(
            Event(
                game_started=Event.GameStarted(
                    game_number=state.game_number,
                    dealer=dealer,
                    dealer_drawn_by_lot=by_lot,
                    first_seat=first,
                )
            )
        )
    ]
    for seat in clockwise_from(first, state.seats):
        hand = draw(state.draw_pile, HAND_SIZE)
        hand_of = state.hands[seat].cards
        del hand_of[:]
        hand_of.extend(hand)
        events.append(
            Emitted(
                Event(dealt=Event.Dealt(seat=seat, count=len(hand))),
                {
                    seat: Event(
                        dealt=Event.Dealt(seat=seat, count=len(hand), cards=c.to_messages(hand))
                    )
                },
            )
        )
    # OC-2.2: special cards turned up go to the bottom of the draw pile (validate() guarantees
    # that a number card is left in it).
    put_under: list[int] = []
    while True:
        card = state.draw_pile.pop()
        if c.TYPE[card] == c.NUMBER:
            state.discard_pile.append(card)
            break
        state.draw_pile.insert(0, card)
        put_under.append(card)
    events.append(
        Emitted(
            Event(
                start_card=Event.StartCard(
                    card=c.to_message(card), put_under=c.to_messages(put_under)
                )
            )
        )
    )
    return events
