"""The transcript renderer: readable events and the board as a 3x4 grid."""

from __future__ import annotations

from croupier.render import trinity as render
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.trinity_pb2 import TRINITY_ROW_K, TrinityEvent, TrinityState
from engines.trinity import ENGINE
from tests.engines.trinity.helpers import (
    c,
    discard,
    discard_two,
    give,
    place,
    play,
    position,
    use,
)

NAMES = ["Ann", "Bo", "Cy"]


def table(state: TrinityState) -> str | None:
    view = GameView(game_type="trinity", seats=3, display_names=NAMES)
    view.trinity.CopyFrom(ENGINE.view(state, None))
    return render.describe_table(view)


def test_card_names() -> None:
    assert render.card_name(c("J♦")) == "J♦"
    assert render.card_name(c("10♣")) == "10♣"
    assert render.card_name(c("A♠")) == "A♠"
    assert render.card_name(53) == "colour joker"
    assert render.card_name(54) == "black-and-white joker"


def test_board_as_a_grid_after_each_turn() -> None:
    state = position(
        hands=[["J♦", "2♣", "3♣", "4♣"], ["6♣", "7♣"], ["8♣", "9♣"]],
        board={"J1": "9♥", "J3": "Q♦", "Q4": "10♣", "K2": "colour joker"},
    )
    play(state, 0, place("J♦"))
    assert table(state) is None  # in the middle of the action
    play(state, 0, discard("2♣"))
    text = table(state)
    assert text is not None
    lines = text.splitlines()
    assert lines[1].split()[:5] == ["J", "J♦", "9♥", "Q♦", "·"]
    assert lines[2].split()[:5] == ["Q", "·", "·", "·", "10♣"]
    assert lines[3].split()[:5] == ["K", "·", "Joker(colour)", "·", "·"]
    assert "(Ann)" in lines[1]
    assert "deck:" in text


def test_result_line() -> None:
    state = position(hands=[["2♦", "3♦"], [], []], deck=[])
    play(state, 0, discard_two("2♦"))
    text = table(state)
    assert text is not None
    assert "everyone loses together" in text


def test_events_are_readable() -> None:
    state = position(hands=[["colour joker", "J♣", "3♥"], ["6♣", "7♣"], ["8♣", "9♣"]])
    events = play(state, 0, use("colour joker"), give("J♣"))

    def seen_by(seat: int) -> list[str]:
        return [
            line
            for e in events
            for line in render.describe_event(e.for_seat(seat) or TrinityEvent(), NAMES)
        ]

    assert seen_by(1) == [
        "Ann uses colour joker",
        "Ann gives a card to Cy, who must discard another card",
    ]
    assert seen_by(0)[-1] == "Ann gives J♣ to Cy, who must discard another card"
    pushed = TrinityEvent(
        placed=TrinityEvent.Placed(seat=2, row=TRINITY_ROW_K, card=c("K♠"), pushed_off=c("10♦"))
    )
    assert render.describe_event(pushed, NAMES) == [
        "Cy places K♠ in K1, pushing 10♦ off K4 onto the discard pile"
    ]
