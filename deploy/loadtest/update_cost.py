"""A probe, not a server to deploy: what croupier-server spends on the WatchGame updates of one
move, apart from gRPC: the move's notification decoded (`RecentNotifications.decode`) and
each audience's update put together (`Published.update_for`), as every process with watch
streams of the game does once per move, but the one that wrote it, which hands its watchers
the parts it made for the move's response (`Published.written`; docs/decisions.md, "The
process that writes a move hands it to its own watchers").

Each game of `--games` seeded random games is played on the engine; every move's notification
is built as the server publishes it, then decoded and its updates built three ways, timed
apart (process CPU time over all moves, each way `--repeats` times, the median printed):

- one audience: one stream (seat 0) watches the game here;
- every seat: a stream per seat, as several streams watch the game here (the server's way);
- every seat, first view whole: the same audiences, the first one's view built whole as when
  one stream watches (the way before the shared view was built for the first audience).

With --steps it times the steps of the server's way apart instead, each over every move (the
same medians): the notification parsed, the state unpacked from it, the update's shared parts
(`UpdateParts.of`) and within them the view's shared fields, the engine's shared view
(`SharedView.of`), every seat's own view, and every seat's update put together from those
(docs/decisions.md, "Views in two parts").

    .venv/bin/python deploy/loadtest/update_cost.py --cpu 0 [--game G] [--seats N] [--steps]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.application.games import (
    LoadedGame,
    RecentNotifications,
    SharedView,
    UpdateParts,
    notification_head,
    state_of,
)
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.storage_pb2 import MoveNotification, StoredGame

GAME_ID = "ab" * 12
T = TypeVar("T")


def notifications(game_type: str, seats: int, games: int, seed: int) -> list[bytes]:
    """The notification payload of every move of `games` seeded random games."""
    engine = GAMES[game_type]
    payloads: list[bytes] = []
    for number in range(games):
        state, _ = engine.new_game(options_for(game_type), seats, seed + number)
        chooser = random.Random(seed + number)
        stored = StoredGame(
            game_type=game_type,
            display_names=[f"player {seat}" for seat in range(seats)],
            credential_hashes=[bytes([seat + 1]) * 32 for seat in range(seats)],
        )
        game = LoadedGame(GAME_ID, 1, stored, engine, state)
        while engine.result(state) is None:
            seat = chooser.choice(engine.active_seats(state))
            emitted = engine.apply(state, seat, chooser.choice(engine.legal_moves(state, seat)))
            game.version += 1
            stored.move_count += 1
            data = game.encode()
            payloads.append(notification_head(game.notification(emitted), len(data)) + data)
    return payloads


def cost(payloads: list[bytes], audiences: list[int | None], streams: int) -> float:
    """µs of CPU per move: each payload decoded, then each audience's update built."""
    recent = RecentNotifications()
    started = time.process_time()
    for payload in payloads:
        published = recent.decode(GAME_ID, payload, streams)
        for seat in audiences:
            published.update_for(seat)
    return (time.process_time() - started) / len(payloads) * 1e6


def timed(step: Callable[[T], object], items: list[T]) -> float:
    """µs of CPU per item: `step` done on each of `items`."""
    started = time.process_time()
    for item in items:
        step(item)
    return (time.process_time() - started) / len(items) * 1e6


def steps(payloads: list[bytes], seats: int, repeats: int) -> dict[str, float]:
    """The median µs per move of each step of a move's updates when every seat watches, each
    timed apart over every move (its inputs made beforehand by the steps before it)."""
    notes = [MoveNotification.FromString(payload) for payload in payloads]
    games = [
        LoadedGame(
            GAME_ID, note.version, note.game, GAMES[note.game.game_type], state_of(note.game)
        )
        for note in notes
    ]
    parts = [UpdateParts.of(game, note.events) for game, note in zip(games, notes, strict=True)]
    shared = [SharedView.of(game.engine, game.state) for game in games]
    owns = [[game.engine.own_view(game.state, seat) for seat in range(seats)] for game in games]
    moves = list(zip(games, notes, parts, shared, owns, strict=True))

    def shared_fields(game: LoadedGame) -> None:
        before, after = GameView(), GameView()
        game.fill_before_seat(before)
        game.fill_after_seat(after)
        before.SerializeToString()
        after.SerializeToString()

    def own_views(game: LoadedGame) -> None:
        for seat in range(seats):
            game.engine.own_view(game.state, seat)

    def updates(move: tuple[LoadedGame, Any, UpdateParts, SharedView, list[Any]]) -> None:
        _, _, move_parts, view, own = move
        for seat in range(seats):
            move_parts.update(seat, view.put_in(own[seat]))

    ways: dict[str, Callable[[], float]] = {
        "notification parsed": lambda: timed(MoveNotification.FromString, payloads),
        "state unpacked": lambda: timed(lambda note: state_of(note.game), notes),
        "update parts": lambda: timed(lambda move: UpdateParts.of(move[0], move[1].events), moves),
        "of which the shared fields": lambda: timed(shared_fields, games),
        "engine's shared view": lambda: timed(lambda g: SharedView.of(g.engine, g.state), games),
        "own views": lambda: timed(own_views, games),
        "updates put together": lambda: timed(updates, moves),
    }
    figures: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(repeats):
        for way, run in ways.items():
            figures[way].append(run())
    return {way: statistics.median(f) for way, f in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", type=int, help="pin the process to this core")
    parser.add_argument("--game", choices=sorted(GAMES), help="one game (default: each)")
    parser.add_argument("--seats", type=int, default=4, help="seats, within each game's range")
    parser.add_argument("--games", type=int, default=6, help="random games per game type")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes of each way")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", action="store_true", help="time each step of the server's way")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    for game_type in [args.game] if args.game else sorted(GAMES):
        engine = GAMES[game_type]
        seats = min(max(args.seats, engine.min_seats), engine.max_seats)
        payloads = notifications(game_type, seats, args.games, args.seed)
        if args.steps:
            each = steps(payloads, seats, args.repeats)
            print(
                f"{game_type}, {seats} seats, {len(payloads)} moves, us per move: "
                + ", ".join(f"{step} {figure:.1f}" for step, figure in each.items())
            )
            continue
        every: list[int | None] = list(range(seats))
        ways: dict[str, tuple[list[int | None], int]] = {
            "one audience": ([0], 1),
            "every seat": (every, seats),
            "every seat, first view whole": (every, 1),
        }
        figures: dict[str, list[float]] = {way: [] for way in ways}
        for _ in range(args.repeats):  # the ways alternate, so that drift touches each alike
            for way, (audiences, streams) in ways.items():
                figures[way].append(cost(payloads, audiences, streams))
        median = {way: statistics.median(f) for way, f in figures.items()}
        extra, extra_whole = (
            (median[way] - median["one audience"]) / (seats - 1)
            for way in ("every seat", "every seat, first view whole")
        )
        print(
            f"{game_type}, {seats} seats, {len(payloads)} moves: "
            + ", ".join(f"{way} {median[way]:.1f}" for way in ways)
            + f" us per move; per further seat {extra:.1f} us ({extra_whole:.1f} first view whole)"
        )


if __name__ == "__main__":
    main()
