"""`croupier-bench`, run briefly: the shape of its JSON and that nothing failed. Speed targets
are never asserted here (they are measured and written in docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier import bench

FIGURES = ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors")


def test_cpu_lists_parse_like_taskset() -> None:
    assert bench.parse_cpus("0") == {0}
    assert bench.parse_cpus("0,2-4") == {0, 2, 3, 4}
    with pytest.raises(ValueError, match="invalid literal"):
        bench.parse_cpus("x")


def test_percentiles_are_nearest_rank() -> None:
    sample = bench.Sample(latencies={"k": [i / 1000 for i in range(1, 101)]})
    figures = bench.Figures.of(sample, "k", window_s=2.0)
    assert figures.calls_per_s == 50
    assert (figures.p50_ms, figures.p90_ms, figures.p99_ms, figures.max_ms) == (50, 90, 99, 100)


def test_service_bench_plays_games_and_measures_the_baseline(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    bench.main(
        [
            *["--game", "vampire_queen", "--concurrency", "4"],
            *["--duration", "1.5", "--warmup", "0.3", "--json", str(out)],
        ]
    )
    report: dict[str, Any] = json.loads(out.read_text())
    for key in ("baseline", "apply_move", "list_legal_moves", "get_game", "create_game"):
        assert set(FIGURES) <= set(report[key]), key
        assert report[key]["errors"] == 0, key
    for key in ("baseline", "apply_move", "list_legal_moves", "vampire_queen"):
        assert report[key]["calls_per_s"] > 0, key
        assert report[key]["p50_ms"] <= report[key]["p99_ms"] <= report[key]["max_ms"], key
    assert set(FIGURES) <= set(report["vampire_queen"])
    assert report["ratio"] == pytest.approx(
        report["apply_move"]["calls_per_s"] / report["baseline"]["calls_per_s"], rel=1e-3
    )
    assert report["errors"] == {}
    # The server was started here: its CPU and its Redis are known.
    assert report["cpu"]["games"]["server"] > 0
    # One round trip to read the game (and request record), one for the atomic write.
    assert report["redis"]["apply_move"]["round_trips_max"] == 2
    assert report["redis"]["list_legal_moves"]["round_trips_max"] == 1


def test_engine_bench_runs_playouts_and_sizes_states(tmp_path: Path) -> None:
    out = tmp_path / "engines.json"
    bench.main(
        [
            *["--engines", "--game", "vampire_queen", "--duration", "0.5"],
            *["--no-rlcard", "--json", str(out)],
        ]
    )
    entry = json.loads(out.read_text())["engines"]["vampire_queen"]
    assert "error" not in entry
    assert entry["moves_per_s"] > 0
    assert entry["playouts"] >= 1
    assert entry["seats"] == 12
    assert 0 < entry["state_bytes_mean"] <= entry["state_bytes_max"]
    assert entry["state_bytes_max"] < entry["stored_bytes_max"]
