"""Positions built by hand, moves by rank, and small readers for What's Your Name? tests.

Cards are written `c(rank, colour)`; hands and piles are given as ranks of the owner's colour
set (a pile's top card last).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from croupier.engines.core import rng
from croupier.engines.core.engine import Emitted
from croupier.engines.whats_your_name import ENGINE
from croupier.engines.whats_your_name.cards import table_size
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameEvent,
    WhatsYourNameMove,
    WhatsYourNameOptions,
    WhatsYourNameState,
)
from tests.engines import helpers as shared

Move = WhatsYourNameMove
Out = list[Emitted[WhatsYourNameEvent]]


def c(rank: int, colour: int) -> int:
    """The code of card `rank` of colour set `colour`."""
    return colour * 13 + rank - 1


def build(
    seats: int,
    *,
    hands: Sequence[Sequence[int]],
    stage: Sequence[int],
    priority: int = 0,
    piles: Sequence[Sequence[int]] | None = None,
    acquired: Sequence[Sequence[int]] | None = None,
    hidden: dict[int, int] | None = None,
    options: WhatsYourNameOptions | None = None,
    mirror: int | None = None,
    phase: int = WHATS_YOUR_NAME_PHASE_PLAY,
    round_number: int = 1,
    draft_order: Sequence[int] = (),
    totals: Sequence[Sequence[int]] | None = None,
    seed: int = 7,
) -> WhatsYourNameState:
    """A state in the given phase (a play round waiting for every play by default)."""
    state = WhatsYourNameState(
        rng=rng.seeded(seed),
        seats=seats,
        phase=phase,  # type: ignore[arg-type]
        priority_seat=priority,
        round=round_number,
        game_number=1,
        stage=stage,
        draft_order=draft_order,
    )
    if options is not None:
        state.options.CopyFrom(options)
    for p in range(table_size(seats)):
        pos = state.positions.add()
        if p < seats:
            pos.hand.extend(c(r, p) for r in hands[p])
        if piles is not None:
            pos.pile.extend(c(r, p) for r in piles[p])
        if acquired is not None:
            pos.acquired.extend(acquired[p])
        if totals is not None:
            pos.totals.extend(totals[p])
    for seat, rank in (hidden or {}).items():
        state.positions[seat].hidden = c(rank, seat)
    if mirror is not None:
        state.mirror_seat = mirror
    return state


def refused(state: WhatsYourNameState, seat: int, move: WhatsYourNameMove) -> str:
    """Apply a move that must be refused; return its rule id after checking that the state's
    bytes did not change and that legal_moves does not list it."""
    return shared.refused(ENGINE, state, seat, move).rule_id


def all_cards(state: WhatsYourNameState) -> list[int]:
    """Every colour-set card of the game, wherever it lies (WN-1.1 conservation)."""
    cards = list(state.stage) + list(state.discarded)
    for pos in state.positions:
        cards += [*pos.pile, *pos.hand, *pos.acquired]
        if pos.HasField("hidden"):
            cards.append(pos.hidden)
        if pos.HasField("played"):
            cards.append(pos.played)
    return cards


def play(rank: int) -> WhatsYourNameMove:
    return Move(play=Move.PlayCard(rank=rank))


def take(rank: int) -> WhatsYourNameMove:
    return Move(take=Move.TakeCard(rank=rank))


def hide(rank: int) -> WhatsYourNameMove:
    return Move(hide=Move.HideCard(rank=rank))


def mirror(rank: int) -> WhatsYourNameMove:
    return Move(use_mirror=Move.UseMirror(rank=rank))


def apply_all(state: WhatsYourNameState, moves: Iterable[tuple[int, WhatsYourNameMove]]) -> Out:
    """Apply (seat, move) pairs in order; all their events."""
    out: Out = []
    for seat, move in moves:
        out.extend(ENGINE.apply(state, seat, move))
    return out


def ranks(codes: Iterable[int]) -> list[int]:
    return [code % 13 + 1 for code in codes]
