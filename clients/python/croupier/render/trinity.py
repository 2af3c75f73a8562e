"""Readable transcript lines for Trinity (삼위일체): events naming cards as `J♦`, `10♣`, `colour
joker`, and the board as a 3x4 grid after every turn; for the terminal table, one line per legal
move and the viewer's own part of the view.

Card codes (see protos/croupier/v1/trinity.proto): 0 none, 1..52 = 1 + 13 * suit + (rank - 2)
with suits ♠ ♥ ♦ ♣ and ranks 2..14 (J 11, Q 12, K 13, A 14), 53 colour joker, 54
black-and-white joker.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.render.names import seat_name
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.trinity_pb2 import (
    TRINITY_OUTCOME_LOST_FACE_CARD_DISCARDED,
    TRINITY_OUTCOME_LOST_HANDS_EMPTY,
    TRINITY_OUTCOME_UNSPECIFIED,
    TRINITY_OUTCOME_WON,
    TRINITY_PART_SUIT_EFFECT,
    TRINITY_STEP_ACTION,
    TRINITY_STEP_DISCARD,
    TRINITY_STEP_GIFT,
    TRINITY_STEP_GIFT_DISCARD,
    TRINITY_STEP_SUIT_EFFECT,
    TRINITY_STEP_SWAP,
    TRINITY_STEP_UNSPECIFIED,
    TrinityEvent,
    TrinityMove,
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


def describe_event(event: TrinityEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")
    if kind is None:
        return []
    part = getattr(event, kind)
    if kind == "dealt":
        hand = f": {cards_text(part.cards)}" if part.cards else ""
        return [f"{seat_name(names, part.seat)} is dealt {part.count} cards{hand}"]
    if kind == "turn_began":
        return [f"{seat_name(names, part.seat)}'s turn"]
    if kind == "turn_skipped":
        return [f"{seat_name(names, part.seat)} has no cards and skips the turn"]
    if kind == "placed":
        row = ROW_LETTERS.get(part.row, "?")
        line = f"{seat_name(names, part.seat)} places {card_name(part.card)} in {row}1"
        if part.pushed_off:
            line += f", pushing {card_name(part.pushed_off)} off {row}4 onto the discard pile"
        return [line]
    if kind == "used":
        return [f"{seat_name(names, part.seat)} uses {card_name(part.card)}"]
    if kind == "moved":
        row = ROW_LETTERS.get(part.row, "?")
        return [
            f"{seat_name(names, part.seat)} moves {card_name(part.card)} from {row}{part.from_slot}"
            f" to {row}{part.to_slot}"
        ]
    if kind == "row_card_discarded":
        row = ROW_LETTERS.get(part.row, "?")
        who = seat_name(names, part.seat)
        return [f"{who} discards {card_name(part.card)} from {row}{part.slot}"]
    if kind == "revealed":
        return [f"{seat_name(names, part.seat)} reveals {card_name(part.card)} in hand"]
    if kind == "swapped":
        own = f"{ROW_LETTERS.get(part.own_row, '?')}{part.own_slot}"
        other = f"{ROW_LETTERS.get(part.other_row, '?')}{part.other_slot}"
        return [
            f"{seat_name(names, part.seat)} swaps {card_name(part.own_card)} ({own}) with"
            f" {card_name(part.other_card)} ({other})"
        ]
    if kind == "skipped":
        what = "the suit effect" if part.part == TRINITY_PART_SUIT_EFFECT else "the swap"
        return [f"{seat_name(names, part.seat)} skips {what}"]
    if kind == "discarded":
        return [f"{seat_name(names, part.seat)} discards {card_name(part.card)}"]
    if kind == "gave":
        what = card_name(part.card) if part.card else "a card"
        return [
            f"{seat_name(names, part.giver)} gives {what} to {seat_name(names, part.receiver)},"
            " who must discard another card"
        ]
    if kind == "drew":
        drawn = f": {cards_text(part.cards)}" if part.cards else ""
        plural = "card" if part.count == 1 else "cards"
        return [f"{seat_name(names, part.seat)} draws {part.count} {plural}{drawn}"]
    if kind == "game_ended":
        return [f"Game over: {OUTCOMES.get(part.outcome, 'ended')}"]
    return [str(event).strip()]


def _grid_name(code: int) -> str:
    return GRID_NAMES.get(code) or card_name(code)


def _grid(view: GameView) -> list[str]:
    """The board as a 3x4 grid with each row's owner, the hands, the deck and the discard pile,
    and the shared result once the game is over."""
    table = view.trinity
    names = list(view.display_names)
    width = max([len(_grid_name(code)) for row in table.board for code in row.slots] + [3])
    header = "    " + " ".join(f"{slot:<{width}}" for slot in range(1, 5))
    lines = [header.rstrip()]
    for row in table.board:
        letter = ROW_LETTERS.get(row.row, "?")
        cells = " ".join(f"{_grid_name(code):<{width}}" for code in row.slots)
        lines.append(f" {letter}  {cells}  ({seat_name(names, row.seat)})")
    for seat in table.seats:
        shown = f", revealed: {cards_text(seat.revealed)}" if seat.revealed else ""
        lines.append(f" {seat_name(names, seat.seat)}: {seat.hand_size} cards{shown}")
    top = card_name(table.discard_pile[-1]) if table.discard_pile else "none"
    lines.append(f" deck: {table.deck_size}  discard pile: {len(table.discard_pile)} (top {top})")
    if table.outcome != TRINITY_OUTCOME_UNSPECIFIED:
        lines.append(f" result: {OUTCOMES.get(table.outcome, 'over')}")
    return lines


def describe_table(view: GameView) -> str | None:
    """The board as a 3x4 grid, with hands, deck and discard pile, after every complete turn
    (and when the game ends); None in the middle of an action."""
    if view.trinity.step not in (TRINITY_STEP_ACTION, TRINITY_STEP_UNSPECIFIED):
        return None
    return "\n".join(_grid(view))


# What using a card does (TR-4), for the list of moves.
_SUIT_EFFECTS = (
    "reveal a hand card",  # ♠
    "move a card of your row to the leftmost occupied slot",  # ♥
    "move a card of your row to the rightmost occupied slot",  # ♦
    "discard a card from your row",  # ♣
)


def _use_effect(code: int) -> str:
    if code == 53:
        return "give a hand card to the player on your right"
    if code == 54:
        return "give a hand card to the player on your left"
    if not 1 <= code <= 52:
        return "?"
    effect = _SUIT_EFFECTS[(code - 1) // 13]
    rank = (code - 1) % 13 + 2
    if rank == 10:
        effect += ", and/or swap a card of your row with the same slot of another row"
    elif rank == 14:
        effect += ", and/or swap a card of your row with any card of another row"
    return effect


def describe_move(move: TrinityMove, names: Sequence[str]) -> str:
    """One line for a legal move: `place J♦ in slot 1 of your row`, `use 7♣ (discard a card
    from your row)`, `pass: discard 5♠ and one more card`, `choose slot 2 of your row`,
    `reveal 9♥`, `skip this effect`, `swap slot 2 of your row with Q3`, `discard 4♦`,
    `give 8♠`."""
    kind = move.WhichOneof("kind")
    if kind == "place":
        return f"place {card_name(move.place.card)} in slot 1 of your row (pushing right)"
    if kind == "use":
        return f"use {card_name(move.use.card)} ({_use_effect(move.use.card)})"
    if kind == "discard_two":
        return f"pass: discard {card_name(move.discard_two.card)} and one more card"
    if kind == "target_slot":
        return f"choose slot {move.target_slot.slot} of your row"
    if kind == "reveal":
        return f"reveal {card_name(move.reveal.card)} from your hand"
    if kind == "skip":
        return "skip this effect"
    if kind == "swap":
        s = move.swap
        other = f"{ROW_LETTERS.get(s.other_row, '?')}{s.other_slot}"
        return f"swap slot {s.own_slot} of your row with {other}"
    if kind == "discard":
        return f"discard {card_name(move.discard.card)}"
    if kind == "give":
        return f"give {card_name(move.give.card)}"
    return "(no move)"


def describe_seat(view: GameView) -> str:
    """The viewer's own part and what a decision needs: the board mid-action (the table shows
    it after each turn), what the game waits for, the card given by a joker, and the viewer's
    row and hand (with the cards revealed by a Spade)."""
    table = view.trinity
    names = list(view.display_names)
    lines = [] if describe_table(view) is not None else _grid(view)
    turn = seat_name(names, table.turn)
    using = card_name(table.using_card)
    step = table.step
    if step == TRINITY_STEP_ACTION:
        lines.append(f"{turn} chooses an action: place a card, use a card, or pass")
    elif step == TRINITY_STEP_SUIT_EFFECT:
        lines.append(f"{turn} uses {using}: choose its suit effect's target")
    elif step == TRINITY_STEP_SWAP:
        lines.append(f"{turn} uses {using}: choose its swap")
    elif step == TRINITY_STEP_DISCARD:
        lines.append(f"{turn} discards one more hand card to end the action")
    elif step == TRINITY_STEP_GIFT:
        lines.append(f"{turn} uses the {using}: choose the card to give")
    elif step == TRINITY_STEP_GIFT_DISCARD and table.HasField("gift_receiver"):
        receiver = seat_name(names, table.gift_receiver)
        lines.append(f"{receiver} received a card from {turn} and discards another card")
    if table.revealed_now:
        lines.append(f"{card_name(table.revealed_now)} was revealed now and may not be discarded")
    if table.gift_card:
        lines.append(f"The card given: {card_name(table.gift_card)} (it may not be discarded)")
    if view.HasField("viewer_seat"):
        me = view.viewer_seat
        for seat in table.seats:
            if seat.seat == me:
                lines.append(f"Your row: {ROW_LETTERS.get(seat.row, '?')}")
                if seat.revealed:
                    lines.append(f"Revealed from your hand: {cards_text(seat.revealed)}")
        lines.append(f"Your hand: {cards_text(table.hand) or 'empty'}")
    return "\n".join(lines)
