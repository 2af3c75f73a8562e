"""Carrying out a validated move (TR-3 the action and the draw, TR-4 card effects), and the
automatic steps that follow it (C-6, TR-3.5).

Every function here assumes `rules.violation` accepted the move. A step changes the state and
returns its events; the game ends the moment the board is complete (TR-5.1), a Jack, Queen or
King reaches the discard pile under `stop_when_unwinnable` (TR-5.4), or every hand is empty at
the end of an action (TR-5.2).
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core.cards import draw
from croupier.engines.core.engine import Emitted
from croupier.engines.core.seats import clockwise_from, left
from croupier.engines.trinity import board as rows
from croupier.engines.trinity.board import SLOTS
from croupier.engines.trinity.cards import CLUBS, DIAMONDS, is_face, is_joker, suit_of
from croupier.engines.trinity.rules import (
    ACTION,
    DISCARD,
    GIFT,
    GIFT_DISCARD,
    ONGOING,
    SUIT_EFFECT,
    SWAP,
    Choice,
    active_seat,
    forced_choice,
    gift_receiver,
    has_special,
    row_of_seat,
    row_value,
)
from croupier.v1.trinity_pb2 import (
    TRINITY_ACTION_PASS,
    TRINITY_ACTION_PLACE,
    TRINITY_ACTION_UNSPECIFIED,
    TRINITY_ACTION_USE,
    TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED,
    TRINITY_OUTCOME_LOST_HANDS_EMPTY,
    TRINITY_OUTCOME_WON,
    TRINITY_PART_SUIT_EFFECT,
    TRINITY_PART_SWAP,
    TRINITY_STEP_UNSPECIFIED,
    TrinityEvent,
    TrinityState,
)

Event = TrinityEvent
Emits = list[Emitted[TrinityEvent]]
DRAW: Final = 2


def public(event: TrinityEvent) -> Emitted[TrinityEvent]:
    return Emitted(event)


# Events are filled in field by field: a nested constructor would build each inner message
# once more only to copy it into the event.


def perform(state: TrinityState, seat: int, choice: Choice) -> Emits:
    """Carry out a validated choice, then every step that follows with a single possible move."""
    events = _carry_out(state, seat, choice)
    # C-6: a step with a single possible move (the last card to discard, the only possible
    # part of a 10 or an A) is made for the player.
    while state.step != ACTION:
        actor = active_seat(state)
        if actor is None:
            break
        forced = forced_choice(state, actor)
        if forced is None:
            break
        events += _carry_out(state, actor, forced)
    return events


def _carry_out(state: TrinityState, seat: int, choice: Choice) -> Emits:
    """Carry out one validated move of `seat`, given as a Choice (see `rules`)."""
    kind, a, b, c = choice
    if kind == "discard":
        events = _discard_from_hand(state, seat, a)
        if state.outcome == ONGOING:
            events += _finish_action(state)
        return events
    if kind == "place":
        return _place(state, seat, a)
    if kind == "use":
        return _use(state, seat, a)
    if kind == "discard_two":
        state.action = TRINITY_ACTION_PASS
        state.step = DISCARD
        return _discard_from_hand(state, seat, a)
    if kind == "target_slot":
        return _slot_effect(state, seat, a - 1)
    if kind == "reveal":
        return _reveal(state, seat, a)
    if kind == "skip":
        return _skip(state, seat)
    if kind == "swap":
        return _swap(state, seat, a - 1, b - 1, c - 1)
    return _give(state, seat, a)


# --- zones -----------------------------------------------------------------------------------


def _take(state: TrinityState, seat: int, code: int) -> None:
    """Remove a card from a hand; a revealed card stops being revealed (TR-4.4)."""
    hand = state.hands[seat]
    hand.cards.remove(code)
    revealed = hand.revealed
    if revealed and code in revealed:
        revealed.remove(code)


def _to_pile(state: TrinityState, code: int) -> None:
    state.discard_pile.append(code)
    if state.options.stop_when_unwinnable and is_face(code):
        state.outcome = TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED


def _end_events(state: TrinityState) -> Emits:
    """If the game just ended: clear the pending step and announce the shared result."""
    outcome = state.outcome
    if outcome == ONGOING:
        return []
    state.step = TRINITY_STEP_UNSPECIFIED
    state.action = TRINITY_ACTION_UNSPECIFIED
    state.using_card = 0
    state.effect_done = False
    state.revealed_now = 0
    state.gift_card = 0
    event = Event()
    event.game_ended.outcome = outcome
    return [public(event)]


def _check_win(state: TrinityState) -> None:
    """TR-5.1 / TR-5.3, after every change of the board."""
    if rows.board_complete(state.board, advanced=state.options.advanced):
        state.outcome = TRINITY_OUTCOME_WON


def _set_row(state: TrinityState, row: int, slots: list[int]) -> None:
    state.board[SLOTS * row : SLOTS * row + SLOTS] = slots


# --- actions ---------------------------------------------------------------------------------


def _place(state: TrinityState, seat: int, code: int) -> Emits:
    """TR-3.1: place into slot 1 with the push; then one more discard."""
    _take(state, seat, code)
    row = row_of_seat(state, seat)
    slots, pushed_off = rows.place(rows.row_of_board(state.board, row), code)
    _set_row(state, row, slots)
    event = Event()
    placed = event.placed
    placed.seat = seat
    placed.row = row_value(row)
    placed.card = code
    placed.pushed_off = pushed_off
    events = [public(event)]
    if pushed_off:
        _to_pile(state, pushed_off)
    _check_win(state)
    state.action = TRINITY_ACTION_PLACE
    state.step = DISCARD
    return events + _end_events(state)


def _use(state: TrinityState, seat: int, code: int) -> Emits:
    """TR-3.2: the used card goes to the discard pile; its effect follows."""
    _take(state, seat, code)
    _to_pile(state, code)
    state.action = TRINITY_ACTION_USE
    state.using_card = code
    state.effect_done = False
    state.step = GIFT if is_joker(code) else SUIT_EFFECT
    event = Event()
    used = event.used
    used.seat = seat
    used.card = code
    return [public(event), *_end_events(state)]


def _after_effect(state: TrinityState) -> None:
    state.step = SWAP if has_special(state.using_card) else DISCARD


def _slot_effect(state: TrinityState, seat: int, index: int) -> Emits:
    """TR-4.1 ♦, TR-4.2 ♥, TR-4.3 ♣ on the card at `index` of the player's own row."""
    row = row_of_seat(state, seat)
    slots = rows.row_of_board(state.board, row)
    code = slots[index]
    suit = suit_of(state.using_card)
    event = Event()
    if suit == CLUBS:
        slots[index] = 0
        _set_row(state, row, slots)
        discarded = event.row_card_discarded
        discarded.seat = seat
        discarded.row = row_value(row)
        discarded.slot = index + 1
        discarded.card = code
        _to_pile(state, code)
    else:
        target = rows.rightmost(slots) if suit == DIAMONDS else rows.leftmost(slots)
        assert target is not None
        _set_row(state, row, rows.move_card(slots, index, target))
        moved = event.moved
        moved.seat = seat
        moved.row = row_value(row)
        moved.card = code
        moved.from_slot = index + 1
        moved.to_slot = target + 1
    state.effect_done = True
    _check_win(state)
    _after_effect(state)
    return [public(event), *_end_events(state)]


def _reveal(state: TrinityState, seat: int, code: int) -> Emits:
    """TR-4.4: the card is public while it stays in this hand."""
    state.hands[seat].revealed.append(code)
    state.revealed_now = code
    state.effect_done = True
    _after_effect(state)
    event = Event()
    revealed = event.revealed
    revealed.seat = seat
    revealed.card = code
    return [public(event)]


def _skip(state: TrinityState, seat: int) -> Emits:
    """TR-4.7: a 10 or an A leaves out one of its two effects."""
    if state.step == SUIT_EFFECT:
        part = TRINITY_PART_SUIT_EFFECT
        state.step = SWAP
    else:
        part = TRINITY_PART_SWAP
        state.step = DISCARD
    event = Event()
    skipped = event.skipped
    skipped.seat = seat
    skipped.part = part
    return [public(event)]


def _swap(state: TrinityState, seat: int, own: int, other_row: int, other: int) -> Emits:
    """TR-4.5 / TR-4.6: exchange two board cards."""
    own_row = row_of_seat(state, seat)
    a, b = SLOTS * own_row + own, SLOTS * other_row + other
    board = state.board
    own_card, other_card = board[a], board[b]
    board[a], board[b] = other_card, own_card
    event = Event()
    swapped = event.swapped
    swapped.seat = seat
    swapped.own_row = row_value(own_row)
    swapped.own_slot = own + 1
    swapped.own_card = own_card
    swapped.other_row = row_value(other_row)
    swapped.other_slot = other + 1
    swapped.other_card = other_card
    _check_win(state)
    state.step = DISCARD
    return [public(event), *_end_events(state)]


def _give(state: TrinityState, seat: int, code: int) -> Emits:
    """TR-4.8 / TR-4.9: the gift, named only to the giver and the receiver."""
    receiver = gift_receiver(state)
    _take(state, seat, code)
    state.hands[receiver].cards.append(code)
    state.gift_card = code
    state.step = GIFT_DISCARD
    shown = Event()
    gave = shown.gave
    gave.giver = seat
    gave.receiver = receiver
    secret = Event()
    named = secret.gave
    named.giver = seat
    named.receiver = receiver
    named.card = code
    return [Emitted(shown, {seat: secret, receiver: secret})]


def _discard_from_hand(state: TrinityState, seat: int, code: int) -> Emits:
    _take(state, seat, code)
    _to_pile(state, code)
    event = Event()
    discarded = event.discarded
    discarded.seat = seat
    discarded.card = code
    return [public(event), *_end_events(state)]


# --- the end of an action --------------------------------------------------------------------


def _finish_action(state: TrinityState) -> Emits:
    """The acting player draws two (TR-3), then the next player with cards plays (TR-3.5), or
    the game is lost when every hand is empty (TR-5.2)."""
    seat, seats = state.turn, state.seats
    events = draw_cards(state, seat, DRAW)
    state.step = ACTION
    state.action = TRINITY_ACTION_UNSPECIFIED
    state.using_card = 0
    state.effect_done = False
    state.revealed_now = 0
    state.gift_card = 0
    # One pass round the table, the actor last: the first seat holding cards plays; when there
    # is none, every hand is empty.
    hands = state.hands
    skipped: list[int] = []
    for nxt in clockwise_from(left(seat, seats), seats):
        if hands[nxt].cards:
            break
        skipped.append(nxt)
    else:
        state.outcome = TRINITY_OUTCOME_LOST_HANDS_EMPTY
        return events + _end_events(state)
    for other in skipped:
        event = Event()
        event.turn_skipped.seat = other
        events.append(public(event))
    state.turn = nxt
    event = Event()
    event.turn_began.seat = nxt
    events.append(public(event))
    return events


def draw_cards(state: TrinityState, seat: int, count: int) -> Emits:
    """Draw from the deck, never reshuffling the discard pile (TR-3)."""
    cards = draw(state.deck, count)
    if not cards:
        return []
    state.hands[seat].cards.extend(cards)
    return [to_hand("drew", seat, cards)]


def to_hand(kind: str, seat: int, cards: list[int]) -> Emitted[TrinityEvent]:
    """Cards went into `seat`'s hand (`kind`: "dealt" or "drew", events of the same fields):
    everyone is told how many, the seat which (C-4)."""
    shown = Event()
    told = getattr(shown, kind)
    told.seat = seat
    told.count = len(cards)
    mine = Event()
    own = getattr(mine, kind)
    own.seat = seat
    own.count = len(cards)
    own.cards.extend(cards)
    return Emitted(shown, {seat: mine})
