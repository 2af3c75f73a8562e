"""Which moves are legal (OC-3, OC-4, OC-5): the one check `legal_moves` and `apply` share.

A move is first parsed into an `Act` (MalformedMove for what cannot be a move of the game);
`violation` then names the rule that forbids the act now, or returns None: the rules of a
discard or draw are in `turn_violation`, which reads a `Table` taken from the state once.
`turn_candidates` lists every discard or draw worth checking for the seat whose turn it is;
`legal_acts` keeps those without a violation, checking them all against one table.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache, lru_cache
from typing import Final, NamedTuple

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.core.seats import step as seat_step
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import OneCardMove, OneCardState


class Kind(IntEnum):
    PLAY = 1
    DRAW = 2
    CALL = 3
    CATCH = 4


# The kinds as module names: on Python 3.11 reading `Kind.PLAY` costs about ten times a global,
# and the checks compare kinds several times per move.
PLAY: Final = Kind.PLAY
DRAW: Final = Kind.DRAW
CALL: Final = Kind.CALL
CATCH: Final = Kind.CATCH


class Act(NamedTuple):
    """A move in the engine's own terms: card codes instead of card messages."""

    kind: Kind
    cards: tuple[int, ...] = ()
    color: int = 0
    call: bool = False
    target: int = -1


DRAW_ACT: Final = Act(DRAW)
CALL_ACT: Final = Act(CALL)


# ---------------------------------------------------------------- parsing


def parse_move(move: OneCardMove, seats: int) -> Act:
    """The act a move message asks for; MalformedMove when it cannot be a move of the game."""
    kind = move.WhichOneof("kind")
    if kind == "play":
        return _parse_play(move.SerializeToString())
    if kind == "draw":
        return DRAW_ACT
    if kind == "call_one_card":
        return CALL_ACT
    if kind == "catch":
        target = move.catch.seat
        if not 0 <= target < seats:
            raise MalformedMove("catch.seat", f"there is no seat {target}")
        return Act(CATCH, target=target)
    raise MalformedMove("kind", "a move must be a play, draw, call_one_card or catch")


@lru_cache(maxsize=4096)
def _parse_play(data: bytes) -> Act:
    """A discard's act, cached by the move's bytes (a listing's moves come back as they were
    sent; bounded, since unknown fields could make endless distinct bytes). The whole move is
    the key: serializing it costs less than reaching its `play` first."""
    play = OneCardMove.FromString(data).play
    cards = play.cards[:]  # a slice to loop over (engines/README.md)
    if not 1 <= len(cards) <= 2:
        raise MalformedMove("play.cards", "a discard is one card, or two to answer a Quatran")
    codes = tuple(c.from_message(card, "play.cards") for card in cards)
    color = int(play.color)
    if color != 0 and color not in c.COLORS:
        raise MalformedMove("play.color", "unknown colour")
    names_colour = len(codes) == 1 and c.is_wild(codes[0])
    if names_colour and color == 0:
        raise MalformedMove("play.color", "a Rainbow or Quatran names a colour")
    if not names_colour and color != 0:
        raise MalformedMove("play.color", "only a Rainbow or Quatran names a colour")
    return Act(PLAY, codes, color, play.call_one_card)


def to_move(act: Act) -> OneCardMove:
    return OneCardMove.FromString(_move_bytes(act))


@cache
def _move_bytes(act: Act) -> bytes:
    return _build_move(act).SerializeToString(deterministic=True)


def _build_move(act: Act) -> OneCardMove:
    if act.kind == PLAY:
        return OneCardMove(
            play=OneCardMove.Play(
                cards=c.to_messages(act.cards),
                color=act.color,  # type: ignore[arg-type]
                call_one_card=act.call,
            )
        )
    if act.kind == DRAW:
        return OneCardMove(draw=OneCardMove.Draw())
    if act.kind == CALL:
        return OneCardMove(call_one_card=OneCardMove.CallOneCard())
    return OneCardMove(catch=OneCardMove.Catch(seat=act.target))


# ---------------------------------------------------------------- facts about the table


def top_card(state: OneCardState) -> int:
    return state.discard_pile[-1]


def active_color(state: OneCardState) -> int:
    """OC-3.4, see `colour_on`."""
    return colour_on(top_card(state), state.named_color)


def colour_on(top: int, named: int) -> int:
    """OC-3.4: the top card's colour, or the colour named by the Rainbow/Quatran on top."""
    return named if c.is_wild(top) else c.COLOR[top]


def nothing_to_draw(state: OneCardState) -> bool:
    """OC-3.3: both piles are exhausted (the discard pile is down to its top card)."""
    return not state.draw_pile and len(state.discard_pile) <= 1


def next_seat(state: OneCardState, seat: int) -> int:
    return seat_step(seat, state.seats, -1 if state.counter_clockwise else 1)


# ---------------------------------------------------------------- the rules of a discard


class Matching(NamedTuple):
    """The matching rule (OC-3.1, OC-4) for one top card, active colour and attack state."""

    rule: tuple[Violation | None, ...]  # by card code: the rule that forbids it, None if allowed
    playable: frozenset[int]  # the codes whose rule is None


class Table:
    """What the checks read from the state for one seat, taken once per check or listing: the
    rules below then read plain values, since each protobuf field read costs about as much as a
    function call and a listing checks several acts. (A slotted class with its own `__init__`:
    made about twice per move, quicker than a NamedTuple, and compiled whole by mypyc, where a
    dataclass's generated `__init__` stays interpreted.)"""

    __slots__ = ("hand", "matching", "quatran")

    def __init__(self, hand: list[int], matching: Matching, quatran: int) -> None:
        self.hand = hand
        self.matching = matching  # the matching rule on the current top (OC-3.1, OC-3.4, OC-4)
        self.quatran = quatran  # the colour a pending Quatran asks for (OC-4.7), 0 when none


def table_of(state: OneCardState, seat: int) -> Table:
    named = state.named_color
    return Table(
        state.hands[seat].cards[:],  # a slice is a plain list, and quicker to make than list()
        matching_of(state),
        named if state.quatran_pending else 0,
    )


def matching_of(state: OneCardState) -> Matching:
    """The matching rule on the current top card (OC-3.1, OC-3.4, OC-4)."""
    top = state.discard_pile[-1]
    return _matching(top, colour_on(top, state.named_color), state.pending_attack > 0)


@cache
def _matching(top: int, colour: int, attacking: bool) -> Matching:
    """Computed once per combination (54 x 5 x 2 at most), so that a check looks a card up."""
    rule = tuple(_card_rule(top, colour, attacking, code) for code in range(c.CODE_COUNT))
    return Matching(rule, frozenset(code for code, found in enumerate(rule) if found is None))


_ONLY_ON_COLOUR_OR_TYPE: Final = {
    c.PLUS_TWO: "OC-4.1",
    c.PLUS_THREE: "OC-4.2",
    c.JUMP: "OC-4.4",
    c.U_TURN: "OC-4.5",
}


def _card_rule(top: int, colour: int, attacking: bool, code: int) -> Violation | None:
    """The matching rule, a pure function of the top card, the active colour (OC-3.4), whether
    an attack is pending, and the card."""
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
    return not t.matching.playable.isdisjoint(t.hand)


def can_discard(state: OneCardState, seat: int) -> bool:
    """`discard_possible` for `seat`, asked after most moves (C-6): outside a Quatran it needs
    only the matching rule and the hand, which it reads in place instead of taking a table."""
    if state.quatran_pending:
        return discard_possible(table_of(state, seat))
    return not matching_of(state).playable.isdisjoint(state.hands[seat].cards)


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
        found = t.matching.rule[act.cards[0]]
        if found is not None:
            return found
    if act.call and len(t.hand) - len(act.cards) != 1:
        return Violation("OC-5.1", "call One Card only with a discard that leaves one card")
    return None


def violation(state: OneCardState, seat: int, act: Act) -> Violation | None:
    """The rule that forbids `act` by `seat` now, or None when it is legal."""
    if state.over:
        return Violation("C-5", "the match is over")
    if act.kind == CATCH:
        if not state.HasField("catchable_seat") or state.catchable_seat != act.target:
            return Violation("OC-5.2", f"seat {act.target} cannot be caught: nothing to catch")
        if act.target == seat:
            return Violation("OC-5.2", "you cannot catch yourself")
        return None
    if act.kind == CALL:
        if not state.HasField("catchable_seat") or state.catchable_seat != seat:
            return Violation("OC-5.1", "you have no One Card call to make now")
        return None
    if seat != state.current_seat:
        return Violation("C-5", f"it is seat {state.current_seat}'s turn")
    return turn_violation(state, table_of(state, seat), act)


def turn_violation(state: OneCardState, t: Table, act: Act) -> Violation | None:
    """The rules of a discard or a draw (`act`) by the seat whose turn it is, in a match that is
    not over (`violation` has checked both); `t` is that seat's table."""
    if act.kind == PLAY:
        return _play_violation(t, act)
    if must_answer_quatran(t):
        return Violation(
            "OC-4.7", "you hold two number cards of the Quatran's colour: discard them"
        )
    if nothing_to_draw(state) and discard_possible(t):
        return Violation("OC-3.5", "nothing can be drawn: you must discard")
    return None


# ---------------------------------------------------------------- candidate moves


def _single_plays(code: int, *, calling: bool) -> tuple[Act, ...]:
    """The discards of one card in listing order: once per colour a Rainbow or Quatran may
    name, each followed by the same discard with a "One Card" call when `calling`."""
    acts: list[Act] = []
    for color in c.COLORS if c.is_wild(code) else (0,):
        acts.append(Act(PLAY, (code,), color))
        if calling:
            acts.append(Act(PLAY, (code,), color, call=True))
    return tuple(acts)


# By card code. Acts are immutable values, so listings share these instead of building new ones.
_PLAYS: Final = tuple(_single_plays(code, calling=False) for code in range(c.CODE_COUNT))
_PLAYS_CALLING: Final = tuple(_single_plays(code, calling=True) for code in range(c.CODE_COUNT))


def turn_candidates(t: Table) -> list[Act]:
    """Every discard or draw worth checking for the seat whose turn it is (a superset of the
    legal ones)."""
    acts: list[Act] = []
    if t.quatran:
        numbers = sorted(set(quatran_numbers(t)))
        leaves_one = len(t.hand) == 3
        for a in numbers:
            for b in numbers:
                acts.append(Act(PLAY, (a, b)))
                if leaves_one:
                    acts.append(Act(PLAY, (a, b), call=True))
    else:
        plays = _PLAYS_CALLING if len(t.hand) == 2 else _PLAYS
        # only cards the matching rule accepts (turn_violation() still checks each act)
        for code in sorted(t.matching.playable.intersection(t.hand)):
            acts += plays[code]
    acts.append(DRAW_ACT)
    return acts


def legal_acts(state: OneCardState, seat: int) -> list[Act]:
    if state.over or not 0 <= seat < state.seats:
        return []
    acts: list[Act] = []
    if seat == state.current_seat:
        # The match is on and it is this seat's turn, which is all `violation` checks before
        # `turn_violation`: so every candidate is checked against one table.
        t = table_of(state, seat)
        acts = [act for act in turn_candidates(t) if turn_violation(state, t, act) is None]
    if state.HasField("catchable_seat"):
        held = state.catchable_seat
        act = CALL_ACT if seat == held else Act(CATCH, target=held)
        if violation(state, seat, act) is None:
            acts.append(act)
    return acts


def legal_moves(state: OneCardState, seat: int) -> list[OneCardMove]:
    """Every move `seat` may make now, as messages."""
    parse = OneCardMove.FromString  # `to_move`, inlined: a listing makes several
    return [parse(_move_bytes(act)) for act in legal_acts(state, seat)]


def active_seats(state: OneCardState) -> list[int]:
    if state.over:
        return []
    if state.HasField("catchable_seat"):
        # Every other seat may catch and the seat itself may call (OC-5), so all may act.
        return list(range(state.seats))
    return [state.current_seat]
