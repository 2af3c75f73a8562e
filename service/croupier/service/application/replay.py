"""Replaying a game's record (GetGameRecord) through the rule engines, offline.

A record file is the protobuf JSON of `croupier.v1.GameRecord` (croupier.records), as `croupier-play
--save-record FILE` writes it: `croupier-play --replay FILE` runs `python -m
croupier.service.application.replay FILE`, which applies every move from the recorded setup and seed
and checks that the game ends in the recorded result (exit status 1 otherwise; a forfeit after the
last move ends it as the service did: engines/croupier/engines/core/scoring.forfeit_result). It
lives with the server because it needs the engines, which the client distribution does not carry.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from google.protobuf import json_format

from croupier.engines.core.errors import IllegalMove, MalformedMove
from croupier.engines.core.scoring import forfeit_result
from croupier.engines.registry import GAMES
from croupier.play import print_result
from croupier.records import load_record
from croupier.render import describe_event
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.common_pb2 import GameResult


class ReplayMismatch(Exception):
    """The record does not replay: a move the rules refuse, or another result."""


def replay(record: pb.GameRecord, out: TextIO | None = None) -> GameResult:
    """Apply the record's moves to a new game of its setup; the result reached, checked
    against the recorded one (ReplayMismatch otherwise). With `out`, print the transcript."""
    game_type = record.setup.WhichOneof("options")
    if game_type is None or game_type not in GAMES:
        raise ReplayMismatch("the record names no game")
    engine = GAMES[game_type]
    setup = record.setup
    state, _ = engine.new_game(getattr(setup, game_type), setup.seats, setup.seed)
    names = list(setup.display_names) or [f"P{seat}" for seat in range(setup.seats)]
    names = [name or f"P{seat}" for seat, name in enumerate(names)]
    for number, recorded in enumerate(record.moves, start=1):
        if engine.result(state) is not None:
            raise ReplayMismatch(f"move {number}: the game was already over")
        move = recorded.move
        if move.WhichOneof("game") != game_type:
            raise ReplayMismatch(f"move {number} is not a move of {game_type}")
        try:
            emitted = engine.apply(state, recorded.seat, getattr(move, game_type))
        except (IllegalMove, MalformedMove) as error:
            raise ReplayMismatch(f"move {number}: {error}") from None
        if out is not None:
            lines = []
            for item in emitted:
                if item.public is not None:
                    event = pb.Event()
                    getattr(event, game_type).CopyFrom(item.public)
                    lines += describe_event(game_type, event, names)
            text = "\n      ".join(lines) or "(nothing public)"
            print(f"{number:4d}. {names[recorded.seat]}: {text}", file=out)
    result = engine.result(state)
    if record.HasField("forfeit"):
        # The game ended after its last move when a seat's deadline passed (FORFEIT).
        if result is not None:
            raise ReplayMismatch("the record's forfeit comes after the game was over")
        seat = record.forfeit.seat
        if not 0 <= seat < setup.seats:
            raise ReplayMismatch(f"the record's forfeit names no seat ({seat})")
        result = forfeit_result(setup.seats, seat, cooperative=engine.cooperative)
        if out is not None:
            print(f"      {names[seat]} forfeited: the deadline passed", file=out)
    if result is None:
        raise ReplayMismatch(f"after {len(record.moves)} moves the game is not over")
    if result.SerializeToString(deterministic=True) != record.result.SerializeToString(
        deterministic=True
    ):
        raise ReplayMismatch("the replay ends in another result than the recorded one")
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m croupier.service.application.replay FILE`: the transcript, then the result (exit
    status 1 when the record does not replay)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        raise SystemExit("usage: python -m croupier.service.application.replay RECORD.json")
    path = Path(args[0])
    try:
        record = load_record(path)
        names = [name or f"P{seat}" for seat, name in enumerate(record.setup.display_names)] or [
            f"P{seat}" for seat in range(record.setup.seats)
        ]
        print(f"{record.name}: {len(record.moves)} moves, seed {record.setup.seed}")
        result = replay(record, sys.stdout)
    except (OSError, json_format.ParseError) as error:
        print(f"croupier-play: cannot read {path}: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except ReplayMismatch as error:
        print(f"croupier-play: the record does not replay: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    print_result(pb.GameView(result=result), names, sys.stdout)
    print("\nthe replay ends in the recorded result")


if __name__ == "__main__":
    main()
