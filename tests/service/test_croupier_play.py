"""`croupier-play`'s seed: the transcript says the seed the game was created with, and `--seed`
with it plays the same game again, with and without a person at the table. And an online
table: `--open-seats` prints the commands that play it, `--join` claims a seat with the join
code and plays it, `--credential` takes a seat up again, and what a person can correct (a wrong
join code, a full game, another game's credential, a command line that mixes flags) is refused
with its reason."""

from __future__ import annotations

import io
import json
import re
import shlex
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from croupier.client import Croupier
from croupier.human import play_human, play_seat
from croupier.local import LocalServer
from croupier.play import main, options_for
from croupier.v1 import game_service_pb2 as pb
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


# Always the first move listed, and never Enter: a person who plays every decision at once.
FIRST_MOVES = "1\n" * 500


def _open_table(
    target: str, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[str, list[str], list[str]]:
    """`croupier-play --open-seats`: the join code and the two command lines it printed (the
    one that joins, the one that plays seat 0), as argument lists without the program."""
    main(["--open-seats", "--target", target, *args])
    printed = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    code = printed["join"].removeprefix("code").strip()
    join = shlex.split(printed["others"].removeprefix("run"))
    mine = shlex.split(printed["you"].removeprefix("run"))
    assert join[:2] == ["croupier-play", "--join"] and mine[:2] == ["croupier-play", "--credential"]
    return code, join[1:], mine[1:]


def _host(target: str, seat_args: list[str]) -> tuple[Future[pb.GameView | None], io.StringIO]:
    """Seat 0 played from its --credential command line by a person who takes the first move,
    in a thread (play_seat, as that command does): its final view, and its screen."""
    flags = dict(zip(seat_args[::2], seat_args[1::2], strict=True))
    out = io.StringIO()
    pool = ThreadPoolExecutor(1)
    croupier = Croupier(target)

    def play() -> pb.GameView | None:
        try:
            return play_seat(
                croupier, flags["--game-name"], flags["--credential"], io.StringIO(FIRST_MOVES), out
            )
        finally:
            croupier.close()

    future = pool.submit(play)
    pool.shutdown(wait=False)
    deadline = time.monotonic() + 60
    while "You play " not in out.getvalue():  # its session is open: it sees every join
        if future.done():
            future.result()  # raises what the thread raised
            pytest.fail(f"seat 0 ended before its session was open:\n{out.getvalue()}")
        assert time.monotonic() < deadline, out.getvalue()
        time.sleep(0.01)
    return future, out


def _standings(text: str) -> str:
    return text[text.index("Final standings") :]


def test_an_open_table_is_joined_and_played_to_the_end(
    server: LocalServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--open-seats with a bot seat: the host plays seat 0 from the printed --credential line,
    a second croupier-play runs the printed --join line with --name and plays seat 1, and the
    server's bot seat 2; both screens end in the same standings, and the joiner's never shows
    the join code."""
    code, join, mine = _open_table(
        server.target, capsys,
        "--game", "whats_your_name", "--players", "3", "--bots", "1", "--name", "Ann",
    )  # fmt: skip
    host, host_screen = _host(server.target, mine)
    monkeypatch.setattr("sys.stdin", io.StringIO(FIRST_MOVES))
    main([*join, "--name", "Bo"])
    captured = capsys.readouterr()
    screen = captured.out
    assert re.match(r"You took seat 1 of games/\w+\. .*\n  croupier-play --credential cs_", screen)
    assert "whats_your_name: 3 players (Ann, Bo, seat 2), game games/" in screen
    assert "You play Bo (seat 1).\nThe server's bots play seat 2.\n" in screen
    assert re.search(r" \d+\. Bo: Bo takes \d+\.\n", screen), screen[-3000:]
    assert "Ann chooses a card." in screen  # the others' moves, as seat 1 sees them
    view = host.result(timeout=120)
    assert view is not None and view.HasField("result")
    assert "Bo took seat 1.\nEvery seat is taken: the game begins.\n" in host_screen.getvalue()
    standings = _standings(screen)
    assert re.search(r"\n +1\. (Ann|Bo|seat 2) +\d+ +winner\n", standings), standings
    assert all(name in standings for name in ("Ann", "Bo", "seat 2"))
    assert code not in screen + captured.err


def test_a_credential_takes_a_seat_up_again(
    server: LocalServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The joiner plays two decisions and leaves (q); the --credential line printed at the
    join takes the seat up again where the game is, and plays it to the end with the host."""
    _, join, mine = _open_table(
        server.target, capsys, "--game", "whats_your_name", "--players", "2"
    )
    host, _ = _host(server.target, mine)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\nq\n"))
    main(join)
    left = capsys.readouterr().out
    assert "You left the table; the game is not finished. Your seat stays yours" in left
    assert "Final standings" not in left
    resume = re.search(r"\n  (croupier-play --credential .+)\n", left)
    assert resume, left[:500]
    monkeypatch.setattr("sys.stdin", io.StringIO(FIRST_MOVES))
    main(shlex.split(resume[1])[1:])
    again = capsys.readouterr().out
    assert again.startswith("whats_your_name: 2 players (seat 0, seat 1), game games/"), again[:200]
    assert "You play seat 1 (seat 1)." in again
    first = re.findall(r"\n +(\d+)\. ", again)
    assert first and int(first[0]) > 2, again[:3000]  # the game as it is, not from the start
    view = host.result(timeout=120)
    assert view is not None and view.HasField("result")
    assert "Final standings" in again


def test_what_a_person_can_correct_is_refused_with_its_reason(
    server: LocalServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrong join code (its reason, and the code never echoed), a full game, and a seat
    credential given with another game's name: exit status 1 and the service's reason."""
    with Croupier(server.target) as croupier:
        game = croupier.create(options_for("one_card"), 2, player_ids=["host", ""], open_seats=True)
        other = croupier.create(options_for("whats_your_name"), 2)  # both seats choose first
        target = ["--target", server.target]

        def refused(*args: str) -> str:
            with pytest.raises(SystemExit) as exited:
                main([*args, *target])
            assert exited.value.code == 1, args
            captured = capsys.readouterr()
            assert "Traceback" not in captured.err
            return captured.out + captured.err

        wrong = "jc_" + "x" * 32
        said = refused("--join", wrong, "--game-name", game.name)
        assert "croupier-play: PERMISSION_DENIED JOIN_CODE_REJECTED: the join code is not" in said
        assert wrong not in said
        croupier.join(game.name, game.join_code)
        said = refused("--join", game.join_code, "--game-name", game.name)
        assert "FAILED_PRECONDITION GAME_FULL: every seat of this game is taken" in said
        assert game.join_code not in said
        said = refused("--credential", game.seat_credentials[0], "--game-name", other.name)
        assert "PERMISSION_DENIED CREDENTIAL_REJECTED" in said
        # The game's bare id is its name too.
        monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
        main(["--credential", other.seat_credentials[1], "--game-name", other.name[6:], *target])
        assert f"whats_your_name: 2 players (seat 0, seat 1), game {other.name}\n" in (
            capsys.readouterr().out
        )


def test_join_and_credential_command_lines_that_cannot_work_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = "games/" + "0" * 24
    cases = [
        (["--join", "jc_x", "--target", "h:1"], "--join needs --game-name games/ID"),
        (["--credential", "cs_x", "--game-name", name], "--credential needs --target HOST:PORT"),
        (
            ["--join", "jc_x", "--credential", "cs_x", "--game-name", name, "--target", "h:1"],
            "give --join CODE (to claim a seat) or --credential CREDENTIAL, not both",
        ),
        (
            ["--join", "jc_x", "--game-name", name, "--target", "h:1", "--game", "one_card"],
            "--join plays a seat of a game that exists: leave out --game",
        ),
        (
            ["--credential", "cs_x", "--game-name", name, "--target", "h:1", "--name", "Bo"],
            "leave out --name (a seat's name and player id are set when it is claimed)",
        ),
        (
            ["--open-seats", "--game", "one_card", "--players", "2", "--bots", "1",
             "--target", "h:1"],
            "give --bots from 0 to 0",
        ),
    ]  # fmt: skip
    for args, message in cases:
        with pytest.raises(SystemExit) as exited:
            main(args)
        assert exited.value.code == 2, args
        err = capsys.readouterr().err
        assert message in err, (args, err)
        assert "jc_x" not in err
