"""The one legality check of Vampire Queen, and the candidate moves it filters.

`violation()` is the single statement of what may be played (one predicate, two uses):
`apply` raises with it, `legal_moves` filters candidates with it. Candidates are only narrowed
by how many cards a play must have, for speed; every rule is decided by the check.

- VQ-3.1 the leader plays one vampire, several of one rank (Queens may join), Queens alone, or
  one Hunter; never passes.
- VQ-3.2 the others pass or play as many cards as the leader, one rank, strictly higher than
  the most recent play; VQ-3.3 never a Hunter.
- VQ-5.1 a Hunter is led alone; VQ-5.3 in a hunt the others play exactly one non-Hunter card
  and may not pass; VQ-5.7 a Hunter taken in a hunt is not led by its taker until they have
  led another phase.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.vampire_queen.cards import (
    CARD_CODES,
    CODE_LIMIT,
    HUNTERS,
    QUEEN,
    VAMPIRE_RANKS,
    card_name,
    counts,
    is_hunter,
    play_rank,
    typed,
)
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenState


class Situation(NamedTuple):
    """What the seat to act faces in the current phase. (A named tuple: immutable, and quicker
    to make than a frozen dataclass; every move makes two.)"""

    leading: bool
    hunt: bool
    # Cards per play and the rank to beat, in a normal phase after the lead (VQ-3.2).
    per_play: int
    to_beat: int
    # Hunters the seat to act may not lead yet (VQ-5.7).
    locked: frozenset[int]


_NOTHING_LOCKED: frozenset[int] = frozenset()


def situation(state: VampireQueenState) -> Situation:
    phase = state.phase  # each field read once: a protobuf read costs about a function call
    plays = phase.plays
    count = 0
    to_beat = 0
    for play in reversed(plays):
        cards = play.cards
        if cards:
            # The most recent play is the one to beat (VQ-3.2); in a hunt nothing is beaten.
            count = len(cards)
            # A slice (a list): a loop over the field itself ends in an IndexError raised and
            # caught (engines/README.md).
            to_beat = play_rank(cards[:]) or 0
            break
    locks = state.locks
    locked: frozenset[int]
    if locks:
        turn = state.turn
        locked = frozenset(lock.hunter for lock in locks[:] if lock.seat == turn)
    else:
        locked = _NOTHING_LOCKED
    return Situation(not plays, phase.hunt, count, to_beat, locked)


def move_cards(move: VampireQueenMove) -> list[int] | None:
    """The cards of a well-formed move (ascending), None for a pass; MalformedMove otherwise."""
    kind = move.WhichOneof("kind")
    if kind == "pass_turn":
        return None
    if kind != "play":
        raise MalformedMove("kind", "a move must be a play or a pass")
    cards = [int(card) for card in move.play.cards[:]]
    if not cards:
        raise MalformedMove("play.cards", "a play needs at least one card")
    for card in cards:
        if card not in CARD_CODES:
            raise MalformedMove("play.cards", f"{card} is not a Vampire Queen card")
    cards.sort()
    return cards


def turn_violation(state: VampireQueenState, seat: int) -> Violation | None:
    if state.over:
        return Violation("C-5", "the game is over")
    if seat != state.turn:
        return Violation("C-5", f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return None


def pass_violation(sit: Situation) -> Violation | None:
    if sit.leading:
        return Violation("VQ-3.1", "the leader must play; passing is not allowed")
    if sit.hunt:
        return Violation("VQ-5.3", "no one may pass in a hunt; play exactly one card")
    return None


def play_violation(sit: Situation, held: Sequence[int], cards: Sequence[int]) -> Violation | None:
    """Whether `cards` (ascending, valid codes) may be played by a seat holding `held` (per-code
    counts) in situation `sit`."""
    previous = 0
    for card in cards:
        if card != previous:
            previous = card
            wanted = cards.count(card)
            if wanted > held[card]:
                return Violation("C-5", f"you do not hold {wanted} x {card_name(card)}")
    hunters = [card for card in cards if is_hunter(card)]
    if sit.leading:
        if hunters:
            if len(cards) != 1:
                return Violation("VQ-5.1", "a Hunter is led alone")
            if hunters[0] in sit.locked:
                return Violation(
                    "VQ-5.7",
                    f"{card_name(hunters[0])} was taken in a hunt: lead another phase first",
                )
            return None
        if play_rank(cards) is None:
            return Violation("VQ-3.1", "a lead is cards of one rank (Queens may join)")
        return None
    if sit.hunt:
        if len(cards) != 1:
            return Violation("VQ-5.3", "in a hunt every other player plays exactly one card")
        if hunters:
            return Violation("VQ-5.3", "only the leader may play a Hunter in a hunt")
        return None
    if hunters:
        return Violation("VQ-3.3", "only the leader may play a Hunter")
    if len(cards) != sit.per_play:
        return Violation("VQ-3.2", f"play exactly {sit.per_play} card(s), as the leader did")
    rank = play_rank(cards)
    if rank is None:
        return Violation("VQ-3.2", "a play is cards of one rank (Queens may join)")
    if rank <= sit.to_beat:
        return Violation("VQ-3.2", f"a play must rank higher than {card_name(sit.to_beat)}")
    return None


def candidates(sit: Situation, held: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Card multisets (ascending) worth checking for the seat to act: plays built from its
    hand. For speed they are narrowed to the count and ranks a follower could play; the check
    alone decides what is legal."""
    queens = held[QUEEN]
    if sit.leading:
        for rank in VAMPIRE_RANKS:
            for same in range(1, held[rank] + 1):
                for extra in range(queens + 1):
                    yield (rank,) * same + (QUEEN,) * extra
        for extra in range(1, queens + 1):
            yield (QUEEN,) * extra
        for hunter in HUNTERS:
            if held[hunter]:
                yield (hunter,)
    elif sit.hunt:
        for card in range(1, CODE_LIMIT):
            if held[card]:
                yield (card,)
    else:
        need = sit.per_play
        for rank in range(sit.to_beat + 1, QUEEN):
            for same in range(max(1, need - queens), min(held[rank], need) + 1):
                yield (rank,) * same + (QUEEN,) * (need - same)
        if queens >= need:
            yield (QUEEN,) * need


def violation(state: VampireQueenState, seat: int, cards: Sequence[int] | None) -> Violation | None:
    """The single check: what forbids `seat` to play `cards` (ascending) now, or to pass (None)."""
    found = turn_violation(state, seat)
    if found is not None:
        return found
    sit = situation(state)
    if cards is None:
        return pass_violation(sit)
    return play_violation(sit, counts(state.hands[seat].cards[:]), cards)


def legal_moves(state: VampireQueenState, seat: int) -> list[VampireQueenMove]:
    """Every move `seat` may make now: the candidates the check accepts."""
    if turn_violation(state, seat) is not None:
        return []
    sit = situation(state)
    held = counts(state.hands[seat].cards[:])
    moves: list[VampireQueenMove] = []
    if pass_violation(sit) is None:
        move = VampireQueenMove()
        move.pass_turn.SetInParent()  # quicker than nested constructors
        moves.append(move)
    for cards in candidates(sit, held):
        if play_violation(sit, held, cards) is None:
            move = VampireQueenMove()
            move.play.cards.extend(typed(cards))  # four times faster than nested constructors
            moves.append(move)
    return moves
