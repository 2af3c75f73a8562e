"""Building One Card positions by hand and making moves in short notation.

Cards are written as in `croupier.engines.one_card.cards.short_name`: R5 (red 5), B+2, Y+3, GJ
(green Jump), RU (red U-turn), W (Rainbow), Q (Quatran). Colours: R, Y, G, B.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove
from croupier.engines.one_card import ENGINE
from croupier.engines.one_card import cards as c
from croupier.v1.one_card_pb2 import (
    OneCardCard,
    OneCardEvent,
    OneCardMove,
    OneCardOptions,
    OneCardState,
)
from tests.engines import helpers as shared

COLOR = {"R": c.RED, "Y": c.YELLOW, "G": c.GREEN, "B": c.BLUE}

Events = list[Emitted[OneCardEvent]]


def position(
    hands: Sequence[str],
    top: str,
    *,
    current: int = 0,
    draw: str = "",
    under: str = "",
    named: str = "",
    attack: int = 0,
    quatran: bool = False,
    counter_clockwise: bool = False,
    catchable: int | None = None,
    options: OneCardOptions | None = None,
    seed: int = 1,
) -> OneCardState:
    """A position: `hands` per seat, `top` the top of the discard pile with `under` below it,
    `draw` the draw pile listed from its top card down, `named` the colour named by a Rainbow or
    Quatran on top, `attack` a pending attack total, `quatran` a pending Quatran demand."""
    state, _ = ENGINE.new_game(options or OneCardOptions(dealer_seat=0), len(hands), seed)
    for seat, cards in enumerate(hands):
        del state.hands[seat].cards[:]
        state.hands[seat].cards.extend(c.parse_all(cards))
    del state.draw_pile[:]
    state.draw_pile.extend(reversed(c.parse_all(draw)))
    del state.discard_pile[:]
    state.discard_pile.extend([*c.parse_all(under), c.parse(top)])
    state.current_seat = current
    state.named_color = COLOR[named] if named else 0  # type: ignore[assignment]
    state.pending_attack = attack
    state.quatran_pending = quatran
    state.counter_clockwise = counter_clockwise
    if catchable is None:
        state.ClearField("catchable_seat")
    else:
        state.catchable_seat = catchable
    return state


def card(name: str) -> OneCardCard:
    return c.to_message(c.parse(name))


def raw_card(card_type: int, color: int = 0, number: int = 0) -> OneCardCard:
    """A card message from raw enum numbers (for malformed cards)."""
    return OneCardCard(type=card_type, color=color, number=number)  # type: ignore[arg-type]


def play_move(cards: str, color: str = "", call: bool = False) -> OneCardMove:
    return OneCardMove(
        play=OneCardMove.Play(
            cards=[card(name) for name in cards.split()],
            color=COLOR[color] if color else 0,  # type: ignore[arg-type]
            call_one_card=call,
        )
    )


DRAW = OneCardMove(draw=OneCardMove.Draw())
CALL = OneCardMove(call_one_card=OneCardMove.CallOneCard())


def catch_move(target: int) -> OneCardMove:
    return OneCardMove(catch=OneCardMove.Catch(seat=target))


def play(state: OneCardState, seat: int, cards: str, color: str = "", call: bool = False) -> Events:
    return ENGINE.apply(state, seat, play_move(cards, color, call))


def draw(state: OneCardState, seat: int) -> Events:
    return ENGINE.apply(state, seat, DRAW)


def hand(state: OneCardState, seat: int) -> list[str]:
    return [c.short_name(code) for code in state.hands[seat].cards]


def pile(state: OneCardState) -> list[str]:
    """The draw pile from its top card down."""
    return [c.short_name(code) for code in reversed(state.draw_pile)]


def top(state: OneCardState) -> str:
    return c.short_name(state.discard_pile[-1])


def refused(state: OneCardState, seat: int, move: OneCardMove, rule_id: str) -> IllegalMove:
    """Assert the move is refused citing `rule_id`, changes nothing and is not listed."""
    return shared.refused(ENGINE, state, seat, move, rule_id)
