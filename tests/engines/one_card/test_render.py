"""The transcript renderer: named colours, attack chains, catches, draws and the result."""

from __future__ import annotations

import random

from croupier.engines.one_card import ENGINE
from croupier.render import one_card as render
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.one_card_pb2 import OneCardColor, OneCardEvent, OneCardOptions
from tests.engines.helpers import seat_view

from .helpers import CALL, DRAW, card, catch_move, play, play_move, position

Event = OneCardEvent
NAMES = ["Ann", "Ben", "Cat"]


def lines(event: OneCardEvent) -> list[str]:
    return render.describe_event(event, NAMES)


def test_card_names() -> None:
    assert [render.card_name(card(n)) for n in ["R5", "B+2", "Y+3", "GJ", "RU", "W", "Q"]] == [
        "red 5",
        "blue +2",
        "yellow +3",
        "green Jump",
        "red U-turn",
        "Rainbow",
        "Quatran",
    ]


def test_named_colours_and_quatran_demand() -> None:
    played = Event.Played(
        seat=0,
        cards=[card("Q")],
        named_color=OneCardColor.ONE_CARD_COLOR_BLUE,
        cards_left=3,
        next_seat=1,
    )
    assert lines(Event(played=played)) == [
        "Ann plays Quatran and names blue [3 cards left]",
        "  Quatran: Ben must discard two blue numbers or draw 2",
    ]
    played = Event.Played(
        seat=2, cards=[card("W")], named_color=OneCardColor.ONE_CARD_COLOR_RED, called_one_card=True
    )
    played.cards_left = 1
    played.next_seat = 0
    assert lines(Event(played=played)) == [
        'Cat plays Rainbow and names red - "One Card!" [1 card left]'
    ]
    answer = Event.Played(seat=1, cards=[card("B3"), card("B7")], quatran_answer=True, next_seat=2)
    assert lines(Event(played=answer))[0].startswith("Ben answers the Quatran with blue 3, blue 7")


def test_attack_chain_lines() -> None:
    played = Event.Played(
        seat=1,
        cards=[card("B+2")],
        attack_total=4,
        defence=Event.DEFENCE_SAME_EFFECT,
        cards_left=5,
        next_seat=2,
    )
    assert lines(Event(played=played)) == [
        "Ben defends with blue +2 (same effect) [5 cards left]",
        "  Attack chain: Cat faces +4",
    ]


def test_draw_lines_public_and_private() -> None:
    public = Event.Drew(seat=2, owed=7, count=3, reason=Event.DRAW_REASON_ATTACK, cards_left=9)
    assert lines(Event(drew=public)) == [
        "Cat takes the attack and draws 7 cards (only 3 left to draw) -> 9 cards in hand"
    ]
    private = Event.Drew(
        seat=0, owed=1, count=1, reason=Event.DRAW_REASON_CHOSEN, cards=[card("G2")], cards_left=4
    )
    assert lines(Event(drew=private)) == ["Ann chooses to draw 1 card: green 2 -> 4 cards in hand"]


def test_catch_call_jump_uturn_reshuffle_lines() -> None:
    assert lines(Event(caught=Event.Caught(catcher=2, caught=0))) == [
        'Cat catches Ann, who did not call "One Card"!'
    ]
    assert lines(Event(called_one_card=Event.CalledOneCard(seat=1))) == ['Ben: "One Card!"']
    assert lines(Event(skipped=Event.Skipped(seat=1))) == ["  Jump: Ben is skipped"]
    assert lines(Event(direction_changed=Event.DirectionChanged(clockwise=False))) == [
        "  U-turn: play now goes counter-clockwise"
    ]
    assert "12 cards" in lines(Event(reshuffled=Event.Reshuffled(draw_pile_size=12)))[0]


def test_setup_lines() -> None:
    _, events = ENGINE.new_game(OneCardOptions(dealer_seat=2), 3, seed=4)
    public = [line for e in events if e.public for line in lines(e.public)]
    assert public[0] == "=== Game 1: Cat deals; Ann starts ==="
    assert any(line.startswith("Start card: ") for line in public)
    own = [line for e in events if (ev := e.for_seat(1)) for line in lines(ev)]
    assert any(line.startswith("Ben is dealt ") for line in own)


def test_result_lines() -> None:
    state = position(["R1", "R3 G4", "R5 G6 B1"], "R9")
    events = play(state, 0, "R1")
    text = [line for e in events if e.public for line in lines(e.public)]
    assert text[-5:] == [
        "*** Ann discards their last card and wins game 1 ***",
        "  1. Ann: 0 cards left, 1 won",
        "  2. Ben: 2 cards left, 0 won",
        "  3. Cat: 3 cards left, 0 won",
        "*** Ann wins the match ***",
    ]


def test_describe_table() -> None:
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R+2", under="B2", attack=2, current=1)
    view = GameView(game_type="one_card", display_names=NAMES)
    view.one_card.CopyFrom(ENGINE.view(state, None))
    table = render.describe_table(view)
    assert table == (
        "  [top red +2 | ATTACK +2 | clockwise | turn: Ben | hands Ann=2 Ben=2 Cat=2"
        " | draw 0, discard 2]"
    )
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9", draw="B1 B2")
    play(state, 0, "R1")
    view.one_card.CopyFrom(ENGINE.view(state, None))
    assert "Ann has not called One Card!" in (render.describe_table(view) or "")
    ENGINE.apply(state, 2, catch_move(0))
    view.one_card.CopyFrom(ENGINE.view(state, None))
    assert "not called" not in (render.describe_table(view) or "")


def test_moves_read_as_one_line_each() -> None:
    """The terminal table's list of moves: cards, a named colour, the call, draw, catch."""
    assert render.describe_move(play_move("R5"), NAMES) == "play red 5"
    assert (
        render.describe_move(play_move("W", "B", call=True), NAMES)
        == 'play Rainbow naming blue and call "One Card"'
    )
    assert render.describe_move(play_move("G3 G7"), NAMES) == "play green 3, then green 7"
    assert render.describe_move(DRAW, NAMES) == "draw"
    assert render.describe_move(CALL, NAMES) == 'call "One Card"'
    assert render.describe_move(catch_move(2), NAMES) == "catch Cat"


def test_seat_shows_the_hand_the_attack_and_the_catch() -> None:
    state = position(["R1 Y1", "R3 B+2", "R5 G6"], "R+2", under="B2", attack=2, current=1)
    text = render.describe_seat(seat_view(ENGINE, state, 1, NAMES))
    assert "You face an attack of +2: defend with an attack card, or draw 2 cards" in text
    assert text.endswith("Your hand: red 3, blue +2")
    state = position(["R1 Y1", "R3 G4", "R5 G6"], "R9", draw="B1 B2")
    play(state, 0, "R1")
    assert "call before a catch" in render.describe_seat(seat_view(ENGINE, state, 0, NAMES))
    assert "Ann has one card" in render.describe_seat(seat_view(ENGINE, state, 2, NAMES))


def test_every_legal_move_has_its_own_line() -> None:
    """Different moves never read the same, and every decision shows the mover's hand."""
    chooser = random.Random(8)
    for seed in range(2):
        state, _ = ENGINE.new_game(OneCardOptions(), 3, seed)
        for _ in range(400):
            active = ENGINE.active_seats(state)
            if not active:
                break
            for seat in active:
                moves = ENGINE.legal_moves(state, seat)
                lines = [render.describe_move(m, NAMES) for m in moves]
                assert len(set(lines)) == len(lines), lines
                assert all(line and "?" not in line for line in lines), lines
                assert "Your hand: " in render.describe_seat(seat_view(ENGINE, state, seat, NAMES))
            seat = chooser.choice(active)
            ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
