"""Positions built by hand for Trinity's tests, and small move and assertion helpers.

Cards are written as on the table: `J♦`, `10♣`, `colour joker`, `black-and-white joker`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove
from croupier.engines.trinity import ENGINE
from croupier.engines.trinity.cards import ALL_CARDS, name, parse
from croupier.engines.trinity.setup import j_seat_of
from croupier.v1.trinity_pb2 import (
    TRINITY_STEP_ACTION,
    TrinityEvent,
    TrinityHand,
    TrinityMove,
    TrinityOptions,
    TrinityRow,
    TrinityState,
)
from tests.engines import helpers as shared

ROW_INDEX = {"J": 0, "Q": 1, "K": 2}
Move = TrinityMove


def c(text: str) -> int:
    """The code of a card written as on the table."""
    return parse(text)


def cards(texts: Iterable[str]) -> list[int]:
    return [parse(text) for text in texts]


def position(
    *,
    hands: Sequence[Sequence[str]],
    board: Mapping[str, str] | None = None,
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
    revealed: Mapping[int, Sequence[str]] | None = None,
    turn: int | None = None,
    options: TrinityOptions | None = None,
    rest_below: bool = False,
) -> TrinityState:
    """A state at the start of `turn`'s action (default: the J player's).

    `board` maps slot names (`J1`..`K4`) to cards; `deck` lists the deck top first; when it is
    None the deck holds every card not placed elsewhere, in code order (so that the 54 cards
    are always all somewhere); with `rest_below` those other cards lie under `deck`.
    """
    options = options or TrinityOptions()
    state = TrinityState(options=options, rng=rng.seeded(0), seats=3, j_seat=j_seat_of(options))
    state.board.extend([0] * 12)
    for slot, text in (board or {}).items():
        state.board[4 * ROW_INDEX[slot[0]] + int(slot[1:]) - 1] = c(text)
    for seat, hand in enumerate(hands):
        shown = (revealed or {}).get(seat, ())
        state.hands.append(TrinityHand(cards=cards(hand), revealed=cards(shown)))
    state.discard_pile.extend(cards(discard))
    used = [*state.board, *state.discard_pile, *(x for h in state.hands for x in h.cards)]
    if deck is None:
        state.deck.extend(code for code in ALL_CARDS if code not in used)
    else:
        top = cards(deck)
        if rest_below:
            state.deck.extend(code for code in ALL_CARDS if code not in used and code not in top)
        state.deck.extend(reversed(top))
    state.turn = state.j_seat if turn is None else turn
    state.step = TRINITY_STEP_ACTION
    return state


def row(state: TrinityState, letter: str) -> list[str]:
    """A row as readable names, `·` for an empty slot."""
    start = 4 * ROW_INDEX[letter]
    return [name(code) for code in state.board[start : start + 4]]


def hand(state: TrinityState, seat: int) -> list[str]:
    return [name(code) for code in state.hands[seat].cards]


# --- moves -----------------------------------------------------------------------------------


def place(text: str) -> TrinityMove:
    return Move(place=Move.Place(card=c(text)))


def use(text: str) -> TrinityMove:
    return Move(use=Move.Use(card=c(text)))


def discard_two(text: str) -> TrinityMove:
    return Move(discard_two=Move.DiscardTwo(card=c(text)))


def target(slot: int) -> TrinityMove:
    return Move(target_slot=Move.TargetSlot(slot=slot))


def reveal(text: str) -> TrinityMove:
    return Move(reveal=Move.Reveal(card=c(text)))


def skip() -> TrinityMove:
    return Move(skip=Move.Skip())


def swap(own_slot: int, other: str) -> TrinityMove:
    """`swap(2, "Q3")`: own slot 2 with Q3."""
    other_row = TrinityRow.ValueType(ROW_INDEX[other[0]] + 1)
    return Move(swap=Move.Swap(own_slot=own_slot, other_row=other_row, other_slot=int(other[1:])))


def discard(text: str) -> TrinityMove:
    return Move(discard=Move.Discard(card=c(text)))


def give(text: str) -> TrinityMove:
    return Move(give=Move.Give(card=c(text)))


# --- playing ---------------------------------------------------------------------------------


def play(state: TrinityState, seat: int, *moves: TrinityMove) -> list[Emitted[TrinityEvent]]:
    """Apply moves of one seat, checking that each one was listed as legal first."""
    events: list[Emitted[TrinityEvent]] = []
    for move in moves:
        listed = ENGINE.legal_moves(state, seat)
        assert move in listed, f"{move} not among {listed}"
        events += ENGINE.apply(state, seat, move)
    return events


def refused(state: TrinityState, seat: int, move: TrinityMove, rule_id: str) -> IllegalMove:
    """The move is refused naming `rule_id`, it is not listed, and the state is unchanged."""
    return shared.refused(ENGINE, state, seat, move, rule_id)


def all_cards(state: TrinityState) -> list[int]:
    """Every card somewhere in the state (board, hands, deck, discard pile)."""
    found = [code for code in state.board if code]
    for h in state.hands:
        found += h.cards
    return found + list(state.deck) + list(state.discard_pile)
