"""A probe, not a server to deploy: what croupier-server spends on the WatchGame updates of one
move, apart from gRPC: the move's notification decoded (`RecentNotifications.decode`) and
each audience's update put together (`Published.update_for`), as every process with watch
streams of the game does once per move (issue 22; docs/performance.md, "One view fewer per
watched move").

Each game of `--games` seeded random games is played on the engine; every move's notification
is built as the server publishes it, then decoded and its updates built three ways, timed
apart (process CPU time over all moves, each way `--repeats` times, the median printed):

- one audience: one stream (seat 0) watches the game here;
- every seat: a stream per seat, as several streams watch the game here (the server's way);
- every seat, first view whole: the same audiences, the first one's view built whole as when
  one stream watches (the way before the shared view was built for the first audience).

    .venv/bin/python deploy/loadtest/update_cost.py --cpu 0 [--game G] [--seats N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.games import LoadedGame, RecentNotifications, notification_head
from croupier.v1.storage_pb2 import StoredGame

GAME_ID = "ab" * 12


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", type=int, help="pin the process to this core")
    parser.add_argument("--game", choices=sorted(GAMES), help="one game (default: each)")
    parser.add_argument("--seats", type=int, default=4, help="seats, within each game's range")
    parser.add_argument("--games", type=int, default=6, help="random games per game type")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes of each way")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    for game_type in [args.game] if args.game else sorted(GAMES):
        engine = GAMES[game_type]
        seats = min(max(args.seats, engine.min_seats), engine.max_seats)
        payloads = notifications(game_type, seats, args.games, args.seed)
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
