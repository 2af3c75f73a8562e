"""The Echo instructions probe of docs/performance.md still runs and prints its figures, for
Echo, for game play and for moves under watch (its CPU-time mode: callgrind's takes a
minute)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).parents[2] / "deploy" / "loadtest" / "echo_instructions.py"


def test_the_probe_prints_its_figure() -> None:
    command = [sys.executable, str(PROBE), "--no-valgrind", "--calls", "64"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    line = done.stdout.strip()
    assert line.startswith("Echo, 32 in flight: 64 calls,") and "us of server CPU per call" in line


def test_the_probe_prints_its_game_play_figure() -> None:
    command = [sys.executable, str(PROBE), "--no-valgrind", "--calls", "64", "--play"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    line = done.stdout.strip()
    assert line.startswith("Game play (ListLegalMoves + ApplyMove), 32 in flight: 64 moves,")
    assert "us of server CPU per move" in line


def test_the_probe_prints_its_watch_figure() -> None:
    """Every seat of 16 games on 2 streams: 128 streams, each receiving every update."""
    command = [sys.executable, str(PROBE), "--no-valgrind", "--calls", "64", "--watch", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    line = done.stdout.strip()
    assert line.startswith(
        "Replayed moves, 4 seat(s) of each game on 2 stream(s) (16 games of 4 seats): 64 moves,"
        " 512 updates;"
    )
    assert "us of server CPU per move" in line and "us per update" in line


def test_the_probe_watches_with_some_seats_of_each_game() -> None:
    """`--watch-seats 1`: one seat of each game watches (the watcher benchmark's 16 streams
    against 64), so a move makes one update per stream of that seat."""
    command = [sys.executable, str(PROBE), "--no-valgrind", "--calls", "64", "--watch", "1"]
    done = subprocess.run(
        [*command, "--watch-seats", "1"], capture_output=True, text=True, timeout=120, check=True
    )
    line = done.stdout.strip()
    assert line.startswith(
        "Replayed moves, 1 seat(s) of each game on 1 stream(s) (16 games of 4 seats): 64 moves,"
        " 64 updates;"
    )
