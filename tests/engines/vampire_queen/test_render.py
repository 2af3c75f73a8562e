"""The transcript renderer: every event becomes readable lines naming the players."""

from __future__ import annotations

import random

from croupier.engines.vampire_queen import ENGINE
from croupier.engines.vampire_queen.cards import typed
from croupier.render.vampire_queen import (
    describe_event,
    describe_move,
    describe_seat,
    describe_table,
)
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions
from tests.engines.helpers import seat_view
from tests.engines.vampire_queen.helpers import H20, Events, Q, pass_, play, position

NAMES = ["Oseop", "Anseok", "Jihun", "Yeongju", "Jeonghui"]


def lines_of(events: Events, seat: int | None = None) -> list[str]:
    lines: list[str] = []
    for emitted in events:
        event = emitted.for_seat(seat)
        if event is not None:
            lines.extend(describe_event(event, NAMES))
    return lines


def test_every_event_kind_reads_with_names() -> None:
    """Plays, passes, phase winners, hunts and who took the cards, round penalties, the end."""
    seen: set[str] = set()
    chooser = random.Random(4)
    state, events = ENGINE.new_game(VampireQueenOptions(rounds=2), 5, seed=4)
    everything = [*events]
    while not state.over:
        seat = state.turn
        everything.extend(
            ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
        )
    for emitted in everything:
        event = emitted.for_seat(0)
        assert event is not None
        kind = event.WhichOneof("kind") or ""
        seen.add(kind)
        lines = describe_event(event, NAMES)
        assert lines, kind
        assert not any("seat " in line for line in lines), lines
    assert {"hunters_dealt", "round_started", "phase_started", "cards_played", "passed"} <= seen
    assert {"phase_won", "round_scored", "game_over"} <= seen


def test_worked_example_transcript() -> None:
    """VQ-5.8 as a transcript: the hunt, the strengths and who took the cards."""
    state = position([[H20, 5], [2, 7], [1, 9], [2, 11], [Q, 13]])
    lines = lines_of(play(state, 0, H20))
    lines += lines_of(play(state, 1, 2)) + lines_of(play(state, 2, 1))
    lines += lines_of(play(state, 3, 2)) + lines_of(play(state, 4, Q))
    text = "\n".join(lines)
    assert "Oseop leads Hunter 20: a HUNT!" in text
    assert "Jeonghui plays Queen into the hunt (strength 1" in text
    assert "Yeongju takes the 5 hunted cards with the strongest card: 1 2 2 Queen Hunter 20" in text


def test_phase_and_table_lines() -> None:
    """VQ-3.5 as a transcript, and the table picture at the start of a phase."""
    state = position([[6, 6, 6, 2], [10, 10, 10, 4], [1, 7], [11, 11, 11, 8], [12, 13]])
    lines = lines_of(play(state, 0, 6, 6, 6)) + lines_of(play(state, 1, 10, 10, 10))
    lines += lines_of(pass_(state, 2)) + lines_of(play(state, 3, 11, 11, 11))
    lines += lines_of(pass_(state, 4))
    assert lines[0] == "Oseop plays 6 6 6 (three 6s; 1 left)"
    assert "Jihun passes" in lines
    assert "Yeongju wins the phase with three 11s; 9 card(s) go home to the grave" in lines
    view = GameView(game_type="vampire_queen", display_names=NAMES)
    view.vampire_queen.CopyFrom(ENGINE.view(state, None))
    table = describe_table(view)
    assert table is not None
    assert "Oseop 1" in table


def test_moves_read_as_one_line_each() -> None:
    """The terminal table's list of moves: the cards, what they count as, a hunt, a pass."""
    move = VampireQueenMove

    def described(*cards: int) -> str:
        return describe_move(move(play=move.PlayCards(cards=typed(cards))), NAMES)

    assert described(11, Q, 11) == "play 11 11 Queen (three 11s)"
    assert described(Q, Q) == "play Queen Queen (two Queens)"
    assert described(7) == "play 7"
    assert described(Q) == "play Queen"
    assert described(H20) == "play Hunter 20 (lead a hunt)"
    assert describe_move(move(pass_turn=move.Pass()), NAMES) == "pass"


def test_seat_shows_the_hand_and_what_to_beat() -> None:
    state = position([[6, 6, 6, 2], [10, 10, 10, 4], [1, 7], [11, 11, 11, 8], [12, 13]])
    play(state, 0, 6, 6, 6)
    text = describe_seat(seat_view(ENGINE, state, 1, NAMES))
    assert "Phase led by Oseop: Oseop 6 6 6" in text
    assert "to beat: three 6s; play three cards of a higher rank, or pass" in text
    assert "Cards in hand: Oseop 1, Anseok 4" in text
    assert text.endswith("Your hand: 4 10 10 10")
    hunt = position([[H20, 5], [2, 7], [1, 9]])
    play(hunt, 0, H20)
    text = describe_seat(seat_view(ENGINE, hunt, 1, NAMES))
    assert "HUNT led by Oseop: Oseop Hunter 20" in text
    assert "everyone plays one card" in text


def test_every_legal_move_has_its_own_line() -> None:
    """Different moves never read the same, and every decision shows the mover's hand."""
    chooser = random.Random(8)
    for seed in range(2):
        state, _ = ENGINE.new_game(VampireQueenOptions(rounds=1), 4, seed=seed)
        while not state.over:
            seat = state.turn
            moves = ENGINE.legal_moves(state, seat)
            lines = [describe_move(m, NAMES) for m in moves]
            assert len(set(lines)) == len(lines), lines
            assert all(line and "?" not in line for line in lines), lines
            assert "Your hand: " in describe_seat(seat_view(ENGINE, state, seat, NAMES))
            ENGINE.apply(state, seat, chooser.choice(moves))
