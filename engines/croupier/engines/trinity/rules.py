"""Which moves are legal now (TR-3 a turn, TR-4 card effects): the one statement of Trinity's
rules (`violation`).

`violation(state, seat, move)` names the rule a move breaks, or returns None; `legal_moves`
filters the candidates with the same check and `apply` raises with it. Whether a Use may start
(TR-3.4: the whole action must be possible) asks the very same per-target checks the later
steps use, so a player never enters a step they cannot complete.

A move is checked as a `Choice` (its kind and up to three numbers, as in the proto) against a
`Position` (the facts of the state that the rules read, taken once), so that listing the legal
moves builds only the messages that pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.core.seats import left, right
from croupier.engines.trinity.board import ROWS, SLOTS, leftmost, rightmost
from croupier.engines.trinity.cards import (
    ACE,
    BW_JOKER,
    CLUBS,
    COLOUR_JOKER,
    DIAMONDS,
    HEARTS,
    NO_CARD,
    SPADES,
    TEN,
    name,
    rank_of,
    suit_of,
)
from croupier.v1.trinity_pb2 import (
    TRINITY_ACTION_UNSPECIFIED,
    TrinityAction,
    TrinityMove,
    TrinityOutcome,
    TrinityRow,
    TrinityState,
    TrinityStep,
)

Move = TrinityMove
ONGOING: Final = TrinityOutcome.TRINITY_OUTCOME_UNSPECIFIED
# The steps as plain ints (reading the enum wrapper's attributes is slow in a hot loop).
ACTION: Final = TrinityStep.TRINITY_STEP_ACTION
SUIT_EFFECT: Final = TrinityStep.TRINITY_STEP_SUIT_EFFECT
SWAP: Final = TrinityStep.TRINITY_STEP_SWAP
DISCARD: Final = TrinityStep.TRINITY_STEP_DISCARD
GIFT: Final = TrinityStep.TRINITY_STEP_GIFT
GIFT_DISCARD: Final = TrinityStep.TRINITY_STEP_GIFT_DISCARD

SUIT_RULES: Final = {DIAMONDS: "TR-4.1", HEARTS: "TR-4.2", CLUBS: "TR-4.3", SPADES: "TR-4.4"}
ACTION_RULES: dict[int, str] = {
    TrinityAction.TRINITY_ACTION_PLACE: "TR-3.1",
    TrinityAction.TRINITY_ACTION_USE: "TR-3.2",
    TrinityAction.TRINITY_ACTION_PASS: "TR-3.3",
}
START_RULES: Final = {"place": "TR-3.1", "use": "TR-3.2", "discard_two": "TR-3.3"}
CARD_KINDS: Final = frozenset({"place", "use", "discard_two", "reveal", "discard", "give"})
STEP_KINDS: dict[int, tuple[frozenset[str], str]] = {
    ACTION: (
        frozenset({"place", "use", "discard_two"}),
        "choose an action first: place, use or discard_two",
    ),
    SUIT_EFFECT: (
        frozenset({"target_slot", "reveal", "skip"}),
        "choose the suit effect's target (or skip it) first",
    ),
    SWAP: (frozenset({"swap", "skip"}), "choose the swap (or skip it) first"),
    DISCARD: (frozenset({"discard"}), "discard one hand card to end the action"),
    GIFT: (frozenset({"give"}), "give one hand card with the joker first"),
    GIFT_DISCARD: (frozenset({"discard"}), "the joker's receiver must discard one hand card"),
}

_BOARD_STEPS: Final = (ACTION, SUIT_EFFECT, SWAP)
_REVEAL_STEPS: Final = (ACTION, SUIT_EFFECT)

# A move as its kind and numbers: a card (card kinds), a slot 1..4 (target_slot), or own slot,
# other row 1..3 and other slot (swap); unused numbers are 0.
Choice = tuple[str, int, int, int]


# --- seats and rows --------------------------------------------------------------------------


def row_of_seat(state: TrinityState, seat: int) -> int:
    """The row index (0 J, 1 Q, 2 K) a seat owns (TR-2.2)."""
    return (seat - state.j_seat) % ROWS


def seat_of_row(state: TrinityState, row: int) -> int:
    return (state.j_seat + row) % ROWS


def row_value(row: int) -> TrinityRow.ValueType:
    """The proto enum value of row index `row` (0 J, 1 Q, 2 K)."""
    return TrinityRow.ValueType(row + 1)


def gift_receiver(state: TrinityState) -> int:
    """The colour joker gives to the right, the black-and-white joker to the left (TR-4.8/9;
    C-1: right is the previous seat, left the next)."""
    if state.using_card == COLOUR_JOKER:
        return right(state.turn, state.seats)
    return left(state.turn, state.seats)


def active_seat(state: TrinityState) -> int | None:
    """The one seat that may act now (the joker's receiver during its discard), or None once
    the game is over."""
    if state.outcome != ONGOING:
        return None
    if state.step == GIFT_DISCARD:
        return gift_receiver(state)
    return state.turn


def has_special(code: int) -> bool:
    """A 10 or an A: a swap besides the suit effect (TR-4.5, TR-4.6)."""
    return rank_of(code) in (TEN, ACE)


# --- moves as choices ------------------------------------------------------------------------


def decode(move: TrinityMove) -> Choice:
    """The move as a Choice; raises MalformedMove for anything that is not a Trinity move."""
    kind = move.WhichOneof("kind")
    if kind is None:
        raise MalformedMove("kind", "no move given: set one of the move kinds")
    if kind in CARD_KINDS:
        code = getattr(move, kind).card
        if not 1 <= code <= BW_JOKER:
            raise MalformedMove(f"{kind}.card", f"{code} is not a card code (1..54)")
        return (kind, code, 0, 0)
    if kind == "target_slot":
        if not 1 <= move.target_slot.slot <= SLOTS:
            raise MalformedMove("target_slot.slot", "a slot is numbered 1..4")
        return (kind, move.target_slot.slot, 0, 0)
    if kind == "swap":
        swap = move.swap
        if not 1 <= swap.own_slot <= SLOTS:
            raise MalformedMove("swap.own_slot", "a slot is numbered 1..4")
        if not 1 <= swap.other_row <= ROWS:
            raise MalformedMove("swap.other_row", "the row must be J, Q or K")
        if not 1 <= swap.other_slot <= SLOTS:
            raise MalformedMove("swap.other_slot", "a slot is numbered 1..4")
        return (kind, swap.own_slot, swap.other_row, swap.other_slot)
    return (kind, 0, 0, 0)


def _build(choice: Choice) -> TrinityMove:
    """The message of a Choice, field by field (only for `_WIRE` below)."""
    kind, a, b, c = choice
    move = Move()
    if kind == "target_slot":
        move.target_slot.slot = a
    elif kind == "skip":
        move.skip.SetInParent()
    elif kind == "swap":
        move.swap.own_slot = a
        move.swap.other_row = row_value(b - 1)
        move.swap.other_slot = c
    else:
        getattr(move, kind).card = a
    return move


# Every well-formed Choice in wire form. Parsing these few bytes builds a listed move faster
# than setting its fields one by one from Python, and a parsed copy is a fresh message that the
# caller may change freely.
_WIRE: dict[Choice, bytes] = {
    choice: _build(choice).SerializeToString()
    for choice in (
        *((kind, code, 0, 0) for kind in sorted(CARD_KINDS) for code in range(1, BW_JOKER + 1)),
        *(("target_slot", slot, 0, 0) for slot in range(1, SLOTS + 1)),
        *(
            ("swap", own, row, other)
            for own in range(1, SLOTS + 1)
            for row in range(1, ROWS + 1)
            for other in range(1, SLOTS + 1)
        ),
        ("skip", 0, 0, 0),
    )
}
_parse_move = Move.FromString


_NO_KINDS: frozenset[str] = frozenset()


class Position:
    """The facts of a state the rules read, for one seat, taken once."""

    __slots__ = (
        "action",
        "actor",
        "board",
        "effect_done",
        "gift_card",
        "hand",
        "kinds",
        "own_row",
        "own_slots",
        "revealed",
        "revealed_now",
        "seat",
        "step",
        "suit_effects",
        "swappable",
        "using",
    )

    def __init__(self, state: TrinityState, seat: int) -> None:
        # Each step's rules read only some facts, and reading a protobuf field costs more than
        # the rest of a check: the facts a step does not read keep neutral values.
        self.seat = seat
        actor = self.actor = active_seat(state)
        step = self.step = state.step
        # The kinds of move the step allows, none for a seat that may not act: the check of
        # every candidate asks this first.
        self.kinds = STEP_KINDS[step][0] if actor == seat else _NO_KINDS
        self.hand: list[int] = []
        self.revealed: list[int] = []
        if actor == seat:
            own = state.hands[seat]
            self.hand = own.cards[:]
            # Only a ♠ reveal, or the look-ahead of using a ♠, asks which cards are revealed.
            if step in _REVEAL_STEPS:
                revealed = own.revealed
                if revealed:
                    self.revealed = revealed[:]
        # Only the action, suit-effect and swap steps look at the board.
        self.own_row = 0
        self.board: list[int] = []
        self.own_slots: list[int] = []
        if step in _BOARD_STEPS:
            own_row = self.own_row = (seat - state.j_seat) % ROWS
            board = self.board = state.board[:]
            self.own_slots = board[SLOTS * own_row : SLOTS * own_row + SLOTS]
        self.action = TRINITY_ACTION_UNSPECIFIED
        self.using = 0
        self.effect_done = False
        self.revealed_now = 0
        self.gift_card = 0
        if step == DISCARD:
            self.action = state.action  # names the rule of a refusal
            self.revealed_now = state.revealed_now
        elif step == GIFT_DISCARD:
            self.gift_card = state.gift_card
        elif step != ACTION:  # the suit effect, the swap and the gift
            self.using = state.using_card
            self.effect_done = state.effect_done
        # The TR-3.4 look-ahead's answers, filled on first use: several hand cards of one suit
        # (or several 10s and As) ask the same question of the same position.
        self.swappable: dict[bool, bool] = {}
        self.suit_effects: dict[int, bool] = {}


# --- per-target checks, shared by the moves and by the TR-3.4 look-ahead ---------------------


_EMPTY_OWN: Final = tuple(f"slot {i + 1} of your row is empty" for i in range(SLOTS))
_EMPTY_OTHER: Final = tuple(f"slot {i + 1} of that row is empty" for i in range(SLOTS))
# The refusals the look-ahead of a ♦ ♥ ♣ effect meets most, built once.
_EMPTY_TARGET: Final = {
    suit: tuple(Violation(rule, text) for text in _EMPTY_OWN) for suit, rule in SUIT_RULES.items()
}
_AT_RIGHTMOST: Final = Violation("TR-4.2", "that card is already in the rightmost occupied slot")
_AT_LEFTMOST: Final = Violation("TR-4.2", "that card is already in the leftmost occupied slot")
# A swap's refusals by `ten` (TR-4.5 for a 10, TR-4.6 for an A), built once: the look-ahead
# tries every pair of occupied slots.
_SWAP_RULES: Final = {True: "TR-4.5", False: "TR-4.6"}
_SWAP_OWN_ROW: Final = {
    ten: Violation(rule, "swap with another player's row, not your own")
    for ten, rule in _SWAP_RULES.items()
}
_SWAP_EMPTY_OWN: Final = {
    ten: tuple(Violation(rule, text) for text in _EMPTY_OWN) for ten, rule in _SWAP_RULES.items()
}
_SWAP_EMPTY_OTHER: Final = {
    ten: tuple(Violation(rule, text) for text in _EMPTY_OTHER) for ten, rule in _SWAP_RULES.items()
}
_SWAP_SLOT_NUMBER: Final = Violation("TR-4.5", "a 10 swaps only slots with the same number")


def slot_target_violation(suit: int, slots: Sequence[int], index: int) -> Violation | None:
    """A ♦ ♥ ♣ effect on the card at `index` of the player's own row."""
    if slots[index] == NO_CARD:
        return _EMPTY_TARGET[suit][index]
    if suit == DIAMONDS and index == rightmost(slots):
        return _AT_RIGHTMOST
    if suit == HEARTS and index == leftmost(slots):
        return _AT_LEFTMOST
    return None


def reveal_violation(hand: Sequence[int], revealed: Sequence[int], code: int) -> Violation | None:
    """A ♠ reveal of `code` from `hand` (the Spade itself already out of it)."""
    if code not in hand:
        return Violation("TR-4.4", f"{name(code)} is not in your hand")
    if code in revealed:
        return Violation("TR-4.4", f"{name(code)} is revealed already")
    if len(hand) < 2:
        return Violation(
            "TR-4.4", "the revealed card must stay in your hand, but you must discard it"
        )
    return None


def swap_violation(
    board: Sequence[int], own_row: int, ten: bool, own: int, other_row: int, other: int
) -> Violation | None:
    """The swap of a 10 (`ten`) or an A between own slot `own` and `other` of `other_row`
    (indexes from 0)."""
    if other_row == own_row:
        return _SWAP_OWN_ROW[ten]
    if board[SLOTS * own_row + own] == NO_CARD:
        return _SWAP_EMPTY_OWN[ten][own]
    if board[SLOTS * other_row + other] == NO_CARD:
        return _SWAP_EMPTY_OTHER[ten][other]
    if ten and own != other:
        return _SWAP_SLOT_NUMBER
    return None


def effect_possible(pos: Position, suit: int, hand: Sequence[int]) -> bool:
    """Whether the suit effect has a valid target (for ♠, `hand` is the hand without the
    Spade; the other suits look at the own row only)."""
    if suit == SPADES:
        revealed = pos.revealed
        for code in hand:  # noqa: SIM110 - a generator costs more than the first check
            if reveal_violation(hand, revealed, code) is None:
                return True
        return False
    known = pos.suit_effects.get(suit)
    if known is None:
        slots = pos.own_slots
        known = False
        for index in range(SLOTS):  # a loop: a generator costs more than these four checks
            if slot_target_violation(suit, slots, index) is None:
                known = True
                break
        pos.suit_effects[suit] = known
    return known


def swap_possible(pos: Position, ten: bool) -> bool:
    """Whether some swap is legal (asked of `swap_violation`; only occupied slots can pass it,
    so only those are tried)."""
    known = pos.swappable.get(ten)
    if known is None:
        board, own_row = pos.board, pos.own_row
        filled = [[i for i in range(SLOTS) if board[SLOTS * r + i]] for r in range(ROWS)]
        known = any(
            swap_violation(board, own_row, ten, own, other_row, other) is None
            for other_row in range(ROWS)
            for own in filled[own_row]
            for other in filled[other_row]
        )
        pos.swappable[ten] = known
    return known


# --- the one predicate -----------------------------------------------------------------------


def violation(state: TrinityState, seat: int, move: TrinityMove) -> Violation | None:
    """The rule `move` by `seat` breaks now, or None when it is legal. Raises MalformedMove
    for a move that is not a Trinity move at all."""
    return check(Position(state, seat), decode(move))


_NEEDS_TWO: Final = Violation("TR-3.4", "this action takes two hand cards and you hold one")


def check(pos: Position, choice: Choice) -> Violation | None:
    """The rule `choice` breaks in `pos`, or None."""
    kind, a, b, c = choice
    if kind not in pos.kinds:  # (none when the seat may not act)
        actor = pos.actor
        if actor is None:
            return Violation("C-5", "the game is over")
        if pos.seat != actor:
            return Violation("C-5", f"seat {pos.seat} may not act now; seat {actor} is to act")
        return Violation(_step_rule(pos, ""), STEP_KINDS[pos.step][1])
    # The card kinds first: listing checks one of them for every hand card.
    if kind in CARD_KINDS:
        hand = pos.hand
        if kind != "reveal" and a not in hand:
            return Violation(_step_rule(pos, kind), f"{name(a)} is not in your hand")
        if kind == "place" or kind == "discard_two":
            return _NEEDS_TWO if len(hand) < 2 else None
        if kind == "use":
            return _use_violation(pos, a)
        if kind == "discard":
            return _discard_violation(pos, a)
        if kind == "reveal":
            suit = suit_of(pos.using)
            if suit != SPADES:
                return Violation(SUIT_RULES[suit], "only a ♠ reveals; choose a slot of your row")
            return reveal_violation(hand, pos.revealed, a)
        return None  # give: any hand card
    if kind == "target_slot":
        suit = suit_of(pos.using)
        if suit == SPADES:
            return Violation("TR-4.4", "a ♠ reveals a hand card: choose it with reveal")
        return slot_target_violation(suit, pos.own_slots, a - 1)
    if kind == "skip":
        return _skip_violation(pos)
    if kind == "swap":
        ten = rank_of(pos.using) == TEN
        return swap_violation(pos.board, pos.own_row, ten, a - 1, b - 1, c - 1)
    return None


def _step_rule(pos: Position, kind: str) -> str:
    """The rule that governs the pending step (for refusals)."""
    step = pos.step
    if step == ACTION:
        return START_RULES.get(kind, "TR-3")
    if step == SUIT_EFFECT:
        return "TR-3.2"
    if step == SWAP:
        return "TR-4.7"
    if step == DISCARD:
        return ACTION_RULES[pos.action]
    if step == GIFT:
        return "TR-4.8" if pos.using == COLOUR_JOKER else "TR-4.9"
    return "TR-4.8"


# TR-3.4's refusals of a Use, by card code, built once: the listing meets one for every hand
# card whose effect has no target.
_NO_TARGET: Final = tuple(
    Violation("TR-3.4", f"the suit effect of {name(code)} has no valid target")
    for code in range(BW_JOKER + 1)
)
_NO_EFFECT_NOR_SWAP: Final = tuple(
    Violation("TR-3.4", f"neither the suit effect nor the swap of {name(code)} can be made")
    for code in range(BW_JOKER + 1)
)


def _use_violation(pos: Position, code: int) -> Violation | None:
    """TR-3.4: the whole action must be possible."""
    if len(pos.hand) < 2:
        what = "a card to give" if code >= COLOUR_JOKER else "another card to discard"
        return Violation("TR-3.4", f"using {name(code)} needs {what}")
    if code >= COLOUR_JOKER:
        return None
    suit = suit_of(code)
    rest = [c for c in pos.hand[:] if c != code] if suit == SPADES else pos.hand
    if effect_possible(pos, suit, rest):
        return None
    if not has_special(code):
        return _NO_TARGET[code]
    if swap_possible(pos, rank_of(code) == TEN):
        return None
    return _NO_EFFECT_NOR_SWAP[code]


def _skip_violation(pos: Position) -> Violation | None:
    """TR-4.7: each part of a 10 or an A is optional, but at least one must be carried out."""
    code = pos.using
    if not has_special(code):
        return Violation("TR-4.7", f"only a 10 or an A may skip a part; {name(code)} may not")
    if pos.step == SUIT_EFFECT:
        if not swap_possible(pos, rank_of(code) == TEN):
            return Violation("TR-4.7", "the swap is impossible, so the suit effect must be made")
        return None
    if not pos.effect_done:
        return Violation("TR-4.7", "the suit effect was skipped, so the swap must be made")
    return None


def _discard_violation(pos: Position, code: int) -> Violation | None:
    if pos.step == DISCARD:
        if code == pos.revealed_now:
            return Violation("TR-4.4", f"{name(code)} was just revealed: it stays in your hand")
        return None
    if code == pos.gift_card and len(pos.hand) > 1:
        return Violation("TR-4.8", "discard a card other than the one you received")
    return None


# --- listing ---------------------------------------------------------------------------------


def candidates(pos: Position) -> list[Choice]:
    """Every choice worth checking in `pos` (a superset of the legal ones)."""
    if pos.actor != pos.seat:
        return []
    hand = pos.hand
    step = pos.step
    if step == ACTION:
        return [(kind, c, 0, 0) for kind in ("place", "use", "discard_two") for c in hand]
    if step == SUIT_EFFECT:
        if suit_of(pos.using) == SPADES:
            return [*(("reveal", c, 0, 0) for c in hand), ("skip", 0, 0, 0)]
        return [*(("target_slot", s, 0, 0) for s in range(1, SLOTS + 1)), ("skip", 0, 0, 0)]
    if step == SWAP:
        # Only swaps between two occupied slots of two rows can pass `swap_violation`: the
        # others, three quarters of the 48, are not worth checking.
        board, own_row = pos.board, pos.own_row
        return [
            *(
                ("swap", own + 1, row + 1, other + 1)
                for own in range(SLOTS)
                if board[SLOTS * own_row + own]
                for row in range(ROWS)
                if row != own_row
                for other in range(SLOTS)
                if board[SLOTS * row + other]
            ),
            ("skip", 0, 0, 0),
        ]
    if step == GIFT:
        return [("give", c, 0, 0) for c in hand]
    return [("discard", c, 0, 0) for c in hand]


def forced_choice(state: TrinityState, seat: int) -> Choice | None:
    """The only legal choice of `seat`, or None when it has none or several (C-6)."""
    pos = Position(state, seat)
    found: Choice | None = None
    for choice in candidates(pos):
        if check(pos, choice) is None:
            if found is not None:
                return None
            found = choice
    return found


def legal_moves(state: TrinityState, seat: int) -> list[TrinityMove]:
    """The candidates that pass the check, as messages parsed from their wire form."""
    pos = Position(state, seat)
    wire = _WIRE
    return [_parse_move(wire[choice]) for choice in candidates(pos) if check(pos, choice) is None]
