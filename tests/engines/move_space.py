"""Every move message a seat could send, per game: the move space the listing is checked against.

Written from the protos (protos/croupier/v1/<game>.proto) and the rules in docs/games/, not from
the engines: each generator enumerates every variant of the game's `<Game>Move.kind` with every
combination of its fields over their domains (every card code or card message of the game,
every seat, slot, colour, rank and call), plus a few values just outside each domain (a card
code one past the deck, seat -1 and seat N, an unset enum) and the empty move, which must be
refused as malformed.

Moves made of several cards cannot be enumerated over the whole deck (One Card's two-card
Quatran answer has 54 x 54 orders; a Vampire Queen play is a multiset of up to 12 of 16 card
values). There the space is every combination over the whole card domain up to a small size,
plus every combination of a shape the rules can accept: One Card's pairs of the cards the seat
holds (a play of cards one does not hold is refused whatever they are), Vampire Queen's k copies
of one value with q Queens. With `full=True` One Card's pairs run over the whole deck and Vampire
Queen's small multisets go one card further.

Each function returns the moves in a canonical form: where the proto says the order of the
cards does not matter (Vampire Queen), cards are sorted; `canonical` puts a listed move in the
same form, so that moves compare as serialized messages.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from croupier.v1.one_card_pb2 import OneCardCard, OneCardMove, OneCardState
from croupier.v1.pig_mau_mau_pb2 import PigMauMauMove, PigMauMauState
from croupier.v1.trinity_pb2 import TrinityMove, TrinityState
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenState
from croupier.v1.whats_your_name_pb2 import WhatsYourNameMove, WhatsYourNameState

MoveSpace = Callable[[Any, int, bool], Iterator[Any]]

# --- One Card (one_card.proto: OneCardCard {type, color, number}) ------------------------------

_OC_COLORS = range(1, 5)  # OneCardColor RED..BLUE
_OC_NUMBER, _OC_RAINBOW, _OC_QUATRAN = 1, 6, 7  # OneCardCardType
_OC_COLORED_SPECIALS = range(2, 6)  # PLUS_TWO, PLUS_THREE, JUMP, U_TURN

OC_NUMBER_CARDS = [
    OneCardCard(type=_OC_NUMBER, color=color, number=number)  # type: ignore[arg-type]
    for color in _OC_COLORS
    for number in range(1, 10)
]
OC_CARDS = [
    *OC_NUMBER_CARDS,
    *(
        OneCardCard(type=kind, color=color)  # type: ignore[arg-type]
        for kind in _OC_COLORED_SPECIALS
        for color in _OC_COLORS
    ),
    OneCardCard(type=_OC_RAINBOW),  # type: ignore[arg-type]
    OneCardCard(type=_OC_QUATRAN),  # type: ignore[arg-type]
]
# Cards no deck has: refused as malformed, never accepted.
OC_NOT_CARDS = [
    OneCardCard(),
    OneCardCard(type=_OC_NUMBER, color=1, number=0),  # type: ignore[arg-type]
    OneCardCard(type=_OC_NUMBER, color=1, number=10),  # type: ignore[arg-type]
    OneCardCard(type=_OC_NUMBER, number=5),  # type: ignore[arg-type]
    OneCardCard(type=2, color=1, number=3),  # type: ignore[arg-type]
    OneCardCard(type=_OC_RAINBOW, color=2),  # type: ignore[arg-type]
    OneCardCard(type=_OC_QUATRAN, color=3),  # type: ignore[arg-type]
    OneCardCard(type=8),  # type: ignore[arg-type]
]


def _oc_held(state: OneCardState, seat: int) -> list[int]:
    """The seat's distinct card codes. A code indexes OC_CARDS, which lists the cards in code
    order (numbers 0..35, then +2, +3, Jump, U-turn per colour, Rainbow, Quatran: the encoding
    of docs/games/one_card.md), so no engine code is used."""
    if not 0 <= seat < len(state.hands):
        return []
    return list(dict.fromkeys(state.hands[seat].cards))


def one_card(state: OneCardState, seat: int, full: bool = False) -> Iterator[OneCardMove]:
    yield OneCardMove()
    yield OneCardMove(draw=OneCardMove.Draw())
    yield OneCardMove(call_one_card=OneCardMove.CallOneCard())
    for target in range(-1, state.seats + 1):
        yield OneCardMove(catch=OneCardMove.Catch(seat=target))
    calls = (False, True)
    colors = range(0, 5)
    yield OneCardMove(play=OneCardMove.Play())  # no card at all
    for card in [*OC_CARDS, *OC_NOT_CARDS]:
        for color in colors:
            for call in calls:
                play = OneCardMove.Play(cards=[card], color=color, call_one_card=call)  # type: ignore[arg-type]
                yield OneCardMove(play=play)
    # Two cards (a Quatran answer, OC-4.7): every ordered pair of number cards, the same card
    # twice included, without the call (with `full`: every ordered pair of cards, with and
    # without the call); and every ordered pair of held cards with every colour and the call.
    pair_domain = OC_CARDS if full else OC_NUMBER_CARDS
    for first, second in itertools.product(pair_domain, repeat=2):
        for call in calls if full else (False,):
            play = OneCardMove.Play(cards=[first, second], call_one_card=call)
            yield OneCardMove(play=play)
    held = _oc_held(state, seat)
    for a, b in itertools.product(held, repeat=2):
        # Held pairs with every named colour (which only a wild card may carry) and with the
        # call; the pairs of numbers without a colour or call are all above already.
        numbers = a < len(OC_NUMBER_CARDS) and b < len(OC_NUMBER_CARDS)
        for color, call in [*((color, False) for color in colors), (0, True)]:
            if color == 0 and not call and (full or numbers):
                continue
            cards = [OC_CARDS[a], OC_CARDS[b]]
            play = OneCardMove.Play(cards=cards, color=color, call_one_card=call)  # type: ignore[arg-type]
            yield OneCardMove(play=play)
    # Three cards: never a move; a few of the held ones.
    for triple in itertools.islice(itertools.permutations(held, 3), 20):
        yield OneCardMove(play=OneCardMove.Play(cards=[OC_CARDS[code] for code in triple]))


# --- Pig Mau Mau (pig_mau_mau.proto: card codes 0..38, PigColor 0..4, MauCall 0..2) ----------

PM_CARD_CODES = range(-1, 40)  # 0..38 are the deck; -1 and 39 are not cards
PIG_COLORS = range(0, 5)  # UNSPECIFIED, PINK, BROWN, BLACK, BEIGE
MAU_CALLS = range(0, 3)  # UNSPECIFIED, MAU, MAU_MAU


def pig_mau_mau(state: PigMauMauState, seat: int, full: bool = False) -> Iterator[PigMauMauMove]:
    move = PigMauMauMove
    yield move()
    yield move(draw=move.Draw())
    yield move(end_steps=move.EndSteps())
    yield move(decline_bet=move.DeclineBet())
    for color in PIG_COLORS:
        yield move(step_back=move.StepBack(pig=color))  # type: ignore[arg-type]
        yield move(place_bet=move.PlaceBet(color=color))  # type: ignore[arg-type]
    for card, pig, color, call in itertools.product(
        PM_CARD_CODES, PIG_COLORS, PIG_COLORS, MAU_CALLS
    ):
        play = move.PlayCard(card=card, pig=pig, color=color, call=call)  # type: ignore[arg-type]
        yield move(play=play)


# --- Trinity (trinity.proto: card codes 1..54, slots 1..4, TrinityRow 1..3) -------------------

TR_CARD_CODES = range(0, 56)  # 1..54 are the deck; 0 is "no card", 55 is not a card
TR_SLOTS = range(0, 6)  # 1..4 are slots
TR_ROWS = range(0, 4)  # UNSPECIFIED, J, Q, K


def trinity(state: TrinityState, seat: int, full: bool = False) -> Iterator[TrinityMove]:
    move = TrinityMove
    yield move()
    yield move(skip=move.Skip())
    for card in TR_CARD_CODES:
        yield move(place=move.Place(card=card))
        yield move(use=move.Use(card=card))
        yield move(discard_two=move.DiscardTwo(card=card))
        yield move(reveal=move.Reveal(card=card))
        yield move(discard=move.Discard(card=card))
        yield move(give=move.Give(card=card))
    for slot in TR_SLOTS:
        yield move(target_slot=move.TargetSlot(slot=slot))
    for own, row, other in itertools.product(TR_SLOTS, TR_ROWS, TR_SLOTS):
        swap = move.Swap(own_slot=own, other_row=row, other_slot=other)  # type: ignore[arg-type]
        yield move(swap=swap)


# --- Vampire Queen (vampire_queen.proto: a multiset of VampireQueenCard values) ----------------

VQ_CARDS = [*range(1, 16), 20]  # vampires 1..13, Queen 14, Hunters 15 and 20
VQ_NOT_CARDS = [0, 16]  # UNSPECIFIED, and a value the enum does not have


def vampire_queen(
    state: VampireQueenState, seat: int, full: bool = False
) -> Iterator[VampireQueenMove]:
    move = VampireQueenMove
    yield move()
    yield move(pass_turn=move.Pass())
    yield move(play=move.PlayCards())  # no card at all
    seen: set[tuple[int, ...]] = set()
    # Every multiset over the whole card domain up to a small size (mixed ranks, two Hunters,
    # cards that are no card) ...
    small = itertools.chain.from_iterable(
        itertools.combinations_with_replacement([*VQ_NOT_CARDS, *VQ_CARDS], size)
        for size in range(1, 4 if full else 3)
    )
    # ... and every shape a play can accept (VQ-1.2, VQ-3.1): k copies of one card value with
    # q Queens, k up to one more than the 8 copies of a rank, q up to one more than the 4
    # Queens, for every value. Any other play is refused, and holds a mixed or small multiset.
    shaped = (
        tuple(sorted([value] * k + [14] * q))
        for value in [*VQ_NOT_CARDS, *VQ_CARDS]
        for k in range(1, 10)
        for q in range(0, 6)
    )
    for cards in itertools.chain(small, shaped):
        if cards not in seen:
            seen.add(cards)
            yield move(play=move.PlayCards(cards=cards))
            if len(set(cards)) > 1:
                # The proto makes the cards a multiset: any order is the same play.
                yield move(play=move.PlayCards(cards=cards[::-1]))


# --- What's Your Name? (whats_your_name.proto: ranks 1..13) -----------------------------------

WN_RANKS = range(0, 15)  # 1..13 are ranks


def whats_your_name(
    state: WhatsYourNameState, seat: int, full: bool = False
) -> Iterator[WhatsYourNameMove]:
    move = WhatsYourNameMove
    yield move()
    for rank in WN_RANKS:
        yield move(play=move.PlayCard(rank=rank))
        yield move(take=move.TakeCard(rank=rank))
        yield move(hide=move.HideCard(rank=rank))
        yield move(use_mirror=move.UseMirror(rank=rank))


MOVE_SPACES: dict[str, MoveSpace] = {
    "one_card": one_card,
    "pig_mau_mau": pig_mau_mau,
    "trinity": trinity,
    "vampire_queen": vampire_queen,
    "whats_your_name": whats_your_name,
}


def canonical(game_id: str, move: Any) -> Any:
    """The move in the form the generator yields it: a Vampire Queen play's cards sorted (the
    proto makes them a multiset)."""
    if game_id == "vampire_queen" and move.WhichOneof("kind") == "play":
        copy = VampireQueenMove()
        copy.play.cards.extend(sorted(move.play.cards))
        return copy
    return move
