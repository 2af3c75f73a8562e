"""Which moves are legal (OC-3, OC-4, OC-5): the one check `legal_moves` and `apply` share.

A move is first parsed into an `Act` (MalformedMove for what cannot be a move of the game);
`violation` then names the rule that forbids the act now, or returns None. `candidates` lists
every act worth checking for a seat; `legal_moves` keeps those without a violation.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache, lru_cache
from typing import NamedTuple

from croupier.v1.one_card_pb2 import OneCardMove, OneCardState
from engines.core.errors import MalformedMove
from engines.core.seats import step as seat_step
from engines.one_card import cards as c


class Kind(IntEnum):
    PLAY = 1
    DRAW = 2
    CALL = 3
    CATCH = 4


class Act(NamedTuple):
    """A move in the engine's own terms: card codes instead of card messages."""

    kind: Kind
    cards: tuple[int, ...] = ()
    color: int = 0
    call: bool = False
    target: int = -1


@dataclass(frozen=True, slots=True)
class Violation:
    rule_id: str
    message: str


DRAW_ACT = Act(Kind.DRAW)
CALL_ACT = Act(Kind.CALL)


# ---------------------------------------------------------------- parsing


def parse_move(move: OneCardMove, seats: int) -> Act:
    """The act a move message asks for; MalformedMove when it cannot be a move of the game."""
    kind = move.WhichOneof("kind")
    if kind == "play":
        return _parse_play(move.play.SerializeToString(deterministic=True))
    if kind == "draw":
        return DRAW_ACT
    if kind == "call_one_card":
        return CALL_ACT
    if kind == "catch":
        target = move.catch.seat
        if not 0 <= target < seats:
            raise MalformedMove("catch.seat", f"there is no seat {target}")
        return Act(Kind.CATCH, target=target)
    raise MalformedMove("kind", "a move must be a play, draw, call_one_card or catch")


@lru_cache(maxsize=4096)
def _parse_play(data: bytes) -> Act:
    """A discard's act, cached by the message's bytes (a listing's moves come back as they
    were sent; bounded, since unknown fields could make endless distinct bytes)."""
    play = OneCardMove.Play.FromString(data)
    if not 1 <= len(play.cards) <= 2:
        raise MalformedMove("play.cards", "a discard is one card, or two to answer a Quatran")
    codes = tuple(c.from_message(card, "play.cards") for card in play.cards)
    color = int(play.color)
    if color not in (0, *c.COLORS):
        raise MalformedMove("play.color", "unknown colour")
    names_colour = len(codes) == 1 and c.is_wild(codes[0])
    if names_colour and color == 0:
        raise MalformedMove("play.color", "a Rainbow or Quatran names a colour")
    if not names_colour and color != 0:
        raise MalformedMove("play.color", "only a Rainbow or Quatran names a colour")
    return Act(Kind.PLAY, codes, color, play.call_one_card)


def to_move(act: Act) -> OneCardMove:
    return OneCardMove.FromString(_move_bytes(act))


@cache
def _move_bytes(act: Act) -> bytes:
    return _build_move(act).SerializeToString(deterministic=True)


def _build_move(act: Act) -> OneCardMove:
    if act.kind == Kind.PLAY:
        return OneCardMove(
            play=OneCardMove.Play(
                cards=c.to_messages(act.cards),
                color=act.color,  # type: ignore[arg-type]
                call_one_card=act.call,
            )
        )
    if act.kind == Kind.DRAW:
        return OneCardMove(draw=OneCardMove.Draw())
    if act.kind == Kind.CALL:
        return OneCardMove(call_one_card=OneCardMove.CallOneCard())
    return OneCardMove(catch=OneCardMove.Catch(seat=act.target))


# ---------------------------------------------------------------- facts about the table


def top_card(state: OneCardState) -> int:
    return state.discard_pile[-1]


def active_color(state: OneCardState) -> int:
    """OC-3.4: the top card's colour, or the colour named by the Rainbow/Quatran on top."""
    top = top_card(state)
    return int(state.named_color) if c.is_wild(top) else c.COLOR[top]


def nothing_to_draw(state: OneCardState) -> bool:
    """OC-3.3: both piles are exhausted (the discard pile is down to its top card)."""
    return not state.draw_pile and len(state.discard_pile) <= 1


def next_seat(state: OneCardState, seat: int) -> int:
    return seat_step(seat, state.seats, -1 if state.counter_clockwise else 1)


# ---------------------------------------------------------------- the rules of a discard


class Table(NamedTuple):
    """What the checks read from the state for one seat, taken once per check or listing."""

    hand: list[int]
    top: int
    colour: int  # the active colour (OC-3.4)
    attacking: bool  # an attack is pending (OC-4.3)
    quatran: int  # the colour a pending Quatran asks for (OC-4.7), 0 when none


def table_of(state: OneCardState, seat: int) -> Table:
    top = state.discard_pile[-1]
    named = int(state.named_color)
    return Table(
        hand=list(state.hands[seat].cards),
        top=top,
        colour=named if c.is_wild(top) else c.COLOR[top],
        attacking=state.pending_attack > 0,
        quatran=named if state.quatran_pending else 0,
    )


def card_violation(state: OneCardState, code: int) -> Violation | None:
    """Whether one card may be discarded on the current top (OC-3.1, OC-4), whoever holds it."""
    return _card_rule(top_card(state), active_color(state), state.pending_attack > 0, code)


def playable(state: OneCardState) -> frozenset[int]:
    """Every card code that `card_violation` accepts now."""
    return _playable(top_card(state), active_color(state), state.pending_attack > 0)


@cache
def _playable(top: int, colour: int, attacking: bool) -> frozenset[int]:
    return frozenset(
        code for code in range(c.CODE_COUNT) if _card_rule(top, colour, attacking, code) is None
    )


_ONLY_ON_COLOUR_OR_TYPE = {
    c.PLUS_TWO: "OC-4.1",
    c.PLUS_THREE: "OC-4.2",
    c.JUMP: "OC-4.4",
    c.U_TURN: "OC-4.5",
}


@cache
def _card_rule(top: int, colour: int, attacking: bool, code: int) -> Violation | None:
    """The matching rule, a pure function of the top card, the active colour (OC-3.4), whether
    an attack is pending, and the card (cached: 54 x 54 x 5 x 2 cases at most)."""
    card_type = c.TYPE[code]
    if attacking:
        # OC-4.3: facing an attack, only an attack card of the top's colour or effect.
        if card_type not in c.ATTACK_VALUE:
            return Violation("OC-4.3", "facing an attack you may only defend with a +2 or +3")
        if c.COLOR[code] != c.COLOR[top] and card_type != c.TYPE[top]:
            return Violation(
                "OC-4.3", "a defence must have the attack card's colour or the same effect"
            )
        return None
    if card_type in c.WILD_TYPES:
        return None  # OC-4.6, OC-4.7: on any card outside an attack
    same_colour = c.COLOR[code] == colour
    if card_type == c.NUMBER:
        if same_colour or c.NUM[code] == c.NUM[top]:
            return None
        return Violation("OC-3.1", "a number card must match the colour or the number on top")
    if same_colour or card_type == c.TYPE[top]:
        return None
    return Violation(
        _ONLY_ON_COLOUR_OR_TYPE[card_type],
        "this card goes only on its colour or on the same card type",
    )


def quatran_numbers(t: Table) -> list[int]:
    """The number cards of the Quatran's colour in the hand (OC-4.7)."""
    return [code for code in t.hand if c.TYPE[code] == c.NUMBER and c.COLOR[code] == t.quatran]


def must_answer_quatran(t: Table) -> bool:
    """OC-4.7: facing a Quatran and holding two numbers of its colour."""
    return t.quatran != 0 and len(quatran_numbers(t)) >= 2


def discard_possible(t: Table) -> bool:
    """Whether the hand holds any discard that is legal now."""
    if t.quatran:
        return must_answer_quatran(t)
    return not _playable(t.top, t.colour, t.attacking).isdisjoint(t.hand)


def can_discard(state: OneCardState, seat: int) -> bool:
    return discard_possible(table_of(state, seat))


def _holds(hand: list[int], codes: tuple[int, ...]) -> bool:
    if len(codes) == 1:
        return codes[0] in hand
    return all(hand.count(code) >= codes.count(code) for code in codes)


def _play_violation(t: Table, act: Act) -> Violation | None:
    if not _holds(t.hand, act.cards):
        return Violation("OC-3.1", "you do not hold that card")
    if t.quatran:
        colour = c.COLOR_NAMES[t.quatran]
        if len(act.cards) != 2:
            return Violation("OC-4.7", f"answer the Quatran with two {colour} number cards at once")
        if any(c.TYPE[code] != c.NUMBER or c.COLOR[code] != t.quatran for code in act.cards):
            return Violation("OC-4.7", f"the Quatran asks for two {colour} number cards")
    else:
        if len(act.cards) != 1:
            return Violation("OC-4.7", "two cards at once only answer a Quatran")
        found = _card_rule(t.top, t.colour, t.attacking, act.cards[0])
        if found is not None:
            return found
    if act.call and len(t.hand) - len(act.cards) != 1:
        return Violation("OC-5.1", "call One Card only with a discard that leaves one card")
    return None


def violation(
    state: OneCardState, seat: int, act: Act, table: Table | None = None
) -> Violation | None:
    """The rule that forbids `act` by `seat` now, or None when it is legal.

    `table` is `table_of(state, seat)` when the caller already has it (a listing checks many
    acts against the same state)."""
    if state.over:
        return Violation("C-5", "the match is over")
    if act.kind == Kind.CATCH:
        if not state.HasField("catchable_seat") or state.catchable_seat != act.target:
            return Violation("OC-5.2", f"seat {act.target} cannot be caught: nothing to catch")
        if act.target == seat:
            return Violation("OC-5.2", "you cannot catch yourself")
        return None
    if act.kind == Kind.CALL:
        if not state.HasField("catchable_seat") or state.catchable_seat != seat:
            return Violation("OC-5.1", "you have no One Card call to make now")
        return None
    if seat != state.current_seat:
        return Violation("C-5", f"it is seat {state.current_seat}'s turn")
    t = table if table is not None else table_of(state, seat)
    if act.kind == Kind.PLAY:
        return _play_violation(t, act)
    if must_answer_quatran(t):
        return Violation(
            "OC-4.7", "you hold two number cards of the Quatran's colour: discard them"
        )
    if nothing_to_draw(state) and discard_possible(t):
        return Violation("OC-3.5", "nothing can be drawn: you must discard")
    return None


# ---------------------------------------------------------------- candidate moves


def candidates(state: OneCardState, seat: int, t: Table) -> list[Act]:
    """Every act worth checking for `seat` (a superset of the legal ones)."""
    if state.over:
        return []
    acts: list[Act] = []
    if seat == state.current_seat:
        if t.quatran:
            numbers = sorted(set(quatran_numbers(t)))
            leaves_one = len(t.hand) == 3
            for a in numbers:
                for b in numbers:
                    acts.append(Act(Kind.PLAY, (a, b)))
                    if leaves_one:
                        acts.append(Act(Kind.PLAY, (a, b), call=True))
        else:
            leaves_one = len(t.hand) == 2
            # only cards the matching rule accepts (violation() still checks each act)
            for code in sorted(_playable(t.top, t.colour, t.attacking).intersection(t.hand)):
                for color in c.COLORS if c.is_wild(code) else (0,):
                    acts.append(Act(Kind.PLAY, (code,), color))
                    if leaves_one:
                        acts.append(Act(Kind.PLAY, (code,), color, call=True))
        acts.append(DRAW_ACT)
    if state.HasField("catchable_seat"):
        held = state.catchable_seat
        acts.append(CALL_ACT if seat == held else Act(Kind.CATCH, target=held))
    return acts


def legal_acts(state: OneCardState, seat: int) -> list[Act]:
    if state.over or not 0 <= seat < state.seats:
        return []
    if seat != state.current_seat and not state.HasField("catchable_seat"):
        return []  # not this seat's turn and nothing to call or catch: no candidates at all
    t = table_of(state, seat)
    return [act for act in candidates(state, seat, t) if violation(state, seat, act, t) is None]
