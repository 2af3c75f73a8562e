"""The watch-update probe of docs/performance.md ("Probes") still runs and prints its figures
for every game, and each step's with --steps."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from croupier.engines.registry import GAMES

PROBE = Path(__file__).parents[2] / "deploy" / "loadtest" / "update_cost.py"


def test_the_probe_prints_each_games_figures() -> None:
    command = [sys.executable, str(PROBE), "--games", "1", "--repeats", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    figure = r"[0-9.]+"
    difference = r"-?[0-9.]+"  # one pass on a busy machine can time more work as less
    lines = done.stdout.splitlines()
    assert [line.split(",")[0] for line in lines] == sorted(GAMES)
    for line in lines:
        assert re.fullmatch(
            rf"[a-z_]+, [34] seats, [0-9]+ moves: one audience {figure}, every seat {figure},"
            rf" every seat, first view whole {figure} us per move;"
            rf" per further seat {difference} us \({difference} first view whole\)",
            line,
        ), line
    assert done.stderr == ""


def test_the_probe_prints_each_steps_figures() -> None:
    command = [sys.executable, str(PROBE), "--games", "1", "--repeats", "1", "--steps"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    steps = [
        "notification parsed",
        "state unpacked",
        "update parts",
        "of which the shared fields",
        "engine's shared view",
        "own views",
        "updates put together",
    ]
    figures = ", ".join(rf"{step} [0-9.]+" for step in steps)
    lines = done.stdout.splitlines()
    assert [line.split(",")[0] for line in lines] == sorted(GAMES)
    for line in lines:
        assert re.fullmatch(rf"[a-z_]+, [34] seats, [0-9]+ moves, us per move: {figures}", line)
    assert done.stderr == ""
