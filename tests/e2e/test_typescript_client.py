"""The TypeScript client (clients/typescript, Connect for Node over gRPC) against the real
Python server: it type-checks against the code generated from protos/ now, plays a complete
game of every game in the registry with one seat watching, and reads every kind of refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from croupier.client import Croupier
from croupier.local import LocalServer
from engines.registry import GAMES
from tests.e2e.helpers import check_refusals, run_node, run_script


def test_typescript_typechecks(typescript: Path) -> None:
    """The wrapper, the examples and the test scripts compile against the generated code."""
    run_node("npm", "run", "--silent", "typecheck", timeout=120)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_typescript_client_plays_a_complete_game(
    game: str, typescript: Path, grpc_server: LocalServer
) -> None:
    """Random legal play to the end (a seat drawn among the active seats, a move among its
    ListLegalMoves), while the last seat watches through WatchGame until the result."""
    seats = GAMES[game].min_seats
    watch_seat = seats - 1
    summary = run_script(
        "examples/play.ts",
        "--target", grpc_server.target,
        "--game", game,
        "--seats", str(seats),
        "--seed", "11",
        "--watch-seat", str(watch_seat),
    )  # fmt: skip
    moves = summary["moves"]
    assert moves > 0
    assert summary["moveCount"] == moves
    assert summary["resultSeats"] > 0
    assert summary["activeSeatsAtEnd"] == 0
    assert summary["spectatorHasResult"]
    assert summary["spectatorMoveCount"] == moves

    # The watch: the view at the start, then views in move order, ending with the result.
    counts = summary["watchMoveCounts"]
    assert counts[0] == 0
    assert counts == sorted(set(counts)), "watch views out of order or repeated"
    assert summary["watchViewerSeat"] == watch_seat
    assert summary["watchSawResult"], "the watch ended without the final result"
    assert summary["watchFinalMoveCount"] == moves
    assert counts == list(range(moves + 1)), "the watch missed a move"

    # A resume from the middle (sinceEtag): every later move again, the same messages.
    middle = summary["resumedFromMoveCount"]
    assert summary["resumedMoveCounts"] == list(range(middle + 1, moves + 1))
    assert summary["resumedSameAsLive"]

    # A move after the end is refused, with the reason and the rule.
    code, reason, *rule = summary["refusalAfterEnd"].split()
    assert (code, reason) == ("FAILED_PRECONDITION", "ILLEGAL_MOVE")
    assert len(rule) == 1, "the refusal carries no rule id"

    # What the TypeScript client did is what the Python client reads.
    with Croupier(grpc_server.target) as croupier:
        view = croupier.get(summary["name"])
    assert view.game_type == game
    assert view.move_count == moves
    assert view.HasField("result")


def test_typescript_client_errors(typescript: Path, grpc_server: LocalServer) -> None:
    """Each refusal arrives as a CroupierError with the gRPC code, the ErrorInfo reason, the
    ErrorInfo metadata, BadRequest field violations and the PreconditionFailure rule id,
    decoded from grpc-status-details-bin."""
    seen = run_script("test/errors.ts", "--target", grpc_server.target, "--game", "vampire_queen")
    check_refusals(seen)
