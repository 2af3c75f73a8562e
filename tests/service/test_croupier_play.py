"""`croupier-play`'s seed: the transcript says the seed the game was created with, and `--seed`
with it plays the same game again, with and without a person at the table."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.client import Croupier
from croupier.human import play_human
from croupier.local import LocalServer
from croupier.play import main
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions

HEADER = re.compile(r"one_card: 3 players \(P0, P1, P2\), seed (\d+)\n")


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    # The bots read the public view after every move, faster than an address's default limit.
    with LocalServer(extra_args=("--anonymous-rate-limit", "0")) as running:
        yield running


def test_the_transcript_prints_the_games_seed_and_it_plays_the_game_again(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --seed the header gives the seed the game was created with (the record, read
    back once the game is over, says the same), and --seed with it prints the same transcript."""
    record = tmp_path / "game.json"
    game = ["--game", "one_card", "--players", "3", "--target", server.target]
    main([*game, "--save-record", str(record)])
    first = capsys.readouterr().out
    header = HEADER.match(first)
    assert header, first[:200]
    seed = int(header[1])
    assert int(json.loads(record.read_text())["setup"]["seed"]) == seed
    main([*game, "--seed", str(seed)])
    again = capsys.readouterr().out
    assert again == first.removesuffix(f"\nrecord saved to {record}\n")
    assert "Final standings" in again


def test_a_seed_outside_what_a_game_takes_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for seed in ("-1", str(2**64), "seven"):
        with pytest.raises(SystemExit) as exited:
            main(["--game", "one_card", "--players", "3", "--seed", seed])
        assert exited.value.code == 2
        assert "a seed is a whole number from 0 to 2**64-1" in capsys.readouterr().err


def _play_first_moves(target: str, seed: int | None) -> str:
    """A person who always takes the first move listed, to the end of a one-round game."""
    out = io.StringIO()
    with Croupier(target) as croupier:
        view = play_human(
            croupier,
            "vampire_queen",
            VampireQueenOptions(rounds=1),
            3,
            0,
            seed,
            io.StringIO("1\n" * 500),
            out,
        )
    assert view is not None and view.HasField("result"), out.getvalue()[-2000:]
    return out.getvalue()


def test_at_the_terminal_the_seed_is_shown_once_the_game_is_over(server: LocalServer) -> None:
    """While the game runs its seed would tell the person every hand: the header keeps a drawn
    seed back, the end shows it (read back from the record), and --seed with it deals the same
    game again."""
    first = _play_first_moves(server.target, None)
    header, _, rest = first.partition("\n")
    assert (
        header
        == "vampire_queen: 3 players (P0, P1, P2), seed drawn at random (shown when the game ends)"
    )
    shown = re.findall(r"\nseed (\d+): --seed (\d+) deals this game again\n", first)
    assert len(shown) == 1 and shown[0][0] == shown[0][1], first[-500:]
    seed = int(shown[0][0])
    again = _play_first_moves(server.target, seed)
    assert again == f"vampire_queen: 3 players (P0, P1, P2), seed {seed}\n{rest}"
