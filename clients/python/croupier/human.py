"""The terminal table: one person plays one seat against bots (`croupier-play --human SEAT`).

Before each of the person's decisions the screen shows the public table (`describe_table`), the
seat's own part and what the decision needs (`describe_seat`) and the legal moves numbered, one
readable line each (`describe_move`). The person types a number; a refused move prints the
service's reason, rule id and message and asks again.

Who acts when:
- the person has no move: the bots play (one random active bot seat at a time) until the person
  has one or the game ends;
- the person is the only seat that may act: they must choose (or quit);
- the person may act and so may bots (a simultaneous choice, or an out-of-turn move such as a
  catch or the mirror): the person chooses, or presses Enter alone to let one bot act first, and
  is asked again after it.

Every move, the person's and the bots', is printed as in `croupier-play`'s transcript, with the
events as the person's seat sees them (read from the person's session), so the bots' hands and
draws stay hidden. Each seat plays through a PlayGame session of its own, its moves chosen from
its view's legal moves.

`play_seat` plays one seat of a game that exists, on any server (`croupier-play --join CODE` or
`--credential CREDENTIAL`, with `--game-name`): the person answers as above, and the other seats
are people elsewhere or the server's bots. Only the person's PlayGame session is open; it brings
the others' moves as they are made (printed at once while the person has no move, else after
their answer), the seats claimed while the game waits for players, and the end. Enter alone
waits for the next move; `q` leaves the table and keeps the seat, which the credential takes up
again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from google.protobuf.message import Message

from croupier.bots import RandomBot, new_seed
from croupier.client import Croupier, MoveResult, Session
from croupier.errors import CroupierError
from croupier.render import describe_event, describe_move, describe_seat, describe_table
from croupier.render.names import seat_name
from croupier.seats import UPDATE_TIMEOUT, SessionSeats
from croupier.v1 import game_service_pb2 as pb

MAX_MOVES = 50_000

HELP = (
    "How to play: type the number of a move and press Enter; ? shows this help, q quits.\n"
    "While you have no move the bots play. When other seats may move now too (everyone chooses\n"
    "at once, or you have an out-of-turn move such as a catch), Enter alone lets one of them act\n"
    "first; you are asked again after each move."
)

SEAT_HELP = (
    "How to play: type the number of a move and press Enter; ? shows this help, q (or Ctrl-C\n"
    "while you wait) leaves the table, and your seat stays yours: --credential takes it up again.\n"
    "While you have no move the other seats play, and their moves print as they come. When\n"
    "other seats may move now too, Enter alone waits for the next move; you are asked again\n"
    "after each move."
)

# How long the next move may take before the screen says who it waits for.
QUIET_SECONDS = 0.5


@dataclass
class _Quit:
    pass


@dataclass
class _LetOthersAct:
    pass


Choice = int | _Quit | _LetOthersAct


class _Watch:
    """The person's session as the screen reads it: the view after every move and the events
    as their seat sees them."""

    def __init__(self, session: Session) -> None:
        self._session = session
        first = session.next_update(UPDATE_TIMEOUT)
        if first is None:
            raise RuntimeError(f"{session.name}: the session ended before its first view")
        self.view = first.view

    def follow(self, etag: str, game: str, names: Sequence[str]) -> list[str]:
        """Read up to the view at `etag` (a move's); the lines of the events seen."""
        lines: list[str] = []
        while self.view.etag != etag:
            update = self._session.next_update(UPDATE_TIMEOUT)
            if update is None:  # the session ended with the game, after its final view
                break
            lines += [
                line for event in update.events for line in describe_event(game, event, names)
            ]
            self.view = update.view
        return lines


def _ask(inp: TextIO, out: TextIO, count: int, may_wait: bool, help_text: str = HELP) -> Choice:
    """Read one answer: a move number (1-based), Enter to let the others act, or q."""
    wait = ", Enter = let the others act" if may_wait else ""
    numbers = "1" if count == 1 else f"1-{count}"
    prompt = f"Your move [{numbers}{wait}, ? = help, q = quit]> "
    while True:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:  # end of input
            out.write("\n")
            return _Quit()
        text = line.strip()
        if text.lower() in ("q", "quit", "exit"):
            return _Quit()
        if text in ("?", "h", "help"):
            print(help_text, file=out)
            continue
        if not text:
            if may_wait:
                return _LetOthersAct()
            print(f"It is your move: type a number from 1 to {count}.", file=out)
            continue
        if not text.isdigit():
            print(
                f"'{text}' is not a move number: type a number from 1 to {count}"
                " (? = help, q = quit).",
                file=out,
            )
            continue
        number = int(text)
        if not 1 <= number <= count:
            print(f"There is no move {number}: type a number from 1 to {count}.", file=out)
            continue
        return number - 1


def refusal(error: CroupierError) -> str:
    """A refused move for people: `Refused: ILLEGAL_MOVE, rule VQ-3.2: <message>`."""
    rule = f", rule {error.rule_id}" if error.rule_id else ""
    message = error.message
    if error.rule_id and message.startswith(f"{error.rule_id}: "):
        message = message.removeprefix(f"{error.rule_id}: ")
    return f"Refused: {error.reason}{rule}: {message}"


def describe_clock(view: pb.GameView, names: Sequence[str], now: float) -> str:
    """The turn clock: seconds left for each seat that must act (and its time bank, with
    banks), then the seats that are away (played by the server's bot until they move again);
    empty without a clock."""
    if not view.clock_seconds:
        return ""

    def who(seat: int) -> str:
        return f"{names[seat]}{' (you)' if seat == view.viewer_seat else ''}"

    left = []
    for d in view.deadlines:
        text = f"{who(d.seat)} {max(0.0, d.deadline.ToMilliseconds() / 1000 - now):.0f} s left"
        if view.time_bank_ms:
            text += f" (bank {view.time_bank_ms[d.seat] / 1000:.0f} s)"
        left.append(text)
    line = f"Clock ({view.clock_seconds} s a move, then the server's bot moves): " + ", ".join(
        left or ["nobody must act"]
    )
    away = [who(seat) for seat, flag in enumerate(view.away) if flag]
    if away:
        line += "; away (the server's bot plays them): " + ", ".join(away)
    return line


def _screen(
    view: pb.GameView, descriptions: Sequence[str], names: Sequence[str], alone: bool
) -> str:
    what = "your move" if alone else "you may move now; other seats may too"
    lines = [f"\n===== {names[view.viewer_seat]} (you), {what} ====="]
    clock = describe_clock(view, names, time.time())
    if clock:
        lines.append(clock)
    table = describe_table(view)
    if table:
        lines.append(table)
    own = describe_seat(view)
    if own:
        lines.append(own)
    lines.append("Your moves:")
    width = len(str(len(descriptions)))
    lines += [f"  {number:>{width}}) {text}" for number, text in enumerate(descriptions, 1)]
    return "\n".join(lines)


def play_human(
    croupier: Croupier,
    game: str,
    options: Message,
    players: int,
    human: int,
    seed: int | None,
    inp: TextIO,
    out: TextIO,
    names: Sequence[str] = (),
    clock_seconds: int = 0,
    abandon_after: int = 0,
    time_bank: int = 0,
) -> pb.GameView | None:
    """Play one game with a person on seat `human` (answering on `inp`) and random bots on the
    other seats; print everything on `out`. The final view, or None when the person quits.
    `clock_seconds`: a turn clock (the screen shows the seconds left), with `abandon_after`
    and a `time_bank` in seconds (docs/api.md, "Turn clocks")."""
    names = list(names) or [f"P{seat}" for seat in range(players)]
    clock = None
    if clock_seconds or abandon_after or time_bank:
        clock = pb.Clock(
            seconds_per_decision=clock_seconds,
            abandon_after=abandon_after,
            time_bank_seconds=time_bank,
        )
    # Drawn here when not given, for the bots to draw from it from the first move; shown only
    # once the game is over (read back from its record), as the server keeps any seed secret
    # until then: a seed tells every hand.
    shown = "drawn at random (shown when the game ends)" if seed is None else str(seed)
    seed = new_seed() if seed is None else seed
    created = croupier.create(options, players, display_names=names, seed=seed, clock=clock)
    credentials = list(created.seat_credentials)
    bot = RandomBot(seed)
    print(f"{game}: {players} players ({', '.join(names)}), seed {shown}", file=out)
    print(f"You play {names[human]} (seat {human}); the other seats are bots.", file=out)
    print(HELP, file=out)
    with SessionSeats(croupier, created.name, credentials) as seats:
        watch = _Watch(seats[human])
        for _ in range(MAX_MOVES):
            view = watch.view
            if view.HasField("result"):
                break
            active = list(view.active_seats)
            bots = [seat for seat in active if seat != human]
            if human in active:
                choice = _human_turn(seats[human], view, names, bots, inp, out)
                if isinstance(choice, _Quit):
                    print("You left the table; the game is not finished.", file=out)
                    return None
                if isinstance(choice, MoveResult):
                    _print_move(watch, choice.etag, game, names, human, out)
                    continue
            if not bots:
                raise RuntimeError(f"no seat may move in {created.name}, yet it is not over")
            seat = bot.choose(bots)
            move = bot.choose(seats.legal_moves(seat, view.move_count))
            update = seats.move(seat, move)
            _print_move(watch, update.view.etag, game, names, seat, out)
        view = watch.view
    table = describe_table(view)
    if table:
        print(table, file=out)
    if view.HasField("result"):
        played = croupier.record(created.name, credentials[human]).setup.seed
        print(f"\nseed {played}: --seed {played} deals this game again", file=out)
    return view


def _print_move(
    watch: _Watch,
    etag: str,
    game: str,
    names: Sequence[str],
    seat: int,
    out: TextIO,
) -> None:
    """Print the move that made the game's etag `etag`, with the moves before it that the
    screen has not shown (the server's bot's, on a turn clock)."""
    lines = watch.follow(etag, game, names)
    text = "\n      ".join(lines) or "(nothing visible)"
    print(f"{watch.view.move_count:4d}. {names[seat]}: {text}", file=out)


def _human_turn(
    session: Session,
    view: pb.GameView,
    names: Sequence[str],
    bots: Sequence[int],
    inp: TextIO,
    out: TextIO,
) -> MoveResult | _Quit | _LetOthersAct:
    """Draw the screen, ask, apply the chosen move; ask again after a refusal."""
    moves, descriptions = _choices(view, names)
    if not moves:
        return _LetOthersAct()
    print(_screen(view, descriptions, names, alone=not bots), file=out)
    while True:
        choice = _ask(inp, out, len(moves), may_wait=bool(bots))
        if not isinstance(choice, int):
            return choice
        try:
            return session.move(moves[choice])
        except CroupierError as error:
            print(refusal(error), file=out)


def _choices(view: pb.GameView, names: Sequence[str]) -> tuple[list[pb.Move], list[str]]:
    """The view's legal moves as the person chooses among them, each with its line."""
    moves: list[pb.Move] = []
    descriptions: list[str] = []
    for move in view.legal_moves:
        text = describe_move(view.game_type, move, names)
        if text not in descriptions:  # e.g. two copies of one card: one choice
            moves.append(move)
            descriptions.append(text)
    return moves, descriptions


def seat_names(view: pb.GameView) -> list[str]:
    """Each seat's name as the view's tables show it: its display name, else `seat N`."""
    return [seat_name(view.display_names, seat) for seat in range(view.seats)]


def _listed(seats: Sequence[int]) -> str:
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


class _OnlineTable:
    """One seat's session of a game as the screen shows it: each update printed as it is read
    (the move and its events as the seat sees them, the seats claimed or freed, the start)."""

    def __init__(self, session: Session, out: TextIO) -> None:
        self._session = session
        self._out = out
        first = session.next_update(UPDATE_TIMEOUT)
        if first is None:
            raise RuntimeError(f"{session.name}: the session ended before its first view")
        self.view = first.view
        self.seat = first.view.viewer_seat
        self.names = seat_names(self.view)
        # The etags of the person's own moves: the updates they made show the person moving.
        self.mine: set[str] = set()

    def read(self, timeout: float | None = None) -> bool:
        """Read and print the next update (waiting as long as it takes: the other seats may be
        people); False once the session is over."""
        update = self._session.next_update(timeout)
        if update is None:
            return False
        self._show(update)
        return True

    def wait(self) -> bool:
        """Wait for the next update; say what it waits for when it does not come at once."""
        try:
            return self.read(QUIET_SECONDS)
        except TimeoutError:
            pass
        view = self.view
        if view.status == pb.GAME_STATUS_WAITING:
            text = (
                f"Waiting for players: {_listed(view.open_seats)} open; the game starts once"
                " every seat is taken."
            )
        else:
            others = [self.names[seat] for seat in view.active_seats if seat != self.seat]
            text = f"Waiting for {', '.join(others) or 'the next move'}..."
        print(text, file=self._out, flush=True)
        return self.read()

    def _show(self, update: pb.GameUpdate) -> None:
        before, after = self.view, update.view
        self.view = after
        self.names = names = seat_names(after)
        out = self._out
        for seat in before.open_seats:
            if seat not in after.open_seats:
                joined = after.display_names[seat] if seat < len(after.display_names) else ""
                text = f"{joined} took seat {seat}." if joined else f"Seat {seat} is taken."
                print(text, file=out)
        for seat in after.open_seats:
            if seat not in before.open_seats:
                print(f"Seat {seat} is open again.", file=out)
        if after.move_count > before.move_count:
            lines = [
                line
                for event in update.events
                for line in describe_event(after.game_type, event, names)
            ]
            mover = None
            if after.etag in self.mine:
                mover = self.seat
            elif len(before.active_seats) == 1:
                mover = before.active_seats[0]
            who = f"{names[mover]}: " if mover is not None else ""
            text = "\n      ".join(lines) or "(nothing visible)"
            print(f"{after.move_count:4d}. {who}{text}", file=out)
        if before.status == pb.GAME_STATUS_WAITING and after.status == pb.GAME_STATUS_ACTIVE:
            print("Every seat is taken: the game begins.", file=out)
        out.flush()


def play_seat(
    croupier: Croupier, name: str, credential: str, inp: TextIO, out: TextIO
) -> pb.GameView | None:
    """Play the seat of game `name` that `credential` is for: the person answers on `inp`,
    everything prints on `out`, and the other seats are played elsewhere (people, the server's
    bots). Only this seat's session is read. The final view, or None when the person leaves
    before the end (the seat stays theirs: the credential takes it up again)."""
    with croupier.session(name, credential) as session:
        table = _OnlineTable(session, out)
        view, names = table.view, table.names
        players = ", ".join(names)
        print(f"{view.game_type}: {view.seats} players ({players}), game {name}", file=out)
        print(f"You play {names[table.seat]} (seat {table.seat}).", file=out)
        bots = [names[seat] for seat, level in enumerate(view.bot_levels) if level]
        if bots:
            print(f"The server's bots play {', '.join(bots)}.", file=out)
        print(SEAT_HELP, file=out, flush=True)
        while not table.view.HasField("result"):
            view = table.view
            if session.pending:  # act on the newest view only
                if not table.read():
                    break
                continue
            if view.legal_moves:
                others = [seat for seat in view.active_seats if seat != table.seat]
                choice = _seat_turn(session, view, table.names, others, inp, out)
                if isinstance(choice, _Quit):
                    print(
                        "You left the table; the game is not finished. Your seat stays yours:"
                        " croupier-play --credential with its credential takes it up again.",
                        file=out,
                    )
                    return None
                if isinstance(choice, MoveResult):
                    table.mine.add(choice.etag)  # its update is among the pending ones
                    continue
                if choice is None:  # refused as the game moved on: the screen is drawn again
                    continue
            if not table.wait():
                break
        view = table.view
    if not view.HasField("result"):
        print("The session ended before the game did.", file=out)
        return None
    table_text = describe_table(view)
    if table_text:
        print(table_text, file=out)
    return view


def _seat_turn(
    session: Session,
    view: pb.GameView,
    names: Sequence[str],
    others: Sequence[int],
    inp: TextIO,
    out: TextIO,
) -> MoveResult | _Quit | _LetOthersAct | None:
    """Draw the screen, ask, apply the chosen move. After a refusal: ask again, or None when
    the game has moved on meanwhile (the other seats are not waiting for the person)."""
    moves, descriptions = _choices(view, names)
    print(_screen(view, descriptions, names, alone=not others), file=out)
    while True:
        choice = _ask(inp, out, len(moves), may_wait=bool(others), help_text=SEAT_HELP)
        if not isinstance(choice, int):
            return choice
        try:
            return session.move(moves[choice])
        except CroupierError as error:
            print(refusal(error), file=out)
            if session.pending:
                return None
