"""`croupier-play`: play a whole game through the gRPC API with bots, printing a transcript.

    croupier-play --game vampire_queen --players 5 --bots 5 --seed 7
    croupier-play --game vampire_queen --players 3 --human 0 --option rounds=1
    croupier-play --game one_card --players 3 --seed 7 --save-record game.json
    croupier-play --replay game.json
    croupier-play --game one_card --players 3 --open-seats --target HOST:PORT
    croupier-play --join CODE --game-name games/ID --target HOST:PORT --name Bo
    croupier-play --credential CREDENTIAL --game-name games/ID --target HOST:PORT

Without `--target` it starts a server of its own. The transcript's first line gives the game's seed
(without `--seed`, one drawn here), and `--seed` with it prints the same game again. With `--human
SEAT` a person plays that seat in the terminal against bots (see `croupier.human`). Each seat plays
through a PlayGame session of its own, its moves chosen from the legal moves its view lists;
`--unary` plays the bots' game through ListLegalMoves and ApplyMove calls instead, for the same
transcript (`croupier.seats`). `--option KEY=VALUE` sets a field of the game's options message
(repeatable). `--save-record FILE` writes the finished game's record (GetGameRecord, as protobuf
JSON); `--replay FILE` replays such a record through the rule engines, without a server, and checks
that it ends in the recorded result (exit status 1 when it does not): the engines come with the
server's distribution, so this runs its `croupier.service.application.replay` as a process. With
`--target`, `--open-seats` creates a game whose seats but yours (and `--bots`, the server's) are
open and prints its name, its join code and the commands that play it, and `--list` prints the
lobby. `--join CODE --game-name games/ID` claims the lowest open seat with the game's join code and
plays it at the terminal; `--credential CREDENTIAL --game-name games/ID` plays a seat you hold (the
one `--open-seats` kept for you, or one you claimed and left), through its PlayGame session, while
the other seats move elsewhere (`croupier.human.play_seat`). A server with operator keys creates
games only for them: every game croupier-play creates then carries the key from the environment,
`CROUPIER_OPERATOR_KEY`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.bots import RandomBot, new_seed
from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.human import play_human, play_seat, seat_names
from croupier.local import LocalServer, ServerNotInstalled, server_installed
from croupier.messages import GAME_TYPES
from croupier.records import save_record
from croupier.render import describe_event, describe_table
from croupier.seats import CallSeats, SessionSeats
from croupier.v1 import game_service_pb2 as pb

MAX_MOVES = 50_000


def options_for(game: str) -> Message:
    """The default options message of a game, found through the CreateGameRequest oneof."""
    field = pb.CreateGameRequest.DESCRIPTOR.fields_by_name[game]
    request = pb.CreateGameRequest()
    options: Message = getattr(request, field.name)
    return type(options)()


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _scalar(field: FieldDescriptor, text: str) -> object:
    """`text` as a value of `field` (a bool, a number, a string, or an enum by name or number)."""
    text = text.strip()
    if field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(f"{field.name} is true or false, not {text!r}")
    if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
        values = field.enum_type.values if field.enum_type else []
        if text.lstrip("-").isdigit():
            return int(text)
        for value in values:
            if value.name == text.upper() or value.name.endswith("_" + text.upper()):
                return value.number
        choices = ", ".join(value.name for value in values if value.number)
        raise ValueError(f"{field.name} is one of {choices}, not {text!r}")
    if field.cpp_type in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return float(text)
    if field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        return text
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"{field.name} is a whole number, not {text!r}") from None


def set_option(options: Message, assignment: str) -> None:
    """Apply `KEY=VALUE` to a game's options message: a scalar or enum field (`rounds=1`,
    `deal_all=true`), a repeated one with commas (`rows=K,J,Q`), a nested one with dots
    (`deck.rainbows=2`). Raises ValueError with a readable message."""
    key, sep, text = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ValueError(f"write --option KEY=VALUE (e.g. rounds=1), not {assignment!r}")
    target = options
    *path, last = key.split(".")
    for part in path:
        inner = target.DESCRIPTOR.fields_by_name.get(part)
        if inner is None or inner.message_type is None or inner.is_repeated:
            raise ValueError(f"{key}: {part!r} is not a message field of {target.DESCRIPTOR.name}")
        target = getattr(target, part)
    field = cast(FieldDescriptor | None, target.DESCRIPTOR.fields_by_name.get(last))
    if field is None:
        known = ", ".join(target.DESCRIPTOR.fields_by_name)
        raise ValueError(f"{target.DESCRIPTOR.name} has no field {last!r} (fields: {known})")
    if field.message_type is not None:
        raise ValueError(f"{key} is a message: set its fields as {key}.FIELD=VALUE")
    try:
        if field.is_repeated:
            values = getattr(target, last)
            del values[:]
            values.extend(_scalar(field, item) for item in text.split(",") if item.strip())
        else:
            setattr(target, last, _scalar(field, text))
    except (TypeError, ValueError) as error:
        raise ValueError(f"--option {assignment}: {error}") from None


def _seed(text: str) -> int:
    """A `--seed`: what CreateGameRequest.seed holds (an unsigned 64-bit integer)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**64:
        raise argparse.ArgumentTypeError(
            f"a seed is a whole number from 0 to 2**64-1, not {text!r}"
        )
    return seed


def _operator_key() -> str | None:
    """The operator key, for servers that create games only for its holders (a server started
    here takes the same variable): from the environment, as the server takes it (never a flag:
    command lines are visible)."""
    return os.environ.get("CROUPIER_OPERATOR_KEY") or None


@contextlib.contextmanager
def _target(target: str | None) -> Iterator[str]:
    if target:
        yield target
        return
    try:
        server = LocalServer().start()
    except ServerNotInstalled as error:
        raise SystemExit(f"croupier-play: {error}") from None
    try:
        yield server.target
    finally:
        server.stop()


def play(
    croupier: Croupier,
    game: str,
    players: int,
    seed: int | None,
    out: TextIO,
    names: Sequence[str] = (),
    options: Message | None = None,
    record_to: Path | None = None,
    *,
    unary: bool = False,
) -> pb.GameView:
    """Play one game to the end with random bots on every seat; print the transcript.
    `seed`: the game's and the bots' (None: one drawn here, printed in the first line).
    `options`: the game's options message (default: its defaults). Each seat plays through a
    session of its own, its moves chosen from its view's legal moves; `unary`: through unary
    calls instead (ListLegalMoves, ApplyMove, GetGame), for the same transcript."""
    names = list(names) or [f"P{seat}" for seat in range(players)]
    if options is None:
        options = options_for(game)
    # Every seat is a bot of this process, so the seed hides nothing from anyone here: it is
    # printed at once, and the bots draw from it too, for the transcript to come out the same.
    seed = new_seed() if seed is None else seed
    created = croupier.create(options, players, display_names=names, seed=seed)
    credentials = list(created.seat_credentials)
    bot = RandomBot(seed)
    print(f"{game}: {players} players ({', '.join(names)}), seed {seed}", file=out)
    table = describe_table(created.view)
    if table:
        print(table, file=out)
    view = created.view
    seating = CallSeats if unary else SessionSeats
    with seating(croupier, created.name, credentials) as seats:
        for number in range(1, MAX_MOVES + 1):
            if view.HasField("result"):
                break
            seat = bot.choose(list(view.active_seats))
            move = bot.choose(seats.legal_moves(seat, view.move_count))
            update = seats.move(seat, move)
            lines = [line for event in update.events for line in describe_event(game, event, names)]
            print(
                f"{number:4d}. {names[seat]}: " + ("\n      ".join(lines) or "(nothing visible)"),
                file=out,
            )
            view = seats.public_view(update.view.etag)
            table = describe_table(view)
            if table:
                print(table, file=out)
    print_result(view, names, out)
    if record_to is not None:
        save_record(croupier.record(created.name, credentials[0]), record_to)
        print(f"\nrecord saved to {record_to}", file=out)
    return view


def _print_lobby(croupier: Croupier, out: TextIO) -> None:
    for game in croupier.iter_games():
        seats = ", ".join(
            f"{seat}: {player or '-'}" + (" (open)" if seat in game.open_seats else "")
            for seat, player in enumerate(game.player_ids)
        )
        print(f"{game.name}  {game.game_type}  seats {seats}", file=out)


def _open_table(croupier: Croupier, args: argparse.Namespace, out: TextIO) -> None:
    """Seat 0 is the caller's, the last `--bots` seats the server's bots, the others open."""
    options = options_for(args.game)
    for assignment in args.option:
        set_option(options, assignment)
    bots = args.bots or 0
    humans = args.players - bots
    created = croupier.create(
        options,
        args.players,
        seed=args.seed,
        display_names=[args.name] + [""] * (args.players - 1) if args.name else (),
        player_ids=[args.player_id or "host"] + [""] * (args.players - 1),
        open_seats=True,
        public=args.public,
        bot_levels=[""] * humans + ["random"] * bots if bots else (),
    )
    name, target, yours = created.name, args.target, created.seat_credentials[0]
    print(f"game        {name}", file=out)
    print(f"join code   {created.join_code}", file=out)
    print(f"seat 0      {yours}  (your credential: keep it secret)", file=out)
    print(f"others run  {seat_command('--join', created.join_code, name, target)}", file=out)
    print(f"you run     {seat_command('--credential', yours, name, target)}", file=out)


def seat_command(flag: str, secret: str, name: str, target: str) -> str:
    """The command line that plays a seat of game `name`: `flag` is --join (with the join code)
    or --credential (with a seat's credential)."""
    words = ["croupier-play", flag, secret, "--game-name", name, "--target", target]
    return shlex.join(words)


def _game_name(text: str) -> str:
    """A --game-name: `games/ID` as --open-seats and --list print it (the ID alone too)."""
    text = text.strip()
    return text if text.startswith("games/") else f"games/{text}"


# What --join and --credential take beside themselves: the rest creates games.
_JOIN_FLAGS = frozenset({"join", "game_name", "target", "name", "player_id", "save_record"})
_CREDENTIAL_FLAGS = frozenset({"credential", "game_name", "target", "save_record"})


def _play_a_seat(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--join CODE or --credential CREDENTIAL, with --game-name: play one seat of a game that
    exists at the terminal. The join code is never printed: it is the table's secret."""
    joining = args.credential is None
    if not joining and args.join is not None:
        parser.error("give --join CODE (to claim a seat) or --credential CREDENTIAL, not both")
    flag = "--join" if joining else "--credential"
    allowed = _JOIN_FLAGS if joining else _CREDENTIAL_FLAGS
    extra = [
        "--" + dest.replace("_", "-")
        for dest, value in vars(args).items()
        if dest not in allowed and value != parser.get_default(dest)
    ]
    if extra:
        why = "" if joining else " (a seat's name and player id are set when it is claimed)"
        listed = ", ".join(extra)
        parser.error(f"{flag} plays a seat of a game that exists: leave out {listed}{why}")
    if not args.game_name:
        parser.error(f"{flag} needs --game-name games/ID (as --open-seats and --list print it)")
    if not args.target:
        parser.error(f"{flag} needs --target HOST:PORT (the server that has the game)")
    name = _game_name(args.game_name)
    out = sys.stdout
    try:
        with Croupier(args.target) as croupier:
            if joining:
                joined = croupier.join(
                    name, args.join, player_id=args.player_id, display_name=args.name
                )
                credential = joined.seat_credential
                print(
                    f"You took seat {joined.seat} of {name}. Your seat's credential is a secret;"
                    " this takes the seat up again:",
                    file=out,
                )
                print(f"  {seat_command('--credential', credential, name, args.target)}", file=out)
            else:
                credential = args.credential
            view = play_seat(croupier, name, credential, sys.stdin, out)
            if view is None:
                return
            print_result(view, seat_names(view), out)
            if args.save_record:
                save_record(croupier.record(name, credential), Path(args.save_record))
                print(f"\nrecord saved to {args.save_record}", file=out)
    except CroupierError as error:
        print(f"croupier-play: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("\ncroupier-play: interrupted (your seat stays yours)", file=sys.stderr)
        raise SystemExit(130) from None


REPLAY_MODULE = "croupier.service.application.replay"


def _replay_file(path: Path) -> None:
    """Run the server's replay (it needs the engines) in a process of this Python."""
    if not server_installed():
        print("croupier-play: --replay needs the server installed (croupier)", file=sys.stderr)
        raise SystemExit(1)
    code = subprocess.call([sys.executable, "-m", REPLAY_MODULE, str(path)])
    if code:
        raise SystemExit(code)


def print_result(view: pb.GameView, names: Sequence[str], out: TextIO) -> None:
    result = view.result
    print("\nFinal standings" + (f" ({result.summary})" if result.summary else ""), file=out)
    for line in sorted(result.seats, key=lambda s: (s.placement, s.seat)):
        marker = "  winner" if line.seat in result.winners else ""
        print(f"  {line.placement:2d}. {names[line.seat]:<12} {line.score:6d}{marker}", file=out)
    if not result.winners:
        print("  no player wins", file=out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="croupier-play", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAME_TYPES)
    parser.add_argument(
        "--replay", metavar="FILE", help="replay a saved game record offline and check its result"
    )
    parser.add_argument(
        "--save-record", metavar="FILE", help="write the finished game's record to FILE (JSON)"
    )
    parser.add_argument(
        "--players", type=int, help="number of seats (default: --bots, +1 with --human)"
    )
    parser.add_argument(
        "--bots",
        type=int,
        help="seats played by bots (default: all, or all but the --human seat; with"
        " --open-seats: the last seats, played by the server, default none)",
    )
    parser.add_argument(
        "--human",
        type=int,
        metavar="SEAT",
        help="play this seat (0-based) yourself in the terminal",
    )
    parser.add_argument(
        "--clock",
        type=int,
        metavar="SECONDS",
        default=0,
        help="with --human: a turn clock of SECONDS per move (the screen shows the time left;"
        " when it runs out the server's bot moves for you)",
    )
    parser.add_argument(
        "--abandon-after",
        type=int,
        metavar="N",
        default=0,
        help="with --clock: after N timeouts in a row your seat is away (the server's bot plays"
        " it at once) until you move again",
    )
    parser.add_argument(
        "--time-bank",
        type=int,
        metavar="SECONDS",
        default=0,
        help="with --clock: each seat's time bank, spent by moves slower than --clock",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a field of the game's options, e.g. rounds=1 (repeatable)",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        help="seed of the game and the bots (default: one drawn at random and printed, in the"
        " transcript's first line, or with --human once the game is over)",
    )
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--names", help="comma-separated display names")
    parser.add_argument(
        "--open-seats",
        action="store_true",
        help="with --target: create the game with seat 0 yours and the others open, print its"
        " name, join code, seat 0's credential and the commands that play it (--join,"
        " --credential), and exit; a server with operator keys needs one in"
        " CROUPIER_OPERATOR_KEY",
    )
    parser.add_argument(
        "--public", action="store_true", help="with --open-seats: list the game in the lobby"
    )
    parser.add_argument(
        "--player-id", default="", help="with --open-seats: seat 0's player id; with --join: yours"
    )
    parser.add_argument(
        "--join",
        metavar="CODE",
        help="with --game-name and --target: claim the lowest open seat of the game with its"
        " join code (from --open-seats) and play it at the terminal",
    )
    parser.add_argument(
        "--credential",
        metavar="CREDENTIAL",
        help="with --game-name and --target: play the seat of the game that CREDENTIAL is for"
        " at the terminal (seat 0's from --open-seats, or a seat claimed with --join)",
    )
    parser.add_argument(
        "--game-name",
        metavar="games/ID",
        help="with --join or --credential: the game, as --open-seats and --list print it",
    )
    parser.add_argument(
        "--name",
        default="",
        metavar="DISPLAY_NAME",
        help="with --join: your display name at the table; with --open-seats: seat 0's",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="with --target: print the lobby (public games with open seats), newest first",
    )
    parser.add_argument(
        "--unary",
        action="store_true",
        help="without --human: play through unary calls (ListLegalMoves, ApplyMove, GetGame)"
        " instead of a PlayGame session per seat; the transcript is the same",
    )
    args = parser.parse_args(argv)
    if args.replay:
        _replay_file(Path(args.replay))
        return
    if args.join is not None or args.credential is not None:
        _play_a_seat(parser, args)
        return
    if args.list or args.open_seats:
        if not args.target:
            parser.error("--list and --open-seats need --target HOST:PORT (a shared server)")
        try:
            key = _operator_key()
            with Croupier(args.target, operator_key=None if args.list else key) as croupier:
                if args.list:
                    _print_lobby(croupier, sys.stdout)
                    return
                if args.game is None or args.players is None:
                    parser.error("--open-seats needs --game and --players")
                if args.bots and not 0 < args.bots < args.players - 1:
                    parser.error(
                        "with --open-seats seat 0 is yours and at least one seat is open: give"
                        f" --bots from 0 to {args.players - 2}"
                    )
                _open_table(croupier, args, sys.stdout)
        except ValueError as error:  # a bad --option
            parser.error(str(error))
        except CroupierError as error:
            print(f"croupier-play: {error}", file=sys.stderr)
            raise SystemExit(1) from None
        return
    if args.game is None:
        parser.error("give --game (or --replay FILE)")
    human: int | None = args.human
    players = args.players or (args.bots + (human is not None) if args.bots is not None else None)
    if players is None:
        parser.error("give --players (and optionally --bots)")
    if human is not None and args.unary:
        parser.error("--unary is for bot games: the terminal table plays through sessions")
    if human is None:
        bots = players if args.bots is None else args.bots
        if bots != players:
            parser.error(
                "every seat must be a bot: give --bots equal to --players"
                " (or --human SEAT to play one seat yourself)"
            )
    else:
        if not 0 <= human < players:
            parser.error(f"--human is a seat from 0 to {players - 1} (seats are 0-based)")
        bots = players - 1 if args.bots is None else args.bots
        if bots != players - 1:
            parser.error(
                f"with --human every other seat is a bot: give --bots {players - 1}"
                " (--players minus one) or leave --bots out"
            )
    names = args.names.split(",") if args.names else []
    options = options_for(args.game)
    for assignment in args.option:
        try:
            set_option(options, assignment)
        except ValueError as error:
            parser.error(str(error))
    try:
        with (
            _target(args.target) as target,
            Croupier(target, operator_key=_operator_key()) as croupier,
        ):
            if human is None:
                play(
                    croupier,
                    args.game,
                    players,
                    args.seed,
                    sys.stdout,
                    names,
                    options,
                    record_to=Path(args.save_record) if args.save_record else None,
                    unary=args.unary,
                )
                return
            view = play_human(
                croupier,
                args.game,
                options,
                players,
                human,
                args.seed,
                sys.stdin,
                sys.stdout,
                names,
                clock_seconds=args.clock,
                abandon_after=args.abandon_after,
                time_bank=args.time_bank,
            )
            if view is not None:
                print_result(view, names or [f"P{seat}" for seat in range(players)], sys.stdout)
    except CroupierError as error:
        print(f"croupier-play: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("\ncroupier-play: interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
