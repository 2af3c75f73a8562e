"""The board (TR-1.2) and the pure operations on one row of four slots.

A row is a list of four card codes, index 0 being slot 1 (the left end); 0 is an empty slot.
Row indexes 0, 1, 2 are the J, Q and K rows; on the state's board, row r holds entries
4r..4r+3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from croupier.engines.trinity.cards import JACK, NO_CARD, is_black, is_red, rank_of

ROWS: Final = 3
SLOTS: Final = 4
ROW_RANKS: Final = (JACK, JACK + 1, JACK + 2)  # J, Q, K
ROW_LETTERS: Final = ("J", "Q", "K")


def row_of_board(board: Sequence[int], row: int) -> list[int]:
    return list(board[SLOTS * row : SLOTS * row + SLOTS])


def place(slots: Sequence[int], card: int) -> tuple[list[int], int]:
    """Put `card` into slot 1, pushing right up to the first empty slot (TR-3.1).

    Returns the new row and the card pushed out of slot 4 (0 when the row had an empty slot).
    """
    new = list(slots)
    if NO_CARD in new:
        empty = new.index(NO_CARD)
        new[1 : empty + 1] = new[0:empty]
        new[0] = card
        return new, NO_CARD
    pushed_off = new[-1]
    new[1:] = new[:-1]
    new[0] = card
    return new, pushed_off


def rightmost(slots: Sequence[int]) -> int | None:
    """The destination of a ♦ move: the rightmost occupied slot (TR-4.1)."""
    for index in range(SLOTS - 1, -1, -1):
        if slots[index] != NO_CARD:
            return index
    return None


def leftmost(slots: Sequence[int]) -> int | None:
    """The destination of a ♥ move: the leftmost occupied slot (TR-4.2)."""
    for index in range(SLOTS):
        if slots[index] != NO_CARD:
            return index
    return None


def move_card(slots: Sequence[int], source: int, destination: int) -> list[int]:
    """Move the card at `source` to `destination`, rotating the slots in between (empty ones
    included) one step towards `source` (TR-4.1, TR-4.2)."""
    new = list(slots)
    moving = new.pop(source)
    new.insert(destination, moving)
    return new


def row_complete(slots: Sequence[int], row: int, *, advanced: bool) -> bool:
    """Whether a row holds its four cards of the row's rank (TR-5.1), with reds in slots 1-2
    and blacks in slots 3-4 under the expert rule (TR-5.3)."""
    rank = ROW_RANKS[row]
    for code in slots:
        if rank_of(code) != rank:
            return False
    if not advanced:
        return True
    return is_red(slots[0]) and is_red(slots[1]) and is_black(slots[2]) and is_black(slots[3])


def board_complete(board: Sequence[int], *, advanced: bool) -> bool:
    for row in range(ROWS):
        if not row_complete(board[SLOTS * row : SLOTS * row + SLOTS], row, advanced=advanced):
            return False
    return True
