"""Worked scenarios of the One Card rules, replayed move by move: the four-player defence
chain and a catch."""

from __future__ import annotations

from croupier.engines.one_card import ENGINE
from croupier.render import one_card as render
from croupier.v1.one_card_pb2 import OneCardEvent
from tests.engines.helpers import kinds, of_kind

from .helpers import (
    catch_move,
    hand,
    play,
    play_move,
    position,
    refused,
)

Event = OneCardEvent
NAMES = ["Ann", "Ben", "Cat", "Dan"]


def transcript(events: list, seat: int | None = None) -> list[str]:  # type: ignore[type-arg]
    lines: list[str] = []
    for emitted in events:
        event = emitted.for_seat(seat)
        if event is not None:
            lines += render.describe_event(event, NAMES)
    return lines


def test_scenario_defence_chain_could_go_on_by_effect() -> None:
    """OC-4.3: the same chain, but the fourth player holds a red +3: it has the same effect as
    the blue +3 on top, so it may defend (and the total would reach 10)."""
    state = position(
        ["R+2 Y1 B2", "B+2 G4 G5", "B+3 R7 Y8", "G1 G2 R+3 W"],
        "R5",
        draw="Y3 Y4 Y5 Y6 Y7 Y9 G9 B9 B8 B7",
    )
    play(state, 0, "R+2")
    play(state, 1, "B+2")
    refused(state, 2, play_move("R7"), "OC-4.3")  # a number card facing an attack
    play(state, 2, "B+3")
    assert play_move("R+3") in ENGINE.legal_moves(state, 3)
    refused(state, 3, play_move("W", color="B"), "OC-4.3")
    events = play(state, 3, "R+3")
    played = of_kind(events, "played")[0]
    assert (played.defence, played.attack_total) == (Event.DEFENCE_SAME_EFFECT, 10)


def test_scenario_four_player_defence_chain_fourth_cannot_defend() -> None:
    """OC-4.3 (worked scenario): red +2, blue +2 by effect, blue +3 by colour; the fourth
    player holds no blue attack card and no +3, cannot defend, and draws 7."""
    state = position(
        ["R+2 Y1 B2", "B+2 G4 G5", "B+3 R7 Y8", "G1 G2 R+2 W"],
        "R5",
        draw="Y3 Y4 Y5 Y6 Y7 Y9 G9 B9 B8",
    )
    events = play(state, 0, "R+2") + play(state, 1, "B+2") + play(state, 2, "B+3")
    # Dan's red +2 matches neither the blue +3's colour nor its effect: the draw is forced
    drew = of_kind(events, "drew", 3)[0]
    assert (drew.seat, drew.owed, drew.count, drew.reason, drew.automatic) == (
        3,
        7,
        7,
        Event.DRAW_REASON_ATTACK,
        True,
    )
    assert hand(state, 3) == ["G1", "G2", "R+2", "W", "Y3", "Y4", "Y5", "Y6", "Y7", "Y9", "G9"]
    assert state.pending_attack == 0 and state.current_seat == 0
    lines = transcript(events)
    assert lines == [
        "Ann plays red +2 [2 cards left]",
        "  Attack chain: Ben faces +2",
        "Ben defends with blue +2 (same effect) [2 cards left]",
        "  Attack chain: Cat faces +4",
        "Cat defends with blue +3 (same colour) [2 cards left]",
        "  Attack chain: Dan faces +7",
        "Dan cannot defend and draws 7 cards -> 11 cards in hand",
    ]
    # Dan sees his own cards in his version of the event
    assert "yellow 3" in transcript(events, 3)[-1]


def test_scenario_catch() -> None:
    """OC-5.1 / OC-5.2 (worked scenario): Ben discards his second-to-last card and forgets
    to call; before Cat (next) moves, Dan catches him out of turn; Ben draws 2; then Cat
    plays on. A second catch attempt has nothing to catch."""
    state = position(
        ["R1 Y1 Y2", "R3 B4", "R5 G6 G7", "B1 B2 R2"], "R9", current=1, draw="G1 G2 G3 G4"
    )
    events = play(state, 1, "R3")
    assert state.catchable_seat == 1
    assert ENGINE.active_seats(state) == [0, 1, 2, 3]
    assert ENGINE.legal_moves(state, 0) == [catch_move(1)]
    assert transcript(events) == ["Ben plays red 3 [1 card left]"]
    events = ENGINE.apply(state, 3, catch_move(1))
    assert kinds(events) == ["caught", "drew"]
    assert hand(state, 1) == ["B4", "G1", "G2"]
    assert transcript(events) == [
        'Dan catches Ben, who did not call "One Card"!',
        "Ben is caught and draws 2 cards -> 3 cards in hand",
    ]
    refused(state, 0, catch_move(1), "OC-5.2")
    assert ENGINE.active_seats(state) == [2]
    play(state, 2, "R5")
    assert state.current_seat == 3
