"""The terminal table: `croupier-play --human SEAT` driven through a real pseudo-terminal.

Each test starts `croupier-play` on a pty (it starts its own server), reads the screen as a
person would, and types into it: numbers, wrong input, Enter, q. The refusal of a move is
provoked in-process, against a real server, by offering the person a move the rules forbid.
An online table is played by two such terminals against a server of the test's own: one runs
the `--credential` line `--open-seats` printed, the other its `--join` line.
"""

from __future__ import annotations

import codecs
import io
import os
import pty
import random
import re
import select
import shlex
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

    def poll(self, pattern: str, timeout: float = 0.05) -> re.Match[str] | None:
        """`pattern` after what was already matched, if it is there within `timeout`; move past
        it. A program that ended without printing it fails the test."""
        regex = re.compile(pattern)
        match = regex.search(self.text, self.position)
        if match is None:
            if self.closed:
                pytest.fail(
                    f"no {pattern!r} before the end; the screen ends with:\n{self.text[-3000:]}"
                )
            self._read(timeout)
            match = regex.search(self.text, self.position)
        if match:
            self.position = match.end()
        return match

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


def test_two_terminals_play_an_open_table_one_leaving_and_coming_back(
    terminals: list[Terminal], tmp_path: Path
) -> None:
    """`--open-seats` prints the command lines of the table. A wrong join code is refused with
    its reason; the host's terminal runs its --credential line and waits for players; the
    guest's runs the --join line with --name, and both play, the guest once pressing Enter at
    a choice both seats make (it waits for the host). After a few decisions the guest leaves
    (q) at a move only it may make, the host's screen says it waits for the guest, and the
    guest comes back with the --credential line its join printed; both screens end in the
    same standings. The join code shows on neither screen, nor in the server's log."""
    log = tmp_path / "server.log"
    with log.open("wb") as sink, LocalServer(log_level="info", stderr=sink.fileno()) as server:

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            command = [*croupier_play(), *args]
            return subprocess.run(command, capture_output=True, text=True, timeout=PATIENCE)

        opened = run(
            "--game", "whats_your_name", "--players", "2", "--open-seats", "--name", "Ann",
            "--target", server.target,
        )  # fmt: skip
        assert opened.returncode == 0, opened.stderr
        printed = dict(line.split(None, 1) for line in opened.stdout.splitlines())
        code = printed["join"].removeprefix("code").strip()
        join = shlex.split(printed["others"].removeprefix("run"))
        mine = shlex.split(printed["you"].removeprefix("run"))
        assert join[:3] == ["croupier-play", "--join", code], join
        assert join[3:] == ["--game-name", printed["game"], "--target", server.target], join

        wrong = run("--join", "jc_not_this_one", *join[3:])
        assert wrong.returncode == 1
        assert "croupier-play: PERMISSION_DENIED JOIN_CODE_REJECTED: " in wrong.stderr
        assert "jc_not_this_one" not in wrong.stdout + wrong.stderr

        host = Terminal(*mine[1:])
        terminals.append(host)
        host.expect(r"You play Ann \(seat 0\)\.")
        host.expect(r"Waiting for players: seat 1 open; the game starts once every seat is taken\.")
        guest = Terminal(*join[1:], "--name", "Bo")
        terminals.append(guest)
        resume = guest.expect(
            r"\n  (croupier-play --credential \S+ --game-name \S+ --target \S+)\n"
        )
        guest.expect(r"You play Bo \(seat 1\)\.")
        host.expect(r"Bo took seat 1\.\nEvery seat is taken: the game begins\.")

        chooser = random.Random(5)
        seats = [host, guest]
        screens: list[Terminal] = []  # the guest's earlier terminal
        decisions = [0, 0]
        waited = False
        finished: set[int] = set()
        deadline = time.monotonic() + 240
        while len(finished) < 2:
            assert time.monotonic() < deadline, (host.text[-2000:], guest.text[-2000:])
            for seat, term in enumerate(seats):
                if seat in finished:
                    continue
                start = term.position
                match = term.poll(rf"{PROMPT}|Final standings")
                if match is None:
                    continue
                if match[0] == "Final standings":
                    finished.add(seat)
                    continue
                moves = listed_moves(term.text[start : match.start()])
                assert moves, term.text[start:]
                if seat == 1 and match["wait"] and not waited:
                    term.type("")  # the host chooses first
                    waited = True
                elif seat == 1 and decisions[1] >= 4 and not match["wait"] and not screens:
                    term.type("q")  # at a move only the guest may make: the host waits for it
                    term.expect(r"You left the table; the game is not finished\. Your seat stays")
                    assert term.wait() == 0
                    screens.append(term)
                    host.expect(r"Waiting for Bo\.\.\.\n")
                    guest = Terminal(*shlex.split(resume[1])[1:])
                    terminals.append(guest)
                    guest.expect(r"You play Bo \(seat 1\)\.")
                    seats[1] = guest
                else:
                    term.type(str(chooser.choice(moves)[0]))
                    decisions[seat] += 1
        assert host.wait() == 0 and guest.wait() == 0
    standings = host.text[host.text.index("Final standings") :]
    assert standings == guest.text[guest.text.index("Final standings") :]
    for name in ("Ann", "Bo"):
        assert re.search(rf"\n +\d\. {name} +\d+", standings), standings
    assert waited and screens, "the guest never waited, or never left"
    assert re.search(r" \d+\. Bo: Bo (chooses|takes) ", guest.text), guest.text[-2000:]
    assert "Bo chooses a card." in host.text  # the guest's secret choice, as the host sees it
    server_log = log.read_text()
    assert '"rpc": "JoinGame"' in server_log
    for text in (host.text, guest.text, screens[0].text, server_log):
        assert code not in text
