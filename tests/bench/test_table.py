"""`croupier-bench --table`, run briefly: seats playing over PlayGame sessions and over the unary
path, the shape of its JSON and that nothing failed. Speed is never asserted here (it is
measured and written in docs/performance.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from croupier.bench import main
from croupier.bench.server import started_args
from croupier.bench.table import TableSample

KEYS = ("server_us_per_move", "moves_per_s", "p50_ms", "p99_ms", "updates_per_move", "errors")


def test_the_table_bench_plays_over_sessions_and_over_the_unary_path(tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    main(["--table", "--games", "2", "--duration", "2", "--warmup", "0.5", "--json", str(out)])
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["config"]["games"] == 2
    for kind, path in (
        ("table", "PlayGame"),
        ("table_unary", "WatchGame + ListLegalMoves + ApplyMove"),
    ):
        entry = report[kind]
        assert entry["path"] == path
        assert set(KEYS) <= set(entry), kind
        assert entry["errors"] == 0, entry["error_reasons"]
        assert entry["missed_updates"] == 0, kind
        # Every seat opened its session (watch stream) on both games before the first move.
        assert entry["sessions"] == 8, kind
        assert entry["moves_per_s"] > 0, kind
        assert 0 < entry["p50_ms"] <= entry["p99_ms"], kind
        # Each move reaches the four seats (the mover's with its outcome); a refused stale
        # move's outcome and the first views of new games add a little.
        assert 1 <= entry["updates_per_move"] <= 5, kind
        # The server was started here: its CPU and its Redis's per move, and its memory.
        assert entry["server_us_per_move"] > 0, kind
        assert set(entry["cpu_us_per_move"]) == {"server", "redis"}, kind
        assert entry["server_us_per_move"] >= entry["cpu_us_per_move"]["server"], kind
        assert len(entry["client_cpu"]) == 1, kind
    # The server's memory per session, of the first phase alone (the second's streams take
    # memory the first freed).
    assert isinstance(report["table"]["server_bytes_per_session"], int)
    assert "server_bytes_per_session" not in report["table_unary"]
    unary = report["table_unary"]
    # A ListLegalMoves and an ApplyMove a move, and a little more: a listing that comes too
    # late, a stale move, a CreateGame; a little less too: the window's edges cut turns, a
    # listing counted before the window whose move lands in it (a short run on a busy machine
    # has few moves).
    assert 1.8 <= unary["calls_per_move"] < 3
    assert unary["p50_ms"] <= unary["turn_p50_ms"]


def test_a_started_server_takes_the_sessions_of_1000_tables() -> None:
    flags = started_args(argparse.Namespace(table=True, games=1000))
    assert flags[flags.index("--max-watch-streams") + 1] == "8100"
    assert flags[flags.index("--max-calls-in-flight") + 1] == "4100"
    assert "--max-watch-streams" not in started_args(argparse.Namespace(table=False, games=1000))


def test_the_client_processes_samples_merge() -> None:
    one = TableSample(moves=3, messages=12, latencies=[0.1], sessions=4, client_cpu=[0.5])
    one.errors["PlayGame: UNAVAILABLE"] += 1
    two = TableSample(moves=2, messages=8, latencies=[0.2], sessions=4, client_cpu=[0.4])
    two.errors["PlayGame: UNAVAILABLE"] += 2
    one.merge(two)
    assert (one.moves, one.messages, one.sessions) == (5, 20, 8)
    assert one.latencies == [0.1, 0.2]
    assert one.client_cpu == [0.5, 0.4]
    assert one.errors == {"PlayGame: UNAVAILABLE": 3}
