"""The `croupier-play` transcript: every round shows the reveal, the drafting order, who took
what, pairs discarded, and the final totals."""

from __future__ import annotations

import random

from croupier.engines.whats_your_name import ENGINE
from croupier.render import whats_your_name as render
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.whats_your_name_pb2 import (
    WhatsYourNameEvent,
    WhatsYourNameOptions,
)
from tests.engines.helpers import seat_view
from tests.engines.whats_your_name.helpers import build, c, hide, mirror, play, take

Options = WhatsYourNameOptions
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def transcript(options: Options, seats: int, seed: int) -> tuple[list[str], set[str]]:
    """Lines as the CLI prints them: each move's events as the mover receives them, then the
    spectator's table; and the event kinds seen."""
    names = NAMES[:seats]
    chooser = random.Random(seed)
    state, out = ENGINE.new_game(options, seats, seed)
    lines: list[str] = []
    kinds: set[str] = set()
    for emitted in out:
        event = emitted.for_seat(None)
        assert event is not None
        lines += render.describe_event(event, names)
    while ENGINE.result(state) is None:
        seat = chooser.choice(ENGINE.active_seats(state))
        out = ENGINE.apply(state, seat, chooser.choice(ENGINE.legal_moves(state, seat)))
        for emitted in out:
            event = emitted.for_seat(seat)
            assert event is not None
            kind = event.WhichOneof("kind") or ""
            kinds.add(kind)
            described = render.describe_event(event, names)
            assert described, f"{kind} has no transcript line"
            lines += described
        view = GameView(game_type="whats_your_name", seats=seats, display_names=names)
        view.whats_your_name.CopyFrom(ENGINE.view(state, None))
        table = render.describe_table(view)
        if table:
            lines += table.splitlines()
    return lines, kinds


def test_transcript_shows_every_round() -> None:
    lines, _ = transcript(Options(), 4, seed=3)
    text = "\n".join(lines)
    assert text.count("Reveal:") == 12
    assert text.count("Drafting order:") == 12
    assert "--- Round 13 (final): taking order" in text
    assert " takes " in text
    assert "=== Game 1 over: totals ===" in text
    assert "  1. " in text
    assert "  4. " in text
    assert "stage:" in text
    assert "priority:" in text


def test_transcript_names_the_virtual_player_and_pairs() -> None:
    for seed in range(10):
        lines, kinds = transcript(Options(), 2, seed=seed)
        text = "\n".join(lines)
        assert "Virtual player takes" in text or "sweeps" in text
        assert "Virtual player reveals" in text
        if "pair_discarded" in kinds:
            assert "discards a pair of" in text
            return
    raise AssertionError("no pair discarded in ten games")


def test_transcript_of_every_event_kind() -> None:
    everything = {f.name for f in WhatsYourNameEvent.DESCRIPTOR.oneofs_by_name["kind"].fields}
    # setup events come from new_game, before the first move; random play uses the mirror at
    # once, so its discard is checked on its own
    wanted = everything - {"setup_revealed", "priority_taken", "game_started", "mirror_discarded"}
    seen: set[str] = set()
    for seed in range(30):
        seats = 2 + seed % 3
        _, kinds = transcript(Options(hidden_card=seed % 2 == 0, match=True), seats, seed=seed)
        seen |= kinds
        if wanted <= seen:
            return
    raise AssertionError(f"never seen: {wanted - seen}")


def test_describe_mirror_discarded() -> None:
    event = WhatsYourNameEvent(mirror_discarded=WhatsYourNameEvent.MirrorDiscarded(seat=1))
    assert render.describe_event(event, NAMES[:3]) == [
        "Bob's pile is empty: the unused mirror is gone."
    ]


def test_describe_event_of_private_versions() -> None:
    _state, out = ENGINE.new_game(Options(), 3, seed=2)
    drawn = [e for e in out if e.public is not None and e.public.HasField("cards_drawn")]
    own = drawn[-1].for_seat(2)
    assert own is not None
    line = render.describe_event(own, NAMES[:3])[0]
    assert line.startswith("Cid draws 3 card(s): ")
    public = drawn[-1].public
    assert public is not None
    assert render.describe_event(public, NAMES[:3]) == ["Cid draws 3 card(s) (9 left in pile)."]


def test_moves_read_as_one_line_each() -> None:
    names = NAMES[:3]
    assert render.describe_move(play(7), names) == "play 7"
    assert render.describe_move(take(5), names) == "take 5 from the stage"
    assert render.describe_move(hide(3), names) == "hide 3 as your hidden card"
    assert render.describe_move(mirror(9), names) == (
        "use the mirror: discard it with your acquired 9"
    )


def test_seat_shows_the_hand_the_hidden_card_and_the_drafting() -> None:
    state = build(
        3,
        hands=[[9, 2, 5], [4, 6, 8], [1, 3, 7]],
        stage=[c(10, 0), c(11, 1)],
        acquired=[[c(12, 0)], [], []],
        hidden={0: 6},
    )
    text = render.describe_seat(seat_view(ENGINE, state, 0, NAMES))
    assert "everyone secretly plays a card (waiting for: Ann, Bob, Cid)" in text
    assert "Your hand: 2 5 9" in text
    assert "Your hidden card: 6" in text
    assert "Your acquired cards: 12 (total 12;" in text
    ENGINE.apply(state, 0, play(2))
    text = render.describe_seat(seat_view(ENGINE, state, 0, NAMES))
    assert "stage: 10 11" in text  # mid-round the table is not drawn: the stage comes here
    assert "Your play this round: 2 (secret until the reveal)" in text
    assert "waiting for: Bob, Cid" in text


def test_every_legal_move_has_its_own_line() -> None:
    """Different moves never read the same, and every decision shows the mover's hand."""
    chooser = random.Random(8)
    options = WhatsYourNameOptions(hidden_card=True, match=True)
    for seats in (2, 3):
        state, _ = ENGINE.new_game(options, seats, seed=seats)
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
