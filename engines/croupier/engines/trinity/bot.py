"""The strong Trinity player: a one-ply heuristic over the seat's own view (TR-6).

The team wins when the four Jacks, Queens and Kings stand in the J, Q and K rows (TR-5.1), so
a face card discarded or pushed off a row loses the game. The bot values a board (a face card
in its own row 10, a face card elsewhere on the board 3, other cards -0.5 for the room they
take) and a hand (what each card is worth keeping: face cards most, then the tools that move
cards between rows: jokers, Aces, 10s, Clubs), and scores each step of an action by simulating
its effect on the board it sees (TR-3, TR-4):
- place a face card of its own row (never pushing a face card off slot 4);
- use a 10 or an A to swap a face card into its row, a Club to clear a wrong card, a joker to
  give a face card to the player whose row it belongs to;
- otherwise pass (discard two) with the least useful cards; never discard a face card while
  another card may go.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from croupier.engines.core.bots import ScoringBot
from croupier.v1.trinity_pb2 import TrinityMove, TrinityView

_COLOUR_JOKER: Final = 53
_BLACK_WHITE_JOKER: Final = 54
_SPADE: Final = 0
_HEART: Final = 1
_DIAMOND: Final = 2
_CLUB: Final = 3
_LOST: Final = -1_000.0


def _rank(card: int) -> int:
    return (card - 1) % 13 + 2 if 1 <= card <= 52 else 0


def _suit(card: int) -> int:
    return (card - 1) // 13


def _face(card: int) -> bool:
    return 11 <= _rank(card) <= 13


def _keep(card: int) -> float:
    """What a hand card is worth keeping (its loss when spent or discarded)."""
    if _face(card):
        return -_LOST
    if card in (_COLOUR_JOKER, _BLACK_WHITE_JOKER):
        return 6.0
    rank, suit = _rank(card), _suit(card)
    if rank == 14:
        return 5.0
    if rank == 10:
        return 4.0
    return {_CLUB: 1.5, _DIAMOND: 1.0, _HEART: 1.0}.get(suit, 0.5) + rank / 100


def _slot_value(card: int, needed: int) -> float:
    if card == 0:
        return 0.0
    rank = _rank(card)
    if rank == needed:
        return 10.0
    return 3.0 if _face(card) else -0.5


def _row_value(slots: Sequence[int], needed: int) -> float:
    return sum(_slot_value(card, needed) for card in slots)


def _placed(slots: Sequence[int], card: int) -> tuple[list[int], int]:
    """The row after placing `card` in slot 1 (TR-3.1), and the card pushed off (0: none)."""
    row = list(slots)
    if 0 in row:
        empty = row.index(0)
        return [card, *row[:empty], *row[empty + 1 :]], 0
    return [card, *row[:3]], row[3]


def _moved(slots: Sequence[int], slot: int, suit: int) -> list[int]:
    """The row after a ♦ / ♥ / ♣ effect on `slot` (0-based) (TR-4.1 to TR-4.3)."""
    row = list(slots)
    if suit == _CLUB:
        row[slot] = 0
        return row
    occupied = [i for i, card in enumerate(row) if card]
    if suit == _DIAMOND:
        end = occupied[-1]
        return [*row[:slot], *row[slot + 1 : end + 1], row[slot], *row[end + 1 :]]
    end = occupied[0]
    return [*row[:end], row[slot], *row[end:slot], *row[slot + 1 :]]


class _Table:
    """The board as the seat sees it: each row's slots and needed rank, by row enum."""

    def __init__(self, view: TrinityView, seat: int) -> None:
        self.rows: dict[int, list[int]] = {int(row.row): row.slots[:] for row in view.board[:]}
        self.needed = {row: 10 + row for row in self.rows}
        self.seat_row = {s.seat: int(s.row) for s in view.seats[:]}
        self.mine = self.seat_row[seat]

    def value(self, row: int, slots: Sequence[int]) -> float:
        return _row_value(slots, self.needed[row])

    def gain(self, row: int, slots: Sequence[int]) -> float:
        return self.value(row, slots) - self.value(row, self.rows[row])

    def best_swap(self, any_slot: bool) -> float | None:
        """The best board gain of one swap between the own row and another (TR-4.5/4.6);
        None when no swap is possible."""
        best: float | None = None
        own = self.rows[self.mine]
        for other, slots in self.rows.items():
            if other == self.mine:
                continue
            for i, mine in enumerate(own):
                for j, theirs in enumerate(slots):
                    if not (mine and theirs) or (not any_slot and i != j):
                        continue
                    a, b = list(own), list(slots)
                    a[i], b[j] = theirs, mine
                    gain = self.gain(self.mine, a) + self.gain(other, b)
                    best = gain if best is None else max(best, gain)
        return best

    def swap_gain(self, own_slot: int, other_row: int, other_slot: int) -> float:
        a, b = list(self.rows[self.mine]), list(self.rows[other_row])
        a[own_slot], b[other_slot] = b[other_slot], a[own_slot]
        return self.gain(self.mine, a) + self.gain(other_row, b)


def _cheapest(hand: Sequence[int], spent: Sequence[int]) -> float:
    """The keep value of the card discarded after spending `spent` (the least useful one)."""
    rest = list(hand)
    for card in spent:
        rest.remove(card)
    return min((_keep(card) for card in rest), default=0.0)


class StrongBot(ScoringBot):
    def score(self, seat: int, view: Any, move: Any) -> float:
        v: TrinityView = view
        m: TrinityMove = move
        table = _Table(v, seat)
        kind = m.WhichOneof("kind")
        hand = v.hand[:]
        if kind == "place":
            card = m.place.card
            row, pushed = _placed(table.rows[table.mine], card)
            if _face(pushed):
                return _LOST
            gain = table.gain(table.mine, row)
            spent = 0.0 if _face(card) else _keep(card)
            return gain - spent - _cheapest(hand, [card])
        if kind == "discard_two":
            card = m.discard_two.card
            return -_keep(card) - _cheapest(hand, [card]) - 0.1
        if kind == "use":
            card = m.use.card
            if card in (_COLOUR_JOKER, _BLACK_WHITE_JOKER):
                receiver = (seat - 1) % 3 if card == _COLOUR_JOKER else (seat + 1) % 3
                wanted = 10 + int(table.seat_row[receiver])
                gift = 8.0 if any(_rank(c) == wanted for c in hand) else -1.0
                return gift - _keep(card)
            # The best of what the card can do: its suit effect on one of its targets (a Club
            # on a face card discards it: lost), or for a 10 / A the swap alone (the suit
            # effect may be skipped only when a swap is possible, TR-4.7).
            rank, suit = _rank(card), _suit(card)
            options: list[float] = []
            if rank in (10, 14):
                swap = table.best_swap(rank == 14)
                if swap is not None:
                    options.append(swap)
            own = table.rows[table.mine]
            if suit == _SPADE:
                options.append(0.0)
            for slot, target in enumerate(own):
                if not target:
                    continue
                if suit == _CLUB:
                    options.append(
                        _LOST if _face(target) else table.gain(table.mine, _moved(own, slot, suit))
                    )
                elif self._movable(own, slot, suit):
                    options.append(table.gain(table.mine, _moved(own, slot, suit)))
            gain = max(options, default=0.0)
            return gain - _keep(card) - _cheapest(hand, [card])
        if kind == "target_slot":
            slot = m.target_slot.slot - 1
            own = table.rows[table.mine]
            suit = _suit(v.using_card)
            row = _moved(own, slot, suit)
            if suit == _CLUB and _face(own[slot]):
                return _LOST
            return table.gain(table.mine, row)
        if kind == "swap":
            s = m.swap
            return table.swap_gain(s.own_slot - 1, int(s.other_row), s.other_slot - 1)
        if kind == "skip":
            return 0.0
        if kind == "reveal":
            # The revealed card may not be discarded in this action: show the one most worth
            # keeping, so that the discard is never forced onto a face card.
            return _keep(m.reveal.card)
        if kind == "give":
            card = m.give.card
            wanted = 10 + int(table.seat_row[v.gift_receiver])
            return 50.0 if _rank(card) == wanted else -_keep(card) + (5.0 if _face(card) else 0.0)
        if kind == "discard":
            return -_keep(m.discard.card)
        return 0.0

    @staticmethod
    def _movable(slots: Sequence[int], slot: int, suit: int) -> bool:
        occupied = [i for i, card in enumerate(slots) if card]
        return slot != (occupied[-1] if suit == _DIAMOND else occupied[0])
