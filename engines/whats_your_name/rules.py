"""Who may act and which moves are allowed: the one check (`violation`) that both
`legal_moves` and `apply` use, and the seats that may act now.

Plays (WN-3.1) and hidden-card choices (WN-7.1) are simultaneous: every seat that has not
chosen yet may act, in any order, and one seat's choice never changes another's options.
Drafting (WN-3.3, WN-3.7) is one seat at a time. The mirror (WN-7.2) may be used out of turn.
"""

from __future__ import annotations

from typing import NamedTuple

from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameMove,
    WhatsYourNameState,
)
from engines.core.errors import MalformedMove
from engines.whats_your_name.cards import RANKS, THIRTEEN, code

Move = WhatsYourNameMove


class Violation(NamedTuple):
    rule_id: str
    message: str


def parse(move: WhatsYourNameMove) -> tuple[str, int]:
    """The move's kind and rank; MalformedMove when it is no move of this game."""
    kind = move.WhichOneof("kind")
    if kind is None:
        raise MalformedMove("kind", "the move has no kind (play, take, hide or use_mirror)")
    if kind == "play":
        rank = move.play.rank
    elif kind == "take":
        rank = move.take.rank
    elif kind == "hide":
        rank = move.hide.rank
    else:
        rank = move.use_mirror.rank
    if not 1 <= rank <= RANKS:
        raise MalformedMove(f"{kind}.rank", f"a rank is 1 to 13, not {rank}")
    return kind, rank


def mirror_usable(state: WhatsYourNameState) -> bool:
    """WN-7.2: the holder may use the mirror while its pile is not empty (it is discarded
    when the pile empties) and it has an acquired card to discard with it."""
    if not state.HasField("mirror_seat") or state.phase == WHATS_YOUR_NAME_PHASE_OVER:
        return False
    pos = state.positions[state.mirror_seat]
    return bool(pos.pile) and bool(pos.acquired)


def violation(state: WhatsYourNameState, seat: int, kind: str, rank: int) -> Violation | None:
    """Why `seat` may not make the move (`kind`, `rank`) now, or None when it may."""
    phase = state.phase
    if phase == WHATS_YOUR_NAME_PHASE_OVER:
        return Violation("C-5", "the game is over")
    if not 0 <= seat < state.seats:
        return Violation("C-5", f"there is no seat {seat}")
    pos = state.positions[seat]
    if kind == "play":
        if phase != WHATS_YOUR_NAME_PHASE_PLAY:
            return Violation("C-5", "cards are played only while a play round waits for plays")
        if pos.HasField("played"):
            return Violation(
                "WN-3.1", "you have already chosen your card this round; it cannot be changed"
            )
        if code(seat, rank) not in pos.hand:
            return Violation("WN-3.1", f"you have no {rank} in your hand")
        return None
    if kind == "take":
        if phase not in (WHATS_YOUR_NAME_PHASE_DRAFT, WHATS_YOUR_NAME_PHASE_FINAL):
            return Violation("C-5", "stage cards are taken only while drafting")
        if not state.draft_order or state.draft_order[0] != seat:
            return Violation("C-5", "it is another seat's turn to take a card")
        if all(card % RANKS + 1 != rank for card in state.stage):
            rule = "WN-3.7" if phase == WHATS_YOUR_NAME_PHASE_FINAL else "WN-3.3"
            return Violation(rule, f"there is no {rank} on the stage")
        return None
    if kind == "hide":
        if not state.options.hidden_card:
            return Violation("WN-7.1", "this game was created without the hidden_card option")
        if phase != WHATS_YOUR_NAME_PHASE_HIDE:
            return Violation("C-5", "hidden cards are chosen only at setup")
        if pos.HasField("hidden"):
            return Violation(
                "WN-7.1", "you have already set your hidden card aside; it cannot be changed"
            )
        if rank == THIRTEEN:
            return Violation("WN-7.1", "a 13 may not be the hidden card")
        if code(seat, rank) not in pos.hand:
            return Violation("WN-7.1", f"you have no {rank} in your hand")
        return None
    # use_mirror
    if not state.options.match:
        return Violation("WN-7.2", "this game was created without the match option")
    if not state.HasField("mirror_seat") or state.mirror_seat != seat:
        return Violation("WN-7.2", "you do not hold the mirror card")
    if not pos.pile:
        return Violation("WN-7.2", "the mirror may only be used while your pile is not empty")
    if all(card % RANKS + 1 != rank for card in pos.acquired):
        return Violation("WN-7.2", f"you have no acquired {rank} to discard with the mirror")
    return None


def candidates(state: WhatsYourNameState, seat: int) -> list[tuple[str, int]]:
    """Every (kind, rank) `seat` might play now, before the check (a superset of the legal
    moves)."""
    phase = state.phase
    if phase == WHATS_YOUR_NAME_PHASE_OVER or not 0 <= seat < state.seats:
        return []
    pos = state.positions[seat]
    found: list[tuple[str, int]] = []
    if phase == WHATS_YOUR_NAME_PHASE_PLAY:
        if not pos.HasField("played"):
            found.extend(("play", c % RANKS + 1) for c in pos.hand)
    elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
        if not pos.HasField("hidden"):
            found.extend(("hide", c % RANKS + 1) for c in pos.hand)
    elif state.draft_order and state.draft_order[0] == seat:
        found.extend(("take", r) for r in sorted({c % RANKS + 1 for c in state.stage}))
    if state.HasField("mirror_seat") and state.mirror_seat == seat:
        found.extend(("use_mirror", c % RANKS + 1) for c in pos.acquired)
    return found


def make_move(kind: str, rank: int) -> WhatsYourNameMove:
    """The move message of (kind, rank)."""
    if kind == "play":
        return Move(play=Move.PlayCard(rank=rank))
    if kind == "take":
        return Move(take=Move.TakeCard(rank=rank))
    if kind == "hide":
        return Move(hide=Move.HideCard(rank=rank))
    return Move(use_mirror=Move.UseMirror(rank=rank))


def active_seats(state: WhatsYourNameState) -> list[int]:
    phase = state.phase
    if phase == WHATS_YOUR_NAME_PHASE_OVER:
        return []
    positions = state.positions
    if phase == WHATS_YOUR_NAME_PHASE_PLAY:
        active = {s for s in range(state.seats) if not positions[s].HasField("played")}
    elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
        active = {s for s in range(state.seats) if not positions[s].HasField("hidden")}
    else:
        active = {state.draft_order[0]} if state.draft_order else set()
    if mirror_usable(state):
        active.add(state.mirror_seat)
    return sorted(active)
