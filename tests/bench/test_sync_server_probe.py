"""The synchronous server-style probe of docs/performance.md ("Probes") still serves what
croupier-bench's replay phase calls, against a real redis-server: with a blocking store of its
own, and with --bridged, handing each call to the real servicer on an event loop."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.local import wait_serving
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port

PROBE = Path(__file__).parents[2] / "deploy" / "loadtest" / "sync_server_probe.py"


@pytest.mark.parametrize("mode", [[], ["--bridged"]], ids=["blocking", "bridged"])
def test_the_probe_creates_games_and_applies_moves(mode: list[str]) -> None:
    engine = GAMES["one_card"]
    state, _ = engine.new_game(options_for("one_card"), 2, 3)
    with EmbeddedRedis() as redis:
        port = free_port()
        command = [
            sys.executable,
            str(PROBE),
            "--port",
            str(port),
            "--redis-url",
            redis.url,
            *mode,
        ]
        process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        try:
            wait_serving(f"127.0.0.1:{port}")
            with Croupier(f"127.0.0.1:{port}", timeout=5) as client:
                game = client.create(options_for("one_card"), 2, seed=3)
                for number in range(1, 6):
                    seat = engine.active_seats(state)[0]
                    move = engine.legal_moves(state, seat)[0]
                    engine.apply(state, seat, move)
                    credential = game.seat_credentials[seat]
                    request_id = str(uuid.uuid4())
                    response = client.apply(game.name, credential, move, request_id=request_id)
                    assert response.view.move_count == number
                    assert response.view.one_card == engine.view(state, seat)
        finally:
            process.terminate()
            process.wait(timeout=10)
