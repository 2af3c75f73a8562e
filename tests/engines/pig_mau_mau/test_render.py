"""The transcript renderer: every event reads as text, and the table shows the track (pigs and
finish), the bet row (face-down bets as `?`) and the scores."""

from __future__ import annotations

import random

import pytest

from croupier.engines.pig_mau_mau import ENGINE
from croupier.render import pig_mau_mau as render
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.pig_mau_mau_pb2 import PigMauMauEvent, PigMauMauOptions, PigMauMauState
from tests.engines import helpers as shared
from tests.engines.pig_mau_mau.positions import (
    BEIGE,
    BET,
    BLACK,
    BROWN,
    DECLINE,
    DRAW,
    END_STEPS,
    FARMER_A,
    MAU,
    PINK,
    STEPS,
    bet,
    first,
    num,
    p2,
    play,
    position,
    step,
    tired,
    x,
)

NAMES = ["Anna", "Bernd", "Christine", "Dora", "Emil"]


def table(state: PigMauMauState, seats: int, viewer: int | None = None) -> str:
    view = GameView(game_type="pig_mau_mau", seats=seats, display_names=NAMES[:seats])
    view.pig_mau_mau.CopyFrom(ENGINE.view(state, viewer))
    text = render.describe_table(view)
    assert text is not None
    return text


def test_table_draws_the_track_and_the_face_down_bet_row() -> None:
    state = position(
        hands=[[num(PINK, 3)], [num(PINK, 2)], [num(PINK, 1)]],
        top=num(PINK, 5),
        pigs=(3, 0, 14, 7),
        finish=14,
        bets=[(1, BLACK), (0, PINK)],
    )
    text = table(state, 3)
    lines = text.splitlines()
    assert lines[0] == "Race 1/4, finish at 14:"
    assert lines[1].strip() == "S             F"
    assert lines[2] == "  pink  ...@..........|  3"
    assert lines[3] == "  brown @.............|  0"
    assert lines[4] == "  black ..............@  14"
    assert "Bets: 1. Bernd [?]  2. Anna [?]" in text
    assert "black]" not in text
    assert "pink]" not in text
    own = table(state, 3, viewer=0)
    assert "2. Anna [pink]" in own
    assert "1. Bernd [?]" in own
    assert "Next: Anna to play" in text


def test_race_scoring_is_described() -> None:
    state = position(
        hands=[[num(BEIGE, 6)], [num(PINK, 2)]],
        top=num(BEIGE, 5),
        pigs=(3, 0, 2, 8),
        finish=14,
        bets=[(1, BEIGE), (0, PINK)],
    )
    events = ENGINE.apply(state, 0, play(num(BEIGE, 6)))
    lines = render.describe_event(first(events, "race_ended"), NAMES[:2])
    text = "\n".join(lines)
    assert "Race 1 ends: beige pig wins." in text
    assert "Anna moved a pig to the finish: +3." in text
    assert "Anna played their last card: +5." in text
    assert "1. Bernd: beige +6" in text
    assert "2. Anna: pink returned" in text
    assert "Race points: Anna 8, Bernd 6." in text


def test_a_forgotten_call_on_a_plus_two_answer_reads_as_the_players_own_draw() -> None:
    """PM-7.3: the transcript says the card went back without its action, and the next line is
    the same player taking the total (the turn is not yet lost: they still draw)."""
    state = position(
        hands=[[num(PINK, 1)], [p2(BROWN), num(PINK, 2)], [num(BLACK, 4)]],
        top=p2(BLACK),
        pending=2,
        turn=1,
        mau=True,
    )
    events = ENGINE.apply(state, 1, play(p2(BROWN)))
    public = [e.public for e in events[:2] if e.public is not None]
    lines = [line for event in public for line in render.describe_event(event, NAMES[:3])]
    assert lines == [
        'Bernd plays brown +2 without calling "Mau": takes it back, no action.',
        "Bernd draws 2 cards (taking +2).",
    ]


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_whole_transcript_renders(seats: int) -> None:
    """Every event of a random game renders as readable lines (never the proto dump), and a
    table follows every move."""
    chooser = random.Random(seats)
    state, events = ENGINE.new_game(PigMauMauOptions(mau=True), seats, seed=seats)
    seen: set[str] = set()
    while ENGINE.result(state) is None:
        seat = ENGINE.active_seats(state)[0]
        events = ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
        for emitted in events:
            for audience in (seat, None):
                event = emitted.for_seat(audience)
                if event is None:
                    continue
                seen.add(event.WhichOneof("kind") or "")
                lines = render.describe_event(event, NAMES[:seats])
                assert lines
                assert all(":" not in line[:3] and "{" not in line for line in lines)
        assert "F" in table(state, seats)
    assert {"card_played", "pig_moved", "race_ended", "game_ended"} <= seen
    assert render.describe_event(PigMauMauEvent(), NAMES) == []


def seat_view(state: PigMauMauState, seat: int) -> GameView:
    return shared.seat_view(ENGINE, state, seat, NAMES)


def test_moves_read_as_one_line_each() -> None:
    """The terminal table's list of moves: cards with their pig, colour and call; the +2 draw,
    the steps back, the bets."""
    assert render.describe_move(play(num(PINK, 5)), NAMES) == "play pink 5"
    assert (
        render.describe_move(play(tired(BEIGE), pig=BLACK), NAMES)
        == "play Tired Pig (beige), moving the black pig forward 3"
    )
    assert (
        render.describe_move(play(FARMER_A, color=BROWN, call=MAU), NAMES)
        == 'play Farmer naming brown, calling "Mau"'
    )
    assert render.describe_move(play(x(BLACK)), NAMES) == "play black X"
    assert render.describe_move(play(p2(BROWN)), NAMES) == "play brown +2"
    assert render.describe_move(DRAW, NAMES) == "draw the pending +2 total"
    assert render.describe_move(step(PINK), NAMES) == "step pink back"
    assert render.describe_move(END_STEPS, NAMES) == "stop moving pigs back"
    assert render.describe_move(bet(BROWN), NAMES) == "bet on brown"
    assert render.describe_move(DECLINE, NAMES) == "do not bet"


def test_seat_shows_the_hand_the_bet_and_the_step() -> None:
    state = position(
        hands=[[num(PINK, 3), p2(BLACK)], [num(PINK, 2)]],
        top=p2(PINK),
        pending=2,
        bets=[(1, BEIGE), (0, BROWN)],
    )
    text = render.describe_seat(seat_view(state, 0))
    assert "You face +2: stack a +2 on it, or draw 2" in text
    assert "Your bet: brown (slot 2 of the row)" in text
    assert text.endswith("Your hand: pink 3, black +2")
    steps = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), phase=STEPS, steps=2)
    assert "2 step(s) left" in render.describe_seat(seat_view(steps, 0))
    betting = position(hands=[[num(PINK, 3)], [num(PINK, 2)]], top=num(PINK, 5), phase=BET)
    assert "Your bet: none" in render.describe_seat(seat_view(betting, 0))
    assert "you may bet on a pig" in render.describe_seat(seat_view(betting, 0))


def test_every_legal_move_has_its_own_line() -> None:
    """Moves that read the same are only copies of one card (the Farmers); every decision shows
    the mover's hand."""
    chooser = random.Random(8)
    for seed in range(2):
        state, _ = ENGINE.new_game(PigMauMauOptions(mau=True), 3, seed=seed)
        while ENGINE.result(state) is None:
            seat = state.turn
            moves = ENGINE.legal_moves(state, seat)
            lines = [render.describe_move(m, NAMES) for m in moves]
            assert all(line and "?" not in line for line in lines), lines
            same: dict[str, set[str]] = {}
            for line, move in zip(lines, moves, strict=True):
                card = render.card(render.card_of_code(move.play.card))
                same.setdefault(line, set()).add(f"{move.WhichOneof('kind')} {card}")
            assert all(len(kinds) == 1 for kinds in same.values()), lines
            assert "Your hand: " in render.describe_seat(seat_view(state, seat))
            ENGINE.apply(state, seat, chooser.choice(moves))
