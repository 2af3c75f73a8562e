"""The grpc.aio floor probe of docs/performance.md still runs and prints its figures."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).parents[2] / "deploy" / "loadtest" / "grpc_aio_floor.py"


@pytest.mark.parametrize("server", ["grpc.aio", "sync"])
def test_the_probe_prints_each_figure(server: str) -> None:
    command = [sys.executable, str(PROBE), "--seconds", "0.3", "--warmup", "0.1"]
    command += ["--repeats", "1", "--streams", "3", *(["--sync"] if server == "sync" else [])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Echo, 32 in flight:") and "us per call" in lines[0]
    assert lines[1].startswith("1 stream(s):") and lines[2].startswith("3 stream(s):")
    assert "one more streamed message" in lines[3]
    assert "server memory per open stream" in lines[4]
    # The ticks reached the streams (ticks that come before a stream wakes share a message).
    ticks, messages = (int(word) for word in lines[2].split(":")[1].split()[0:3:2])
    assert ticks > 0 and messages > 0


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not on the PATH")
def test_the_probe_counts_instructions() -> None:
    """With --instructions the server runs under callgrind; every tick reaches every stream."""
    command = [sys.executable, str(PROBE), "--instructions", "--calls", "64", "--ticks", "5"]
    command += ["--streams", "3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Echo, 32 in flight: 64 calls,")
    assert lines[0].endswith("instructions per call")
    assert lines[1].startswith("1 stream(s): 5 ticks, 5 messages,")
    assert lines[2].startswith("3 stream(s): 5 ticks, 15 messages,")
    assert lines[3].startswith("  one more streamed message:")
    assert lines[3].endswith(" instructions")
