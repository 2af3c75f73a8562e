"""`croupier-bench`'s scaling modes (docs/scaling.md), run briefly against real servers and
Redis: the shape of their JSON and that nothing failed. No speed is asserted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from croupier.bench import main, stored

SHORT = ("--duration", "1", "--warmup", "0.3", "--no-redis-count")


def _run(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "bench.json"
    main([*args, "--json", str(out)])
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def _replayed_without_errors(report: dict[str, Any]) -> None:
    assert report["errors"] == {}
    assert report["apply_move"]["errors"] == 0
    assert report["apply_move"]["calls_per_s"] > 0
    assert report["cpu"]["replay"]["server"] > 0


def test_long_game_replays_a_match_in_slices_and_sizes_its_log(tmp_path: Path) -> None:
    report = _run(tmp_path, "--long-game", "48", "--concurrency", "2", "--seats", "2")
    long_game = report["long_game"]
    assert (long_game["game"], long_game["moves"], long_game["errors"]) == ("one_card", 48, 0)
    assert [row["moves"] for row in long_game["slices"]] == [
        [first, first + 5] for first in range(1, 48, 6)
    ]
    for row in long_game["slices"]:
        assert row["calls_per_s"] > 0
        assert row["p50_ms"] <= row["p99_ms"]
        assert "server_us_per_move" in row
    log = long_game["log"]
    assert log["entries"] == 48  # the match is not over: one log entry per move so far
    assert log["entry_bytes_mean"] > 0
    assert log["log_key_memory"] > 0


def test_bot_games_are_played_by_the_server(tmp_path: Path) -> None:
    report = _run(
        tmp_path, "--bot-games", "2", "--game", "trinity", "--duration", "1.5", "--warmup", "0.3"
    )
    bots = report["bot_games"]
    assert (bots["game"], bots["bot_level"], bots["games_in_play"]) == ("trinity", "random", 2)
    assert bots["errors"] == {}
    assert bots["moves_per_s"] > 0
    assert bots["server_us_per_move"] > 0


def test_stored_games_fill_redis_and_expire(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stored, "PROBES", 50)
    monkeypatch.setattr(stored, "PROBE_WAIT_S", 0.5)
    report = _run(
        tmp_path,
        *["--stored-games", "300", "--game", "trinity", "--game", "one_card", "--seats", "3"],
        *["--replay-only", "--concurrency", "2", *SHORT],
    )
    _replayed_without_errors(report)
    filled = report["stored_games"]
    assert filled["games"] == 300
    # Every copy has its game hash and its move log (the sources were played halfway).
    assert filled["keys_added"] == 600
    assert filled["used_memory_per_game"] > 0
    for game in ("trinity", "one_card"):
        row = filled["per_type"][game]
        assert row["moves"] > 0
        assert row["game_key_memory"] > 0 and row["log_key_memory"] > 0
    expiry = filled["expiry"]
    # Expired games are gone to every read, whenever Redis reclaims their memory.
    assert expiry["read_not_found"] == "5/5"
    assert expiry["reclaimed"] >= 5


@pytest.mark.skipif(shutil.which("redis-cli") is None, reason="needs redis-cli")
def test_redis_cluster_serves_the_replay(tmp_path: Path) -> None:
    report = _run(
        tmp_path, "--redis-cluster", "3", "--game", "trinity", "--replay-only",
        "--concurrency", "2", *SHORT,
    )  # fmt: skip
    _replayed_without_errors(report)
    assert report["config"]["redis_cluster_masters"] == 3
    # Every master's CPU is measured.
    assert {"redis", "redis1", "redis2"} <= set(report["cpu"]["replay"])


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
def test_redis_over_tls_serves_the_replay(tmp_path: Path) -> None:
    """--redis-tls: the started server on a private Redis reached by rediss://."""
    report = _run(
        tmp_path, "--redis-tls", "--game", "trinity", "--replay-only", "--concurrency", "2",
        *SHORT,
    )  # fmt: skip
    _replayed_without_errors(report)
    assert report["config"]["redis_tls"] is True
    assert "redis" in report["cpu"]["replay"]  # the TLS Redis's CPU is measured


def test_clock_and_feed_moves_and_workers_replay(tmp_path: Path) -> None:
    report = _run(
        tmp_path, "--clock", "3600", "--server-arg=--feed-moves", "--server-arg=--workers=2",
        "--channels", "2", "--game", "trinity", "--replay-only", "--concurrency", "2", *SHORT,
    )  # fmt: skip
    _replayed_without_errors(report)
    config = report["config"]
    assert config["clock_seconds"] == 3600
    assert config["server_args"] == ["--feed-moves", "--workers=2"]
