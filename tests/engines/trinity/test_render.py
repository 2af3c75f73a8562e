"""The transcript renderer: readable events and the board as a 3x4 grid."""

from __future__ import annotations

import random

from croupier.engines.trinity import ENGINE
from croupier.render import trinity as render
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.trinity_pb2 import TRINITY_ROW_K, TrinityEvent, TrinityOptions, TrinityState
from tests.engines.helpers import seat_view
from tests.engines.trinity.helpers import (
    c,
    discard,
    discard_two,
    give,
    place,
    play,
    position,
    reveal,
    skip,
    swap,
    target,
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


def test_moves_read_as_one_line_each() -> None:
    """The terminal table's list of moves: each step of an action, with what a used card does."""
    names = NAMES
    assert render.describe_move(place("J♦"), names) == (
        "place J♦ in slot 1 of your row (pushing right)"
    )
    assert render.describe_move(use("7♣"), names) == "use 7♣ (discard a card from your row)"
    assert render.describe_move(use("A♦"), names) == (
        "use A♦ (move a card of your row to the rightmost occupied slot, and/or swap a card of"
        " your row with any card of another row)"
    )
    assert render.describe_move(use("colour joker"), names) == (
        "use colour joker (give a hand card to the player on your right)"
    )
    assert render.describe_move(discard_two("5♠"), names) == "pass: discard 5♠ and one more card"
    assert render.describe_move(target(2), names) == "choose slot 2 of your row"
    assert render.describe_move(reveal("9♥"), names) == "reveal 9♥ from your hand"
    assert render.describe_move(skip(), names) == "skip this effect"
    assert render.describe_move(swap(2, "Q3"), names) == "swap slot 2 of your row with Q3"
    assert render.describe_move(discard("4♦"), names) == "discard 4♦"
    assert render.describe_move(give("8♠"), names) == "give 8♠"


def test_seat_shows_the_board_mid_action_and_the_hand() -> None:
    state = position(
        hands=[["J♦", "2♣", "3♣", "4♣"], ["6♣", "7♣"], ["8♣", "9♣"]], board={"J1": "9♥"}
    )
    text = render.describe_seat(seat_view(ENGINE, state, 0, NAMES))
    assert "Ann chooses an action" in text
    assert "Your row: J" in text
    assert text.endswith("Your hand: J♦, 2♣, 3♣, 4♣")
    assert " J  9♥" not in text  # the table shows the board between actions
    play(state, 0, place("J♦"))
    text = render.describe_seat(seat_view(ENGINE, state, 0, NAMES))
    assert " J  J♦" in text  # mid-action, the board comes with the seat's part
    assert "Ann discards one more hand card to end the action" in text


def test_every_legal_move_has_its_own_line() -> None:
    """Different moves never read the same, and every decision shows the mover's hand."""
    chooser = random.Random(8)
    for seed in range(3):
        state, _ = ENGINE.new_game(TrinityOptions(), 3, seed=seed)
        while ENGINE.result(state) is None:
            active = ENGINE.active_seats(state)
            for seat in active:
                moves = ENGINE.legal_moves(state, seat)
                lines = [render.describe_move(m, NAMES) for m in moves]
                assert len(set(lines)) == len(lines), lines
                assert all(line and "?" not in line for line in lines), lines
                assert "Your hand: " in render.describe_seat(seat_view(ENGINE, state, seat, NAMES))
            seat = chooser.choice(active)
            ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
