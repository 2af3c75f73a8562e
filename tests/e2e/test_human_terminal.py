"""The terminal table: `croupier-play --human SEAT` driven through a real pseudo-terminal.

Each test starts `croupier-play` on a pty (it starts its own server), reads the screen as a
person would, and types into it: numbers, wrong input, Enter, q. The refusal of a move is
provoked in-process, against a real server, by offering the person a move the rules forbid.
"""

from __future__ import annotations

import codecs
import io
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.client import Croupier, Session
from croupier.human import play_human
from croupier.local import LocalServer
from croupier.play import main, options_for, set_option
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.one_card_pb2 import OneCardDeck, OneCardOptions
from croupier.v1.trinity_pb2 import TrinityOptions, TrinityRow
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"Your move \[(?P<range>[^\],]*)(?P<wait>, Enter = let the others act)?[^\]]*\]> "
MOVE_LINE = re.compile(r"^\s+(\d+)\) (.+)$", re.MULTILINE)
# How long the program may take to print what a test waits for (croupier-play starts a server
# of its own first): generous, for a machine whose cores are busy with other work.
PATIENCE = 60.0


def croupier_play() -> list[str]:
    """The installed `croupier-play` next to this Python, else the module."""
    script = Path(sys.executable).parent / "croupier-play"
    return [str(script)] if script.exists() else [sys.executable, "-m", "croupier.play"]


def listed_moves(screen: str) -> list[tuple[int, str]]:
    """The numbered moves of the last list on the screen."""
    listed = screen.rsplit("Your moves:", 1)[-1] if "Your moves:" in screen else ""
    return [(int(number), text) for number, text in MOVE_LINE.findall(listed)]


class Terminal:
    """A program on a pseudo-terminal: everything it printed (echoed typing included), and a
    keyboard."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [*croupier_play(), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            start_new_session=True,  # its own process group: the server it starts goes with it
        )
        os.close(slave)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.text = ""
        self.position = 0
        self.closed = False

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program ended and the terminal hung up
            data = b""
        if not data:
            self.closed = True
        self.text += self._decoder.decode(data, final=not data).replace("\r", "")

    def expect(self, pattern: str, timeout: float = PATIENCE) -> re.Match[str]:
        """Wait for `pattern` after what was already matched; move past it."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.text, self.position)
            if match:
                self.position = match.end()
                return match
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                tail = self.text[-3000:]
                pytest.fail(f"no {pattern!r} on the screen; it ends with:\n{tail}")
            self._read(left)

    def prompt(self) -> tuple[str, re.Match[str], list[tuple[int, str]]]:
        """Wait for the move prompt: the screen since the last match, the prompt, and the
        numbered moves drawn on it."""
        start = self.position
        match = self.expect(PROMPT)
        screen = self.text[start : match.start()]
        return screen, match, listed_moves(screen)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode() + b"\r")

    def wait(self, timeout: float = PATIENCE) -> int:
        """Read to the end; the exit status."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._read(deadline - time.monotonic())
        return self.process.wait(timeout=max(deadline - time.monotonic(), 1.0))

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=PATIENCE)
        os.close(self.master)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.close()


def test_a_whole_game_at_the_terminal_table(terminals: list[Terminal]) -> None:
    """Vampire Queen, 3 players, 1 round: the screen, wrong input, then numbers to the end."""
    term = Terminal(
        "--game", "vampire_queen", "--players", "3", "--human", "0", "--option", "rounds=1",
        "--seed", "7",
    )  # fmt: skip
    terminals.append(term)
    term.expect(r"You play P0 \(seat 0\); the other seats are bots\.")
    screen, prompt, moves = term.prompt()
    assert "===== P0 (you), your move =====" in screen
    assert "Round 1 of 1 | penalties so far: P0 0, P1 0, P2 0" in screen
    assert re.search(r"Your hand: (\d+|Queen|Hunter \d+)( (\d+|Queen|Hunter \d+))*\n", screen)
    assert moves
    assert [number for number, _ in moves] == list(range(1, len(moves) + 1))
    assert all(re.fullmatch(r"pass|play .+", text) for _, text in moves), moves
    assert prompt["wait"] is None  # one seat acts at a time: no Enter to let others act

    term.type("abc")
    term.expect(rf"'abc' is not a move number: type a number from 1 to {len(moves)}")
    term.prompt()
    term.type("99")
    term.expect(rf"There is no move 99: type a number from 1 to {len(moves)}\.")
    term.prompt()
    term.type("?")
    term.expect(r"How to play: type the number of a move")
    term.prompt()

    chooser = random.Random(3)
    decisions = 0
    while True:
        number, text = chooser.choice(moves)
        term.type(str(number))
        if text == "pass":
            term.expect(r"\d+\. P0: P0 passes")
        else:
            cards = text.removeprefix("play ").split(" (")[0]
            term.expect(rf"\d+\. P0: P0 (plays|leads) {re.escape(cards)}\b")
        decisions += 1
        mark = term.position
        ending = term.expect(rf"{PROMPT}|Final standings")
        if ending[0] == "Final standings":
            break
        screen = term.text[mark : ending.start()]
        moves = listed_moves(screen)
        assert "===== P0 (you), your move =====" in screen, screen
        assert "Your hand: " in screen and moves, screen
        assert decisions < 200
    term.expect(r"\n +1\. P\d +\d+ +winner\n")
    term.expect(r"\n +\d\. P\d +\d+")
    assert term.wait() == 0
    for seat in ("P0", "P1", "P2"):
        assert re.search(rf"\n +\d\. {seat} +\d+", term.text[term.text.index("Final standings") :])


def test_simultaneous_choice_enter_lets_a_bot_act_then_quit(terminals: list[Terminal]) -> None:
    """What's Your Name?: every seat chooses at once, so Enter lets a bot choose first; q quits."""
    term = Terminal("--game", "whats_your_name", "--players", "3", "--human", "0", "--seed", "2")
    terminals.append(term)
    screen, prompt, moves = term.prompt()
    assert "you may move now; other seats may too" in screen
    assert "waiting for: P0, P1, P2" in screen
    assert prompt["wait"] is not None
    assert all(re.fullmatch(r"play \d+", text) for _, text in moves), moves
    term.type("")
    bot = term.expect(r"\d+\. (P[12]): P[12] chooses a card\.")[1]
    screen, prompt, _ = term.prompt()
    assert "waiting for: " in screen and bot not in screen.split("waiting for: ")[1].split(")")[0]
    term.type("q")
    term.expect(r"You left the table; the game is not finished\.")
    assert term.wait() == 0


def test_bad_command_lines_are_refused_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    """--human needs a seat of the game and exactly the other seats as bots."""
    cases = [
        (["--human", "3", "--players", "3"], "--human is a seat from 0 to 2"),
        (["--human", "0", "--players", "3", "--bots", "3"], "give --bots 2"),
        (["--players", "3", "--bots", "2"], "or --human SEAT"),
        (["--human", "0", "--players", "3", "--option", "rounds"], "KEY=VALUE"),
        (["--human", "0", "--players", "3", "--option", "round=1"], "no field 'round'"),
    ]
    for args, message in cases:
        with pytest.raises(SystemExit) as exited:
            main(["--game", "vampire_queen", *args])
        assert exited.value.code == 2, args
        assert message in capsys.readouterr().err, args


def test_options_from_the_command_line() -> None:
    vampire = options_for("vampire_queen")
    set_option(vampire, "rounds=1")
    set_option(vampire, "deal_all=yes")
    assert vampire == VampireQueenOptions(rounds=1, deal_all=True)
    trinity = options_for("trinity")
    set_option(trinity, "rows=K,TRINITY_ROW_J,2")
    row = TrinityRow
    assert trinity == TrinityOptions(rows=[row.TRINITY_ROW_K, row.TRINITY_ROW_J, row.TRINITY_ROW_Q])
    one_card = options_for("one_card")
    set_option(one_card, "deck.rainbows=2")
    set_option(one_card, "dealer_seat=1")
    assert one_card == OneCardOptions(deck=OneCardDeck(rainbows=2), dealer_seat=1)
    for wrong, message in [
        ("rounds=many", "rounds is a whole number"),
        ("deal_all=maybe", "deal_all is true or false"),
        ("deck=2", "no field 'deck'"),
    ]:
        with pytest.raises(ValueError, match=message):
            set_option(options_for("vampire_queen"), wrong)
    with pytest.raises(ValueError, match="is a message"):
        set_option(options_for("one_card"), "deck=2")
    with pytest.raises(SystemExit):
        main(["--game", "trinity", "--players", "3", "--option", "rows=X"])


class OffersAnIllegalMove(Croupier):
    """A client whose sessions' views list, first, a pass for every seat that may act: refused
    when the seat leads."""

    def session(self, name: str, credential: str, *, since_etag: str = "") -> Session:
        session = super().session(name, credential, since_etag=since_etag)
        read = session.next_update
        passing = pb.Move(vampire_queen=VampireQueenMove(pass_turn=VampireQueenMove.Pass()))

        def next_update(timeout: float | None = None) -> pb.GameUpdate | None:
            update = read(timeout)
            if update is not None and update.view.legal_moves:
                moves = [passing, *update.view.legal_moves]
                del update.view.legal_moves[:]
                update.view.legal_moves.extend(moves)
            return update

        session.next_update = next_update  # type: ignore[method-assign]
        return session


def test_a_refused_move_prints_the_reason_and_asks_again() -> None:
    """The person leads (Hunter 20 goes to the seat after first_hunter_seat) and chooses the
    pass slipped into the list: the service refuses it (VQ-3.1) and the prompt comes back."""
    out = io.StringIO()
    with LocalServer() as server, OffersAnIllegalMove(server.target) as croupier:
        view = play_human(
            croupier,
            "vampire_queen",
            VampireQueenOptions(rounds=1, first_hunter_seat=2),
            3,
            0,
            5,
            io.StringIO("1\nq\n"),
            out,
        )
    assert view is None
    text = out.getvalue()
    refused = re.search(r"Refused: ILLEGAL_MOVE, rule VQ-3\.1: the leader must play.*\n", text)
    assert refused, text
    after = text[refused.end() :]
    assert after.startswith("Your move [1-"), after
    assert "You left the table" in after
