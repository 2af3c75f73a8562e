"""The tables of docs/performance.md and docs/scaling.md, made from `croupier-bench --json`
reports kept in docs/results/.

    python -m croupier.service.bench.tables            # rewrite the tables in the pages
    python -m croupier.service.bench.tables --check    # exit 1 when a page's table differs

A table sits in its page between `<!-- results: KIND FILE ... -->` and `<!-- /results -->`:
KIND names one of the renderers below, each FILE a report in the results folder (a glob
pattern: its files in order). The figures come from the reports only; each table ends with the
machine its reports ran on. To update a table, run its command (the `--json` path is in it)
and then this.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

Report = dict[str, Any]
Renderer = Callable[[Sequence[Report]], list[str]]

PAGES = (Path("docs/performance.md"), Path("docs/scaling.md"))
RESULTS = Path("docs/results")
DASH, TIMES = "\u2013", "\u00d7"  # as the pages write ranges and ratios
BLOCK = re.compile(r"(<!-- results: ([^>]*?) -->\n)(.*?)(<!-- /results -->)", re.DOTALL)
GAME_ORDER = ("whats_your_name", "one_card", "pig_mau_mau", "vampire_queen", "trinity")

# Targets: server CPU per replayed ApplyMove and per game-play move (a ListLegalMoves and an
# ApplyMove) at 32 in flight; an extra seat's watch update; latency at one call in flight; a
# Redis Cluster's cost over a single Redis; what a turn clock and the feed add to a move;
# random moves per second of each engine and One Card's against RLCard's UNO.
APPLY_US = 400.0
GAME_PLAY_US = 650.0
EXTRA_UPDATE_US = 40.0
P50_MS, P99_MS = 0.8, 1.5
CLUSTER_OVER_SINGLE = 0.10
FEATURE_US = 50.0
ENGINE_MOVES_PER_S = 50_000.0
OVER_UNO = 1.0
STORED_BYTES = 2048


class MissingReport(LookupError):
    pass


def number(value: float | None, digits: int = 0) -> str:
    """A figure as the pages write it: thousands separated, a dash for none."""
    if value is None:
        return DASH
    return f"{value:,.{digits}f}"


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _header(*names: str) -> list[str]:
    return [_row(*names), _row(*("---" for _ in names))]


def _games(report: Report) -> list[str]:
    return [game for game in GAME_ORDER if game in report]


def _load_before(report: Report) -> float | None:
    machine = report.get("machine")
    if machine:
        return float(machine["load_average_before"][0])
    return None


def _load_after(report: Report) -> float | None:
    for holder in (report.get("config"), *(v for v in report.values() if isinstance(v, dict))):
        if isinstance(holder, dict) and "load_average" in holder:
            return float(holder["load_average"][0])
    return None


def _span(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}" if low == high else f"{low:.2f}{DASH}{high:.2f}"


def machine_line(reports: Sequence[Report]) -> str:
    """What the reports ran on, and whether other work shared the machine: a load average of 1
    or more before a run, or at its end more than the bench's own (server, Redis, client: about
    one per CPU) and one, means other processes were running beside it."""
    described = []
    for report in reports:
        machine = report.get("machine")
        if machine:
            text = (
                f"{machine['cpu']}, {machine['cpu_count']} CPUs, {machine['system']}, Python"
                f" {machine['python']}, grpcio {machine['grpcio']}, protobuf {machine['protobuf']}"
            )
        else:
            cpus = (report.get("config") or {}).get("cpu_count")
            text = f"{cpus} CPUs" if cpus else "not recorded"
        if text not in described:
            described.append(text)
    before = [load for load in map(_load_before, reports) if load is not None]
    after = [
        load
        for load in (_load_after(r) for r in reports if _load_before(r) is None)
        if load is not None
    ]
    runs = "runs" if len(reports) > 1 else "run"
    loads = []
    if before:
        loads.append(f"load average {_span(before)} before the {runs}")
    if after:
        loads.append(f"load average {_span(after)} at the end of the {runs}")
    cpus = max(
        (int((r.get("machine") or r.get("config") or {}).get("cpu_count") or 1) for r in reports),
        default=1,
    )
    shared = any(load >= 1.0 for load in before) or any(load >= cpus + 1 for load in after)
    note = ": other work shared the machine, so the figures are noisy" if shared else ""
    return f"Machine: {'; '.join(described)}; {', '.join(loads)}{note}."


def _commands(reports: Sequence[Report]) -> list[str]:
    commands = [report["command"] for report in reports if report.get("command")]
    if not commands:
        return []
    return ["", *(f"    {command}" for command in commands)]


def _block(reports: Sequence[Report], table: list[str], *notes: str) -> list[str]:
    return [*_commands(reports), "", *table, "", *notes, machine_line(reports)]


def _cpu(report: Report, phase: str, label: str = "server_us_per_move") -> float | None:
    value = (report.get("cpu") or {}).get(phase, {}).get(label)
    return float(value) if value is not None else None


def _seats(report: Report, game: str) -> int:
    return int(report["config"]["seats"][game])


# The service benchmark.


def service(reports: Sequence[Report]) -> list[str]:
    """Per game: replayed ApplyMoves (the server's CPU per move, calls/s, against Echo) and
    game-play moves (a ListLegalMoves and an ApplyMove)."""
    (report,) = reports
    base = report["baseline"]
    table = _header(
        "game (seats)",
        "replayed ApplyMove/s",
        f"{TIMES} Echo",
        "server µs per ApplyMove",
        "Redis µs",
        "game-play moves/s",
        "server µs per game-play move",
    )
    table.append(
        _row(
            "Echo (the baseline)",
            number(base["calls_per_s"]),
            "1",
            number(_cpu(report, "baseline", "server_us_per_call"), 1),
            "",
            "",
            "",
        )
    )
    plays = (report.get("game_play") or {}).get("games", {})
    for game in _games(report):
        entry = report[game]
        phase = f"replay:{game}" if report["config"]["separately"] else "replay"
        play = f"game_play:{game}" if report["config"]["separately"] else "game_play"
        table.append(
            _row(
                f"{game} ({_seats(report, game)})",
                number(entry["calls_per_s"]),
                number(entry["ratio"], 2),
                number(_cpu(report, phase), 1),
                number(_cpu(report, phase, "redis_us_per_move"), 1),
                number(plays.get(game, {}).get("calls_per_s")),
                number(_cpu(report, play), 1),
            )
        )
    errors = sum(report["errors"].values())
    return _block(reports, table, f"Errors: {errors}.")


def latency(reports: Sequence[Report]) -> list[str]:
    """Per game, one call in flight: ApplyMove's latency percentiles and the server's CPU."""
    (report,) = reports
    base = report["baseline"]
    table = _header(
        "game (seats)", "ApplyMove/s", "p50 ms", "p90 ms", "p99 ms", "server µs per ApplyMove"
    )
    table.append(
        _row(
            "Echo (the baseline)",
            number(base["calls_per_s"]),
            number(base["p50_ms"], 3),
            number(base["p90_ms"], 3),
            number(base["p99_ms"], 3),
            number(_cpu(report, "baseline", "server_us_per_call"), 1),
        )
    )
    for game in _games(report):
        entry = report[game]
        phase = f"replay:{game}" if report["config"]["separately"] else "replay"
        table.append(
            _row(
                f"{game} ({_seats(report, game)})",
                number(entry["calls_per_s"]),
                number(entry["p50_ms"], 3),
                number(entry["p90_ms"], 3),
                number(entry["p99_ms"], 3),
                number(_cpu(report, phase), 1),
            )
        )
    return _block(reports, table, f"Errors: {sum(report['errors'].values())}.")


def redis_calls(reports: Sequence[Report]) -> list[str]:
    """Redis round trips, commands and bytes of single calls (the service benchmark's count)."""
    (report,) = reports
    counts = report["redis"]
    table = _header(
        "RPC", "round trips", "commands (each once unless said)", "bytes to / from Redis"
    )
    for rpc in ("apply_move", "list_legal_moves", "get_game", "create_game"):
        entry = counts.get(rpc)
        if not entry:
            continue
        commands = ", ".join(
            f"`{name.upper()}`" + (f" {TIMES}{count:g}" if count != 1 else "")
            for name, count in sorted(entry["commands_per_call"].items())
        )
        trips = entry["round_trips_median"]
        spread = (entry["round_trips_min"], entry["round_trips_max"])
        table.append(
            _row(
                rpc,
                f"{trips:g}" + (f" ({spread[0]}{DASH}{spread[1]})" if len(set(spread)) > 1 else ""),
                commands,
                f"{number(entry['net_input_bytes_median'])}"
                f" / {number(entry['net_output_bytes_median'])}",
            )
        )
    game = next(iter(_games(report)), "")
    return _block(
        reports,
        table,
        f"Medians of single calls, one at a time ({game}, {_seats(report, game)} seats).",
    )


def redis_per_move(reports: Sequence[Report]) -> list[str]:
    """Redis counters over each replay window (`--redis-stats`), per move, and the memory of
    the replayed games' keys."""
    table = _header(
        "game (seats)",
        "round trips",
        "commands",
        "bytes to Redis",
        "bytes from Redis",
        "`used_memory` growth",
    )
    for report in reports:
        windows = report["redis"]["replay"]
        for game in _games(report):
            entry = windows.get(f"replay:{game}") or {}
            if "error" in entry or not entry:
                continue
            table.append(
                _row(
                    f"{game} ({_seats(report, game)})",
                    number(entry["round_trips_per_move"], 3),
                    number(sum(entry["commands_per_move"].values()), 2),
                    number(entry["net_input_bytes_per_move"]),
                    number(entry["net_output_bytes_per_move"]),
                    number(entry["used_memory_per_move"]),
                )
            )
    return _block(reports, table, "Bytes per move, over each game's replay window.")


def redis_memory(reports: Sequence[Report]) -> list[str]:
    """Redis memory of the keys of replayed, finished games (`--redis-stats`)."""
    table = _header(
        "game (seats)",
        "moves per game",
        "game hash",
        "move log per move",
        "idempotency record (its stored bytes)",
    )
    for report in reports:
        games = report["redis"].get("games") or {}
        for game in _games(report):
            entry = games.get(game)
            if not entry:
                continue
            table.append(
                _row(
                    f"{game} ({_seats(report, game)})",
                    number(entry["moves_mean"]),
                    f"{number(entry['game_key_memory_mean'])} B",
                    f"{number(entry['log_key_memory_mean'] / entry['moves_mean'], 1)} B",
                    f"{number(entry['record_key_memory_mean'])} B"
                    f" ({number(entry['record_bytes_mean'])} B)",
                )
            )
    return _block(
        reports, table, "`MEMORY USAGE` of each key, means over the replayed games of each type."
    )


# The engines.


def engines(reports: Sequence[Report]) -> list[str]:
    """Random playouts per game: moves per second, sizes; RLCard's UNO when it ran."""
    table = _header(
        "game",
        "seats",
        "moves/s",
        "moves per game",
        "StoredGame bytes mean / max",
        "move log per game mean / max",
    )
    notes = []
    for report in reports:
        for game in GAME_ORDER:
            entry = report["engines"].get(game)
            if not entry or "error" in entry:
                continue
            table.append(
                _row(
                    game,
                    entry["seats"],
                    number(entry["moves_per_s"]),
                    number(entry["moves_per_playout"]),
                    f"{number(entry['stored_bytes_mean'])} / {number(entry['stored_bytes_max'])}",
                    f"{number(entry['log_bytes_mean'])} / {number(entry['log_bytes_max'])}",
                )
            )
        uno = report.get("rlcard_uno")
        if uno and "error" not in uno:
            notes.append(
                f"RLCard {uno['version']} UNO ({uno['players']} players):"
                f" {number(uno['steps_per_s'])} steps/s; `one_card` with {uno['players']} seats in"
                f" the same run: {number(uno['one_card_moves_per_s'])} moves/s,"
                f" **{uno['one_card_over_uno']:.2f}{TIMES} UNO**."
            )
    return _block(reports, table, *notes)


def stored_bytes(reports: Sequence[Report]) -> list[str]:
    """What a game stores, from the engine benchmark's sizes: the `StoredGame` after every move
    and the move log of each whole game."""
    table = _header(
        "game",
        "seats",
        "StoredGame bytes mean / max",
        "move log per game mean / max",
        "moves per game",
    )
    for report in reports:
        for game in GAME_ORDER:
            entry = report["engines"].get(game)
            if not entry or "error" in entry:
                continue
            table.append(
                _row(
                    game,
                    entry["seats"],
                    f"{number(entry['stored_bytes_mean'])} / {number(entry['stored_bytes_max'])}",
                    f"{number(entry['log_bytes_mean'])} / {number(entry['log_bytes_max'])}",
                    number(entry["moves_per_playout"]),
                )
            )
    return _block(reports, table)


# Streams and sessions.


def watchers(reports: Sequence[Report]) -> list[str]:
    """WatchGame streams while moves are applied: delivery, the server's CPU, memory."""
    table = _header(
        "streams",
        "games",
        "moves/s",
        "updates/s",
        "missed",
        "delivery p50 / p99 / max ms",
        "server µs per update",
        "server memory per stream",
    )
    for report in reports:
        watch = report["watch"]
        delivery = watch["delivery_ms"]
        table.append(
            _row(
                number(watch["watchers"]),
                number(watch["games"]),
                number(watch["moves_per_s"]),
                number(watch["updates_per_s"]),
                number(watch["missed_updates"]),
                " / ".join(number(delivery[k], 1) for k in ("p50", "p99", "max")),
                number(watch.get("server_us_per_update"), 1),
                f"{number(watch.get('server_bytes_per_stream'))} B",
            )
        )
    games = sorted({f"{r['watch']['game']} ({r['watch']['seats']} seats)" for r in reports})
    errors = sum(r["watch"]["errors"] + sum(r["watch"]["stream_errors"].values()) for r in reports)
    return _block(reports, table, f"Games: {', '.join(games)}. Errors: {errors}.")


def watch_split(reports: Sequence[Report]) -> list[str]:
    """An extra seat's update against a baseline taken in the same server (`--watch-split`)."""
    table = _header(
        "moves/s",
        "pairs",
        "extra updates per move",
        "µs per extra seat update: mean ± standard error",
        "median",
        "missed",
    )
    for report in reports:
        watch = report["watch"]
        split = watch["split"]
        table.append(
            _row(
                number(watch["moves_per_s"]),
                split["pairs"],
                number(split["extra_streams_per_move"], 2),
                f"**{number(split['mean_us'], 1)} ± {number(split['sem_us'], 1)}**",
                number(split["median_us"], 1),
                watch["missed_updates"],
            )
        )
    return _block(reports, table)


def _median(values: Iterable[float]) -> float:
    return float(statistics.median(values))


def _dig(value: Any, path: Sequence[str]) -> Any:
    for step in path:
        value = value[step]
    return value


def table_sessions(reports: Sequence[Report]) -> list[str]:
    """`--table`: PlayGame sessions against WatchGame + ListLegalMoves + ApplyMove; runs of the
    same number of games give the medians of each column on its own."""
    groups: dict[int, list[Report]] = {}
    for report in reports:
        groups.setdefault(int(report["config"]["games"]), []).append(report)
    table = _header(
        "`--games`",
        "phase",
        "server + Redis µs/move (server, Redis)",
        "moves/s",
        "p50 ms",
        "p99 ms",
        "updates/move",
        "errors",
    )
    notes = []
    for games, runs in sorted(groups.items()):
        for phase, label in (
            ("table", "`table` (PlayGame)"),
            ("table_unary", "`table_unary` (WatchGame + ListLegalMoves + ApplyMove)"),
        ):

            def med(*path: str, runs: list[Report] = runs, phase: str = phase) -> float:
                return _median(float(_dig(run[phase], path)) for run in runs)

            table.append(
                _row(
                    number(games),
                    label,
                    f"{number(med('server_us_per_move'), 1)}"
                    f" ({number(med('cpu_us_per_move', 'server'), 1)},"
                    f" {number(med('cpu_us_per_move', 'redis'), 1)})",
                    number(med("moves_per_s")),
                    number(med("p50_ms"), 2),
                    number(med("p99_ms"), 2),
                    number(med("updates_per_move"), 2),
                    number(med("errors")),
                )
            )
        if len(runs) > 1:
            notes.append(
                f"`--games {games}`: the medians of {len(runs)} runs, each column on its own."
            )
    return _block(reports, table, *notes)


# The curves of docs/scaling.md.


def stored_games(reports: Sequence[Report]) -> list[str]:
    """`--stored-games N`: Redis memory per idle game, and a move's cost among them."""
    table = _header(
        "idle games stored",
        "Redis `used_memory`",
        "per stored game",
        "fill",
        "ApplyMove p50 / p99 ms",
        "server µs per ApplyMove",
        "expired, read: gone",
        "expired keys reclaimed",
    )
    for report in sorted(reports, key=lambda r: int(r["stored_games"]["games"])):
        stored = report["stored_games"]
        expiry = stored.get("expiry") or {}
        table.append(
            _row(
                number(stored["games"]),
                f"{number(stored['used_memory_mb'], 1)} MB",
                f"{number(stored['used_memory_per_game'])} B",
                f"{number(stored['fill_s'], 1)} s",
                f"{number(report['apply_move']['p50_ms'], 3)}"
                f" / {number(report['apply_move']['p99_ms'], 3)}",
                number(_cpu(report, "replay"), 1),
                expiry.get("read_not_found", DASH),
                f"{number(expiry.get('reclaimed'))} of {number(expiry.get('probes'))}"
                f" within {number(expiry.get('reclaimed_after_s'), 1)} s",
            )
        )
    return _block(reports, table)


def long_game(reports: Sequence[Report]) -> list[str]:
    """`--long-game MOVES`: a move's cost slice by slice along one long match."""
    (report,) = reports
    match = report["long_game"]
    table = _header(
        "moves", "ApplyMove/s", "p50 ms", "p99 ms", "server µs per move", "response bytes"
    )
    for entry in match["slices"]:
        first, last = entry["moves"]
        table.append(
            _row(
                f"{number(first)}{DASH}{number(last)}",
                number(entry["calls_per_s"]),
                number(entry["p50_ms"], 2),
                number(entry["p99_ms"], 2),
                number(entry.get("server_us_per_move"), 1),
                number(entry["response_bytes"]),
            )
        )
    log = match.get("log") or {}
    notes = [
        f"{match['copies']} copies of one {match['game']} match ({match['seats']} seats) in step;"
        f" errors: {match['errors']}. The move log: {number(log.get('entry_bytes_mean'), 1)} B a"
        f" move, {number(log.get('log_memory_per_move'), 1)} B of Redis memory a move"
        f" ({number(log.get('log_key_memory'))} B for {number(log.get('entries'))} moves); the"
        f" state {number(log.get('stored_state_bytes'))} B."
    ]
    return _block(reports, table, *notes)


def _replay_us(report: Report) -> float | None:
    return _cpu(report, "replay")


def _server_cores(report: Report) -> float | None:
    share = (report.get("cpu") or {}).get("replay", {}).get("server")
    return float(share) if share is not None else None


def _server_label(report: Report) -> str:
    config = report["config"]
    workers = next(
        (arg.split("=", 1)[1] for arg in config["server_args"] if arg.startswith("--workers=")), "1"
    )
    label = f"{workers} process{'es' if workers != '1' else ''}"
    if "--pin-workers" in config["server_args"]:
        label += ", pinned (`--pin-workers`)"
    elif config["server_cpus"]:
        label += f" on CPU {','.join(map(str, config['server_cpus']))}"
    else:
        label += ", not pinned"
    if config["client_cpus"]:
        label += f"; the bench on CPU {','.join(map(str, config['client_cpus']))}"
    return label


def cores(reports: Sequence[Report]) -> list[str]:
    """One server process or several (`--workers`), pinned or floating."""
    table = _header(
        "server",
        "ApplyMove/s",
        "server CPU (cores)",
        "server µs per ApplyMove",
        "ApplyMove/s per server core",
        "Echo/s",
    )
    for report in reports:
        calls = float(report["apply_move"]["calls_per_s"])
        share = _server_cores(report)
        table.append(
            _row(
                _server_label(report),
                number(calls),
                number(share, 2),
                number(_replay_us(report), 1),
                number(calls / share if share else None),
                number(report["baseline"]["calls_per_s"]),
            )
        )
    return _block(reports, table)


def _relative(value: float | None, base: float | None) -> str:
    if value is None or base is None:
        return DASH
    return f"{value - base:+,.1f} µs ({(value - base) / base:+.1%})"


def cluster(reports: Sequence[Report]) -> list[str]:
    """A single Redis against a local Redis Cluster (`--redis-cluster N`)."""
    single, *others = reports
    table = _header("store", "ApplyMove/s", "server µs per ApplyMove", "against a single Redis")
    for report in (single, *others):
        masters = report["config"].get("redis_cluster_masters")
        table.append(
            _row(
                f"Redis Cluster, {masters} masters" if masters else "single Redis",
                number(report["apply_move"]["calls_per_s"]),
                number(_replay_us(report), 1),
                _relative(_replay_us(report), _replay_us(single)) if report is not single else "",
            )
        )
    return _block(reports, table)


def features(reports: Sequence[Report]) -> list[str]:
    """What a turn clock, the feed's move events and bot seats cost a move."""
    plain, *others = reports
    base = _replay_us(plain)
    table = _header("run", "moves/s", "server µs per move", "added per move")
    table.append(
        _row("replay, no feature", number(plain["apply_move"]["calls_per_s"]), number(base, 1), "")
    )
    for report in others:
        if "bot_games" in report:
            bots = report["bot_games"]
            table.append(
                _row(
                    f"bot seats: a move the server's {bots['bot_level']} bot makes",
                    number(bots["moves_per_s"]),
                    number(bots.get("server_us_per_move"), 1),
                    "",
                )
            )
            continue
        config = report["config"]
        if config.get("clock_seconds"):
            label = f"replay, turn clock (`--clock {config['clock_seconds']}`)"
        else:
            label = "replay, " + " ".join(f"`{arg}`" for arg in config["server_args"])
        table.append(
            _row(
                label,
                number(report["apply_move"]["calls_per_s"]),
                number(_replay_us(report), 1),
                _relative(_replay_us(report), base),
            )
        )
    return _block(reports, table)


# The targets.


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def targets(reports: Sequence[Report]) -> list[str]:
    """Each target against the reports it is measured by: service, latency, watch-split,
    engines, cluster-single, cluster-3, features-none, features-clock, features-feed,
    bot-seats (in that order)."""
    service_r, latency_r, split_r, engines_r, single, clustered, plain, clock, feed, bots = reports
    table = _header("target", "this run", "")
    games = _games(service_r)

    replay = [_cpu(service_r, f"replay:{g}") or 0.0 for g in games]
    table.append(
        _row(
            f"server CPU per replayed ApplyMove ≤ {APPLY_US:.0f} µs at 32 in flight, every game",
            f"{number(min(replay), 1)}{DASH}{number(max(replay), 1)} µs",
            _met(max(replay) <= APPLY_US),
        )
    )
    play = [_cpu(service_r, f"game_play:{g}") or 0.0 for g in games]
    table.append(
        _row(
            f"ListLegalMoves + ApplyMove per move ≤ {GAME_PLAY_US:.0f} µs, every game",
            f"{number(min(play), 1)}{DASH}{number(max(play), 1)} µs",
            _met(max(play) <= GAME_PLAY_US),
        )
    )
    split = split_r["watch"]["split"]
    table.append(
        _row(
            f"one more watch update ≤ {EXTRA_UPDATE_US:.0f} µs, one stream per seat",
            f"{number(split['mean_us'], 1)} ± {number(split['sem_us'], 1)} µs (median"
            f" {number(split['median_us'], 1)})",
            _met(float(split["mean_us"]) <= EXTRA_UPDATE_US),
        )
    )
    p50 = [float(latency_r[g]["p50_ms"]) for g in _games(latency_r)]
    p99 = [float(latency_r[g]["p99_ms"]) for g in _games(latency_r)]
    table.append(
        _row(
            f"ApplyMove p50 ≤ {P50_MS} ms, p99 ≤ {P99_MS} ms at one call in flight, every game",
            f"p50 {number(min(p50), 3)}{DASH}{number(max(p50), 3)}, p99 {number(min(p99), 2)}{DASH}"
            f"{number(max(p99), 2)} ms",
            _met(max(p50) <= P50_MS and max(p99) <= P99_MS),
        )
    )
    single_us, cluster_us = _replay_us(single), _replay_us(clustered)
    if single_us and cluster_us:
        table.append(
            _row(
                f"Redis Cluster within {CLUSTER_OVER_SINGLE:.0%} of a single Redis in server CPU"
                " per move",
                f"{(cluster_us - single_us) / single_us:+.1%} ({number(cluster_us, 1)} against"
                f" {number(single_us, 1)} µs)",
                _met(cluster_us <= single_us * (1 + CLUSTER_OVER_SINGLE)),
            )
        )
    base = _replay_us(plain) or 0.0
    for name, report in (("a turn clock", clock), ("the feed's move events", feed)):
        added = (_replay_us(report) or 0.0) - base
        table.append(
            _row(
                f"{name}: at most +{FEATURE_US:.0f} µs a move",
                f"{added:+,.1f} µs",
                _met(added <= FEATURE_US),
            )
        )
    bot_us = float(bots["bot_games"]["server_us_per_move"])
    table.append(
        _row(
            f"a bot seat's move: at most a client's ApplyMove + {FEATURE_US:.0f} µs",
            f"{number(bot_us, 1)} µs against {number(base, 1)}",
            _met(bot_us <= base + FEATURE_US),
        )
    )
    rates = {
        g: float(e["moves_per_s"]) for g, e in engines_r["engines"].items() if "error" not in e
    }
    table.append(
        _row(
            f"engines ≥ {number(ENGINE_MOVES_PER_S)} random moves/s, every game",
            f"{number(min(rates.values()))}{DASH}{number(max(rates.values()))}",
            _met(min(rates.values()) >= ENGINE_MOVES_PER_S),
        )
    )
    uno = engines_r.get("rlcard_uno")
    if uno and "error" not in uno:
        table.append(
            _row(
                f"`one_card` ≥ {OVER_UNO:.1f}{TIMES} RLCard's UNO",
                f"{uno['one_card_over_uno']:.2f}{TIMES}",
                _met(float(uno["one_card_over_uno"]) >= OVER_UNO),
            )
        )
    stored = max(
        int(e["stored_bytes_max"]) for e in engines_r["engines"].values() if "error" not in e
    )
    table.append(
        _row(
            f"stored state < {number(STORED_BYTES)} B, every game",
            f"at most {number(stored)} B",
            _met(stored < STORED_BYTES),
        )
    )
    trips = service_r["redis"]["apply_move"]
    low, high, calls = trips["round_trips_min"], trips["round_trips_max"], trips["calls"]
    table.append(
        _row(
            "one Redis round trip per move (the process remembers the game)",
            f"{high} in each of {calls} calls"
            if low == high
            else f"{low}{DASH}{high} in {calls} calls",
            _met(int(high) == 1),
        )
    )
    return ["", *table, "", machine_line(reports)]


RENDERERS: dict[str, Renderer] = {
    "service": service,
    "latency": latency,
    "redis-calls": redis_calls,
    "redis-per-move": redis_per_move,
    "redis-memory": redis_memory,
    "stored-bytes": stored_bytes,
    "engines": engines,
    "watchers": watchers,
    "watch-split": watch_split,
    "table": table_sessions,
    "stored-games": stored_games,
    "long-game": long_game,
    "cores": cores,
    "cluster": cluster,
    "features": features,
    "targets": targets,
}


def load(results: Path, patterns: Sequence[str]) -> list[Report]:
    reports = []
    for pattern in patterns:
        paths = sorted(glob.glob(str(results / pattern)))
        if not paths:
            raise MissingReport(f"no report {results / pattern}")
        reports += [json.loads(Path(path).read_text()) for path in paths]
    return reports


def render_page(text: str, results: Path) -> str:
    """The page with every results block made again from the reports."""

    def render(match: re.Match[str]) -> str:
        kind, *patterns = match.group(2).split()
        if kind not in RENDERERS:
            raise KeyError(f"no renderer {kind!r}: one of {', '.join(RENDERERS)}")
        lines = RENDERERS[kind](load(results, patterns))
        return match.group(1) + "\n".join(lines) + "\n" + match.group(4)

    return BLOCK.sub(render, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m croupier.service.bench.tables",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("pages", nargs="*", type=Path, default=list(PAGES))
    parser.add_argument("--results", type=Path, default=RESULTS, help="the reports' folder")
    parser.add_argument("--check", action="store_true", help="change nothing; 1 if a table differs")
    args = parser.parse_args(argv)
    stale = []
    for page in args.pages:
        text = page.read_text()
        made = render_page(text, args.results)
        if made != text:
            stale.append(page)
            if not args.check:
                page.write_text(made)
    if args.check and stale:
        print(
            f"tables differ from {args.results}: {', '.join(map(str, stale))}"
            " (python -m croupier.service.bench.tables writes them)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
