"""The handler-cost probe of docs/performance.md still runs and prints its figures, on the
in-memory store and on a real Redis (there with two games played at once, with and without a
turn clock)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.service.store.embedded_redis import EmbeddedRedis

PROBE = Path(__file__).parents[2] / "deploy" / "loadtest" / "handler_cost.py"


@pytest.mark.parametrize("store", ["memory", "redis", "redis, clocked"])
def test_the_probe_prints_each_figure(store: str) -> None:
    command = [sys.executable, str(PROBE), "--games", "2", "--moves", "40", "--echoes", "50"]
    if store == "redis, clocked":
        command += ["--clock", "3600"]
    if store.startswith("redis"):
        with EmbeddedRedis() as redis:
            done = run([*command, "--redis-url", redis.url, "--concurrency", "2"])
    else:
        done = run(command)
    lines = done.stdout.splitlines()
    figure = r"[0-9.]+ us per call"
    assert re.fullmatch(rf"ApplyMove \(one_card, 10 seats\): {figure}, 80 calls", lines[0])
    assert re.fullmatch(rf"Echo: {figure}, 50 calls", lines[1])
    assert done.stderr == ""  # the calls' log lines go nowhere; no call was refused


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
