"""`croupier-bench`, run briefly: the shape of its JSON and that nothing failed. Speed targets
are never asserted here (they are measured and written in docs/performance.md)."""

from __future__ import annotations

import json
import math
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from croupier.bench import main
from croupier.bench.baseline import echo_request
from croupier.bench.cpu import parse_cpus, process_cpu_seconds, server_cpu_clock
from croupier.bench.replay import record_games
from croupier.bench.spec import Payload
from croupier.bench.stats import Figures, Sample
from croupier.engines.registry import GAMES
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.benchmark_service_pb2 import EchoResponse

FIGURES = ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors")


def test_cpu_lists_parse_like_taskset() -> None:
    assert parse_cpus("0") == {0}
    assert parse_cpus("0,2-4") == {0, 2, 3, 4}
    with pytest.raises(ValueError, match="invalid literal"):
        parse_cpus("x")


def test_a_servers_cpu_clock_counts_what_proc_counts_to_the_nanosecond() -> None:
    """The CPU-time clock of a process (every thread's): what /proc counts in 10 ms ticks."""
    clock, ticks = server_cpu_clock(os.getpid()), sum(process_cpu_seconds(os.getpid()))
    spin = time.process_time() + 0.3
    while time.process_time() < spin:
        pass
    spent = server_cpu_clock(os.getpid()) - clock
    assert spent >= 0.3
    assert spent == pytest.approx(sum(process_cpu_seconds(os.getpid())) - ticks, abs=0.05)
    assert server_cpu_clock(os.getpid()) != round(server_cpu_clock(os.getpid()), 2)


def test_percentiles_are_nearest_rank() -> None:
    sample = Sample(latencies={"k": [i / 1000 for i in range(1, 101)]})
    figures = Figures.of(sample, "k", window_s=2.0)
    assert figures.calls_per_s == 50
    assert (figures.p50_ms, figures.p90_ms, figures.p99_ms, figures.max_ms) == (50, 90, 99, 100)


@pytest.mark.parametrize(("request_bytes", "response_bytes"), [(0, 0), (52, 317), (140, 2000)])
def test_echo_carries_the_given_serialized_sizes(request_bytes: int, response_bytes: int) -> None:
    request = echo_request(Payload(request_bytes, response_bytes))
    assert request.ByteSize() == request_bytes
    assert EchoResponse(payload=bytes(request.response_bytes)).ByteSize() == response_bytes


def test_recorded_games_are_complete_and_replay_alike() -> None:
    recorded = record_games(["trinity"], {"trinity": 3}, seed=5, count=2)["trinity"]
    assert recorded == record_games(["trinity"], {"trinity": 3}, seed=5, count=2)["trinity"]
    engine = GAMES["trinity"]
    for game in recorded:
        create = pb.CreateGameRequest.FromString(game.create)
        state, _ = engine.new_game(create.trinity, create.seats, create.seed)
        for seat, move in game.moves:
            assert engine.result(state) is None
            engine.apply(state, seat, pb.Move.FromString(move).trinity)
        assert engine.result(state) is not None


def test_service_bench_replays_moves_plays_games_and_measures_the_baseline(
    tmp_path: Path,
) -> None:
    out = tmp_path / "bench.json"
    main(
        [
            *["--game", "vampire_queen", "--concurrency", "4", "--redis-stats"],
            *["--duration", "1.5", "--warmup", "0.3", "--json", str(out)],
        ]
    )
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["baseline"]["rpc"] == "croupier.v1.BenchmarkService/Echo"
    play = report["game_play"]
    entries = {"baseline": report["baseline"], "apply_move": report["apply_move"]}
    entries |= {f"game_play.{rpc}": play[rpc] for rpc in ("apply_move", "list_legal_moves")}
    entries |= {"vampire_queen": report["vampire_queen"]}
    for key, entry in entries.items():
        assert set(FIGURES) <= set(entry), key
        assert entry["errors"] == 0, key
        assert entry["calls_per_s"] > 0, key
        assert entry["p50_ms"] <= entry["p99_ms"] <= entry["max_ms"], key
    assert report["ratio"] == pytest.approx(
        report["apply_move"]["calls_per_s"] / report["baseline"]["calls_per_s"], rel=1e-3
    )
    assert play["ratio"] == pytest.approx(
        play["apply_move"]["calls_per_s"] / report["baseline"]["calls_per_s"], rel=1e-3
    )
    # The baseline carries the mean serialized sizes of the replayed ApplyMoves.
    for size in ("request_bytes", "response_bytes"):
        assert report["baseline"][size] == pytest.approx(report["apply_move"][size], abs=1)
    assert report["errors"] == {}
    # The server was started here: its CPU, its context switches and its Redis are known.
    assert report["cpu"]["replay"]["server"] > 0
    for phase in ("replay", "baseline"):
        assert report["cpu"][phase]["server_switches_per_call"] > 0, phase
    redis = report["redis"]
    # The bench lists the moves and then applies one through the same server process, which
    # so remembers the game's current state: the move is the atomic write alone.
    assert redis["apply_move"]["round_trips_max"] == 1
    assert redis["list_legal_moves"]["round_trips_max"] == 1
    # Only its own read: a window that also held an earlier call's feed entry, written without
    # waiting, is left out.
    assert redis["list_legal_moves"]["commands_per_call"] == {"hmget": 1.0}
    per_move = redis["replay"]["replay"]
    # The write of each move (and CreateGame's, calls crossing the window's ends); fewer when
    # commands of calls in flight together reach Redis in one read.
    assert 0 < per_move["round_trips_per_move"] < 1.5
    assert per_move["net_input_bytes_per_move"] > 0
    assert per_move["net_output_bytes_per_move"] > 0


def test_latency_mode_calls_with_blocking_stubs_and_meters_the_window(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    main(
        [
            *["--game", "trinity", "--concurrency", "1", "--no-redis-count"],
            *["--duration", "1", "--warmup", "0.2", "--json", str(out)],
        ]
    )
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["config"]["client"] == "blocking"
    for entry in (report["baseline"], report["apply_move"], report["game_play"]["apply_move"]):
        assert entry["errors"] == 0
        assert entry["calls_per_s"] > 0
    assert report["errors"] == {}
    # The meter ran beside the blocking calls: the window's CPU was measured.
    for phase in ("replay", "baseline"):
        assert report["cpu"][phase]["server"] > 0, phase
        assert report["cpu"][phase]["client"][0] > 0, phase


def test_service_bench_with_the_server_on_one_cpu(tmp_path: Path) -> None:
    """--server-cpus: the started server (and its Redis) on one CPU, as the documented
    commands pin it."""
    out = tmp_path / "bench.json"
    cpu = max(os.sched_getaffinity(0))
    main(
        [
            *["--game", "trinity", "--concurrency", "4", "--server-cpus", str(cpu)],
            *["--no-redis-count", "--duration", "1", "--warmup", "0.2", "--json", str(out)],
        ]
    )
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["config"]["server_cpus"] == [cpu]
    assert report["errors"] == {}
    for entry in (report["baseline"], report["apply_move"], report["game_play"]["apply_move"]):
        assert entry["errors"] == 0
        assert entry["calls_per_s"] > 0


def test_service_bench_against_a_running_server(tmp_path: Path) -> None:
    """--target and --server-pid: a server started elsewhere, its CPU measured."""
    flags = ("--benchmark-service", "--anonymous-rate-limit", "0")
    out = tmp_path / "bench.json"
    with EmbeddedRedis() as store, LocalServer(store.url, extra_args=flags) as server:
        assert server.process is not None
        main(
            [
                *["--target", server.target, "--server-pid", str(server.process.pid)],
                *["--replay-only", "--game", "trinity", "--concurrency", "4", "--no-redis-count"],
                *["--duration", "0.5", "--warmup", "0.1", "--json", str(out)],
            ]
        )
    report: dict[str, Any] = json.loads(out.read_text())
    assert (report["config"]["target"], report["config"]["server_started"]) == (
        server.target,
        False,
    )
    assert report["errors"] == {}
    assert list(report["cpu"]) == ["replay", "baseline"]
    for phase in ("replay", "baseline"):
        assert report["cpu"][phase]["server"] > 0, phase


def test_blocking_stubs_need_one_call_in_flight_per_process() -> None:
    with pytest.raises(SystemExit):
        main(["--client", "blocking", "--concurrency", "4"])


def test_engine_bench_runs_playouts_and_sizes_states(tmp_path: Path) -> None:
    out = tmp_path / "engines.json"
    main(
        [
            *["--engines", "--game", "vampire_queen", "--duration", "0.5"],
            *["--no-rlcard", "--json", str(out)],
        ]
    )
    report = json.loads(out.read_text())
    # Every report names its command and the machine it ran on (docs/results).
    assert report["command"].startswith("croupier-bench --engines --game vampire_queen")
    assert report["machine"]["cpu_count"] >= 1
    assert len(report["machine"]["load_average_before"]) == 3
    entry = report["engines"]["vampire_queen"]
    assert "error" not in entry
    assert entry["moves_per_s"] > 0
    assert entry["playouts"] >= 1
    assert entry["seats"] == 12
    assert 0 < entry["state_bytes_mean"] <= entry["state_bytes_max"]
    assert entry["state_bytes_max"] < entry["stored_bytes_max"]
    assert 0 < entry["log_bytes_mean"] <= entry["log_bytes_max"]


def test_watcher_bench_delivers_every_move_to_every_stream(tmp_path: Path) -> None:
    out = tmp_path / "watch.json"
    main(
        [
            *["--watchers", "24", "--watch-games", "3", "--watch-rate", "30"],
            *["--duration", "1", "--warmup", "0.3", "--json", str(out)],
        ]
    )
    watch = json.loads(out.read_text())["watch"]
    assert (watch["game"], watch["watchers"], watch["games"]) == ("vampire_queen", 24, 3)
    assert watch["errors"] == 0
    assert watch["stream_errors"] == {}
    assert watch["missed_updates"] == 0
    assert watch["moves_per_s"] > 0
    # Every stream gets every move: 8 streams per game, so 8 updates per move measured. The
    # updates of the window's moves count whenever they arrive: an equality of counts, which a
    # busy machine's slow delivery does not break (assert order and completeness, not wall
    # time).
    assert watch["updates_per_s"] == pytest.approx(8 * watch["moves_per_s"])
    delivery = watch["delivery_ms"]
    assert 0 < delivery["p50"] <= delivery["p99"] <= delivery["max"]
    assert watch["server_us_per_update"] > 0
    # The server's resident memory before the streams and with them open.
    assert len(watch["server_rss_mb"]) == 2
    assert isinstance(watch["server_bytes_per_stream"], int)


def test_the_split_watcher_bench_sends_each_half_its_moves_in_turn(tmp_path: Path) -> None:
    """--watch-split: the first half of the games keeps one stream each, and the pairs of
    phases give the cost of the second half's extra streams, every update still delivered."""
    out = tmp_path / "watch.json"
    main(
        [
            *["--watchers", "8", "--watch-games", "4", "--game", "one_card", "--seats", "2"],
            *["--watch-rate", "40", "--watch-split", "2", "--duration", "2", "--warmup", "0.3"],
            *["--json", str(out)],
        ]
    )
    watch = json.loads(out.read_text())["watch"]
    assert watch["watchers"] == 6  # 2 games of one stream, 2 of two (seat 0 and seat 1)
    assert (watch["errors"], watch["stream_errors"], watch["missed_updates"]) == (0, {}, 0)
    # Each half moved in its phases: between one and two updates a move.
    assert watch["moves_per_s"] < watch["updates_per_s"] < 2 * watch["moves_per_s"]
    split = watch["split"]
    assert (split["pairs"], split["extra_streams_per_move"]) == (2, 1.0)
    assert all(one > 0 and every > 0 for one, every in split["us_per_move"])
    assert len(split["us_per_extra_update"]) == 2
    assert split["mean_us"] == pytest.approx(sum(split["us_per_extra_update"]) / 2, abs=0.1)


def test_the_split_watcher_benchs_phases_streams_and_figures() -> None:
    from croupier.bench.watch import opened_streams, phase_order, split_figures

    order = phase_order(50, random.Random(1))
    pairs = {tuple(order[i : i + 2]) for i in range(0, 100, 2)}
    assert pairs == {(0, 1), (1, 0)}  # each pair both halves, in an order drawn for it
    assert opened_streams(8, 4, split=False) == list(range(8))
    # Stream n watches game n % 4: games 0 and 1 keep their first stream only.
    assert opened_streams(8, 4, split=True) == [0, 1, 2, 3, 6, 7]
    # 16 games of 4 seats: 8 watched by one seat, 8 by all four, 3 extra updates a move.
    opened = opened_streams(64, 16, split=True)
    cpu_per_move = [700e-6, 790e-6, 800e-6, 710e-6, 705e-6, 801e-6]
    figures = split_figures([0, 1, 1, 0, 0, 1], cpu_per_move, opened, 16)
    assert figures["extra_streams_per_move"] == 3
    assert figures["us_per_move"] == [[700.0, 790.0], [710.0, 800.0], [705.0, 801.0]]
    assert figures["us_per_extra_update"] == [30.0, 30.0, 32.0]
    assert (figures["median_us"], figures["mean_us"], figures["sem_us"]) == (30.0, 30.7, 0.7)
    # A phase no move reached (its half's games had all ended) leaves its pair out.
    cpu_per_move[3] = math.nan
    assert split_figures([0, 1, 1, 0, 0, 1], cpu_per_move, opened, 16)["pairs"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["--watch-split", "2"],  # not the watcher bench
        ["--watchers", "4", "--watch-games", "4", "--watch-split", "2"],  # no extra stream
        ["--watchers", "4", "--watch-games", "1", "--watch-split", "2"],  # no halves
    ],
)
def test_the_split_watcher_bench_refuses_what_it_cannot_compare(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        main(argv)


def test_the_watcher_bench_gives_an_ended_games_turns_to_the_others() -> None:
    from croupier.bench.spec import Recorded
    from croupier.bench.watch import _Table, _Turns
    from croupier.v1.game_service_pb2 import CreateGameResponse

    def table(name: str, moves: int) -> _Table:
        recorded = Recorded("one_card", b"", tuple((0, b"") for _ in range(moves)))
        return _Table(recorded, CreateGameResponse(name=name))

    tables = [table("a", 1), table("b", 3), table("c", 0), table("d", 2)]
    turns = _Turns(tables)
    sent = []
    while (game := turns.next()) is not None:
        sent.append(game.name)
        game.next += 1  # its move sent
    assert sent == ["a", "b", "d", "b", "d", "b"]  # every move, and no turn left unused
    assert turns.next() is None
