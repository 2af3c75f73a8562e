"""Readable transcript lines for Trinity (삼위일체): events naming cards as `J♦`, `10♣`, `colour
joker`, and the board as a 3x4 grid after every turn.

Card codes (see protos/croupier/v1/trinity.proto): 0 none, 1..52 = 1 + 13 * suit + (rank - 2)
with suits ♠ ♥ ♦ ♣ and ranks 2..14 (J 11, Q 12, K 13, A 14), 53 colour joker, 54
black-and-white joker.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.v1.game_service_pb2 import GameView
from croupier.v1.trinity_pb2 import (
    TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED,
    TRINITY_OUTCOME_LOST_HANDS_EMPTY,
    TRINITY_OUTCOME_UNSPECIFIED,
    TRINITY_OUTCOME_WON,
    TRINITY_PART_SUIT_EFFECT,
    TRINITY_STEP_ACTION,
    TRINITY_STEP_UNSPECIFIED,
    TrinityEvent,
)

SUITS = ("♠", "♥", "♦", "♣")
RANKS = {11: "J", 12: "Q", 13: "K", 14: "A"}
ROW_LETTERS = {1: "J", 2: "Q", 3: "K"}
# Short names for the grid; events use the full names.
GRID_NAMES = {0: "·", 53: "Joker(colour)", 54: "Joker(b&w)"}
OUTCOMES = {
    TRINITY_OUTCOME_WON: "the board is complete: everyone wins together",
    TRINITY_OUTCOME_LOST_HANDS_EMPTY: "every hand is empty: everyone loses together",
    TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED: (
        "a Jack, Queen or King was discarded: everyone loses together"
    ),
}


def card_name(code: int) -> str:
    """`J♦`, `10♣`, `colour joker`, `black-and-white joker`; `·` for no card."""
    if code == 53:
        return "colour joker"
    if code == 54:
        return "black-and-white joker"
    if not 1 <= code <= 52:
        return "·" if code == 0 else f"card {code}"
    rank = (code - 1) % 13 + 2
    return f"{RANKS.get(rank, str(rank))}{SUITS[(code - 1) // 13]}"


def cards_text(codes: Sequence[int]) -> str:
    return ", ".join(card_name(code) for code in codes)


def _who(names: Sequence[str], seat: int) -> str:
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"


def describe_event(event: TrinityEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")
    if kind is None:
        return []
    part = getattr(event, kind)
    if kind == "dealt":
        hand = f": {cards_text(part.cards)}" if part.cards else ""
        return [f"{_who(names, part.seat)} is dealt {part.count} cards{hand}"]
    if kind == "turn_began":
        return [f"{_who(names, part.seat)}'s turn"]
    if kind == "turn_skipped":
        return [f"{_who(names, part.seat)} has no cards and skips the turn"]
    if kind == "placed":
        row = ROW_LETTERS.get(part.row, "?")
        line = f"{_who(names, part.seat)} places {card_name(part.card)} in {row}1"
        if part.pushed_off:
            line += f", pushing {card_name(part.pushed_off)} off {row}4 onto the discard pile"
        return [line]
    if kind == "used":
        return [f"{_who(names, part.seat)} uses {card_name(part.card)}"]
    if kind == "moved":
        row = ROW_LETTERS.get(part.row, "?")
        return [
            f"{_who(names, part.seat)} moves {card_name(part.card)} from {row}{part.from_slot}"
            f" to {row}{part.to_slot}"
        ]
    if kind == "row_card_discarded":
        row = ROW_LETTERS.get(part.row, "?")
        return [f"{_who(names, part.seat)} discards {card_name(part.card)} from {row}{part.slot}"]
    if kind == "revealed":
        return [f"{_who(names, part.seat)} reveals {card_name(part.card)} in hand"]
    if kind == "swapped":
        own = f"{ROW_LETTERS.get(part.own_row, '?')}{part.own_slot}"
        other = f"{ROW_LETTERS.get(part.other_row, '?')}{part.other_slot}"
        return [
            f"{_who(names, part.seat)} swaps {card_name(part.own_card)} ({own}) with"
            f" {card_name(part.other_card)} ({other})"
        ]
    if kind == "skipped":
        what = "the suit effect" if part.part == TRINITY_PART_SUIT_EFFECT else "the swap"
        return [f"{_who(names, part.seat)} skips {what}"]
    if kind == "discarded":
        return [f"{_who(names, part.seat)} discards {card_name(part.card)}"]
    if kind == "gave":
        what = card_name(part.card) if part.card else "a card"
        return [
            f"{_who(names, part.giver)} gives {what} to {_who(names, part.receiver)},"
            " who must discard another card"
        ]
    if kind == "drew":
        drawn = f": {cards_text(part.cards)}" if part.cards else ""
        plural = "card" if part.count == 1 else "cards"
        return [f"{_who(names, part.seat)} draws {part.count} {plural}{drawn}"]
    if kind == "game_ended":
        return [f"Game over: {OUTCOMES.get(part.outcome, 'ended')}"]
    return [str(event).strip()]


def _grid_name(code: int) -> str:
    return GRID_NAMES.get(code) or card_name(code)


def describe_table(view: GameView) -> str | None:
    """The board as a 3x4 grid, with hands, deck and discard pile, after every complete turn
    (and when the game ends); None in the middle of an action."""
    table = view.trinity
    if table.step not in (TRINITY_STEP_ACTION, TRINITY_STEP_UNSPECIFIED):
        return None
    names = list(view.display_names)
    width = max([len(_grid_name(code)) for row in table.board for code in row.slots] + [3])
    header = "    " + " ".join(f"{slot:<{width}}" for slot in range(1, 5))
    lines = [header.rstrip()]
    for row in table.board:
        letter = ROW_LETTERS.get(row.row, "?")
        cells = " ".join(f"{_grid_name(code):<{width}}" for code in row.slots)
        lines.append(f" {letter}  {cells}  ({_who(names, row.seat)})")
    for seat in table.seats:
        shown = f", revealed: {cards_text(seat.revealed)}" if seat.revealed else ""
        lines.append(f" {_who(names, seat.seat)}: {seat.hand_size} cards{shown}")
    top = card_name(table.discard_pile[-1]) if table.discard_pile else "none"
    lines.append(f" deck: {table.deck_size}  discard pile: {len(table.discard_pile)} (top {top})")
    if table.outcome != TRINITY_OUTCOME_UNSPECIFIED:
        lines.append(f" result: {OUTCOMES.get(table.outcome, 'over')}")
    return "\n".join(lines)
