"""Who may act and which moves are allowed: the one check (`check`, on the `SeatFacts` of a
state, or `violation` on the state itself) that both `legal_moves` and `apply` use, and the
seats that may act now. Listing reads the facts once and checks every candidate against them.

Plays (WN-3.1) and hidden-card choices (WN-7.1) are simultaneous: every seat that has not
chosen yet may act, in any order, and one seat's choice never changes another's options.
Drafting (WN-3.3, WN-3.7) is one seat at a time. The mirror (WN-7.2) may be used out of turn.
"""

from __future__ import annotations

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.whats_your_name.cards import RANKS, THIRTEEN, code
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameMove,
    WhatsYourNameState,
)

Move = WhatsYourNameMove


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


class SeatFacts:
    """The facts of a state the rules read, for one seat, taken once: `legal_moves` checks
    several candidates against them, and reading a protobuf field costs more than a list."""

    __slots__ = (
        "acquired_ranks",
        "drafter",
        "hand",
        "has_pile",
        "hidden_set",
        "holds_mirror",
        "phase",
        "played",
        "seat",
        "seated",
        "stage_ranks",
        "state",
    )

    def __init__(self, state: WhatsYourNameState, seat: int) -> None:
        self.state = state
        self.seat = seat
        phase = self.phase = state.phase
        # C-5: nothing else is read for a finished game or a seat that does not exist.
        self.seated = phase != WHATS_YOUR_NAME_PHASE_OVER and 0 <= seat < state.seats
        self.hand: list[int] = []  # the codes in hand (play and hide phases)
        self.played = False  # whether the seat has committed its play (play phase)
        self.hidden_set = False  # whether the seat has set its hidden card aside (hide phase)
        self.drafter: int | None = None  # the seat to take a stage card (other phases)
        self.stage_ranks: list[int] = []  # the stage's ranks in stage order (other phases)
        self.holds_mirror = False
        self.has_pile = False  # these two only for the mirror's holder
        self.acquired_ranks: list[int] = []
        if not self.seated:
            return
        pos = state.positions[seat]
        if phase == WHATS_YOUR_NAME_PHASE_PLAY:
            self.played = pos.HasField("played")
            self.hand = pos.hand[:]
        elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
            self.hidden_set = pos.HasField("hidden")
            self.hand = pos.hand[:]
        else:
            draft_order = state.draft_order
            if draft_order:
                self.drafter = draft_order[0]
            self.stage_ranks = [card % RANKS + 1 for card in state.stage[:]]
        if state.HasField("mirror_seat") and state.mirror_seat == seat:
            self.holds_mirror = True
            self.has_pile = bool(pos.pile)
            self.acquired_ranks = [card % RANKS + 1 for card in pos.acquired[:]]


def violation(state: WhatsYourNameState, seat: int, kind: str, rank: int) -> Violation | None:
    """Why `seat` may not make the move (`kind`, `rank`) now, or None when it may."""
    return check(SeatFacts(state, seat), kind, rank)


def check(facts: SeatFacts, kind: str, rank: int) -> Violation | None:
    """The rule the move (`kind`, `rank`) breaks for the seat of `facts`, or None."""
    phase = facts.phase
    if phase == WHATS_YOUR_NAME_PHASE_OVER:
        return Violation("C-5", "the game is over")
    seat = facts.seat
    if not facts.seated:
        return Violation("C-5", f"there is no seat {seat}")
    if kind == "play":
        if phase != WHATS_YOUR_NAME_PHASE_PLAY:
            return Violation("C-5", "cards are played only while a play round waits for plays")
        if facts.played:
            return Violation(
                "WN-3.1", "you have already chosen your card this round; it cannot be changed"
            )
        if code(seat, rank) not in facts.hand:
            return Violation("WN-3.1", f"you have no {rank} in your hand")
        return None
    if kind == "take":
        if phase not in (WHATS_YOUR_NAME_PHASE_DRAFT, WHATS_YOUR_NAME_PHASE_FINAL):
            return Violation("C-5", "stage cards are taken only while drafting")
        if facts.drafter != seat:
            return Violation("C-5", "it is another seat's turn to take a card")
        if rank not in facts.stage_ranks:
            rule = "WN-3.7" if phase == WHATS_YOUR_NAME_PHASE_FINAL else "WN-3.3"
            return Violation(rule, f"there is no {rank} on the stage")
        return None
    if kind == "hide":
        if not facts.state.options.hidden_card:
            return Violation("WN-7.1", "this game was created without the hidden_card option")
        if phase != WHATS_YOUR_NAME_PHASE_HIDE:
            return Violation("C-5", "hidden cards are chosen only at setup")
        if facts.hidden_set:
            return Violation(
                "WN-7.1", "you have already set your hidden card aside; it cannot be changed"
            )
        if rank == THIRTEEN:
            return Violation("WN-7.1", "a 13 may not be the hidden card")
        if code(seat, rank) not in facts.hand:
            return Violation("WN-7.1", f"you have no {rank} in your hand")
        return None
    # use_mirror
    if not facts.state.options.match:
        return Violation("WN-7.2", "this game was created without the match option")
    if not facts.holds_mirror:
        return Violation("WN-7.2", "you do not hold the mirror card")
    if not facts.has_pile:
        return Violation("WN-7.2", "the mirror may only be used while your pile is not empty")
    if rank not in facts.acquired_ranks:
        return Violation("WN-7.2", f"you have no acquired {rank} to discard with the mirror")
    return None


def candidates(facts: SeatFacts) -> list[tuple[str, int]]:
    """Every (kind, rank) the seat of `facts` might play now, before the check (a superset of
    the legal moves)."""
    if not facts.seated:
        return []
    phase = facts.phase
    found: list[tuple[str, int]] = []
    if phase == WHATS_YOUR_NAME_PHASE_PLAY:
        if not facts.played:
            found = [("play", c % RANKS + 1) for c in facts.hand]
    elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
        if not facts.hidden_set:
            found = [("hide", c % RANKS + 1) for c in facts.hand]
    elif facts.drafter == facts.seat:
        found = [("take", r) for r in sorted(set(facts.stage_ranks))]
    if facts.holds_mirror:
        found.extend(("use_mirror", r) for r in facts.acquired_ranks)
    return found


def _build(kind: str, rank: int) -> WhatsYourNameMove:
    """The move message of (kind, rank), field by field (only for `_WIRE` below)."""
    move = Move()
    getattr(move, kind).rank = rank
    return move


# Every move in wire form, by kind and rank. Parsing these few bytes builds a listed move faster
# than constructing it from Python, and a parsed copy is a fresh message the caller may change.
_WIRE: dict[tuple[str, int], bytes] = {
    (kind, rank): _build(kind, rank).SerializeToString()
    for kind in ("play", "take", "hide", "use_mirror")
    for rank in range(1, RANKS + 1)
}
_parse_move = Move.FromString


def legal_moves(state: WhatsYourNameState, seat: int) -> list[WhatsYourNameMove]:
    """The candidates that pass the check, as messages parsed from their wire form."""
    facts = SeatFacts(state, seat)
    wire = _WIRE
    return [
        _parse_move(wire[kind, rank])
        for kind, rank in candidates(facts)
        if check(facts, kind, rank) is None
    ]


def active_seats(state: WhatsYourNameState) -> list[int]:
    phase = state.phase
    if phase == WHATS_YOUR_NAME_PHASE_OVER:
        return []
    positions = state.positions
    if phase == WHATS_YOUR_NAME_PHASE_PLAY:
        active = [s for s in range(state.seats) if not positions[s].HasField("played")]
    elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
        active = [s for s in range(state.seats) if not positions[s].HasField("hidden")]
    else:
        draft_order = state.draft_order
        active = [draft_order[0]] if draft_order else []
    # The mirror may be used out of turn (WN-7.2): its holder joins, in seat order.
    if mirror_usable(state) and state.mirror_seat not in active:
        active.append(state.mirror_seat)
        active.sort()
    return active
