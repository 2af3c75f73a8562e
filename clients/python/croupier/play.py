"""`croupier-play`: play a whole game through the gRPC API with bots, printing a transcript.

    croupier-play --game vampire_queen --players 5 --bots 5 --seed 7

Without `--target` it starts a server of its own. The same seed prints the same game.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from google.protobuf.message import Message

from croupier.bots import RandomBot
from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.render import describe_event, describe_table
from croupier.v1 import game_service_pb2 as pb

GAME_IDS = ["whats_your_name", "one_card", "pig_mau_mau", "vampire_queen", "trinity"]
MAX_MOVES = 50_000


def options_for(game: str) -> Message:
    """The default options message of a game, found through the CreateGameRequest oneof."""
    field = pb.CreateGameRequest.DESCRIPTOR.fields_by_name[game]
    request = pb.CreateGameRequest()
    options: Message = getattr(request, field.name)
    return type(options)()


@contextlib.contextmanager
def _target(target: str | None) -> Iterator[str]:
    if target:
        yield target
        return
    with LocalServer() as server:
        yield server.target


def play(
    croupier: Croupier,
    game: str,
    players: int,
    seed: int | None,
    out: TextIO,
    names: Sequence[str] = (),
) -> pb.GameView:
    """Play one game to the end with random bots on every seat; print the transcript."""
    names = list(names) or [f"P{seat}" for seat in range(players)]
    created = croupier.create(options_for(game), players, display_names=names, seed=seed)
    credentials = list(created.seat_credentials)
    bot = RandomBot(seed if seed is not None else 0)
    print(f"{game}: {players} players ({', '.join(names)}), seed {seed}", file=out)
    table = describe_table(created.view)
    if table:
        print(table, file=out)
    view = created.view
    for number in range(1, MAX_MOVES + 1):
        if view.HasField("result"):
            break
        seat = bot.choose(list(view.active_seats))
        move = bot.choose(croupier.legal_moves(created.name, credentials[seat]))
        response = croupier.apply(created.name, credentials[seat], move)
        lines = [line for event in response.events for line in describe_event(game, event, names)]
        print(
            f"{number:4d}. {names[seat]}: " + ("\n      ".join(lines) or "(nothing visible)"),
            file=out,
        )
        view = croupier.get(created.name)
        table = describe_table(view)
        if table:
            print(table, file=out)
    print_result(view, names, out)
    return view


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
    parser.add_argument("--game", required=True, choices=GAME_IDS)
    parser.add_argument("--players", type=int, help="number of seats (default: --bots)")
    parser.add_argument("--bots", type=int, help="seats played by bots (default: all)")
    parser.add_argument("--seed", type=int, help="seed of the game and the bots")
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--names", help="comma-separated display names")
    args = parser.parse_args(argv)
    players = args.players or args.bots
    if players is None:
        parser.error("give --players (and optionally --bots)")
    bots = players if args.bots is None else args.bots
    if bots != players:
        parser.error("every seat must be a bot: give --bots equal to --players")
    names = args.names.split(",") if args.names else []
    try:
        with _target(args.target) as target, Croupier(target) as croupier:
            play(croupier, args.game, players, args.seed, sys.stdout, names)
    except CroupierError as error:
        print(f"croupier-play: {error}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
