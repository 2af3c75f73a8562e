"""The tables of docs/performance.md and docs/scaling.md, made from `croupier-bench --json`
reports kept in docs/results/.

    python -m croupier.bench.tables            # rewrite the tables in the pages
    python -m croupier.bench.tables --check    # exit 1 when a page's table differs

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
from operator import itemgetter
from pathlib import Path
from typing import Any

Report = dict[str, Any]
Renderer = Callable[[Sequence[Report]], list[str]]
Column = tuple[str, Callable[[Any], object]]  # a header, and the cell it makes of a row

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


def _table(columns: Sequence[Column], rows: Iterable[Any]) -> list[str]:
    lines = [_row(*(name for name, _ in columns)), _row(*("---" for _ in columns))]
    return lines + [_row(*(cell(row) for _, cell in columns)) for row in rows]


def _span(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}" if low == high else f"{low:.2f}{DASH}{high:.2f}"


def _load_after(report: Report) -> float | None:
    for holder in (report.get("config"), *(v for v in report.values() if isinstance(v, dict))):
        if isinstance(holder, dict) and "load_average" in holder:
            return float(holder["load_average"][0])
    return None


def machine_line(reports: Sequence[Report]) -> str:
    """What the reports ran on, and whether other work shared the machine: a load average of 1
    or more before a run, or at its end more than the bench's own (server, Redis, client: about
    one per CPU) and one, means other processes were running beside it."""
    described: list[str] = []
    before: list[float] = []
    after: list[float] = []
    cpus = 1
    for report in reports:
        machine = report.get("machine")
        if machine:
            text = (
                f"{machine['cpu']}, {machine['cpu_count']} CPUs, {machine['system']}, Python"
                f" {machine['python']}, grpcio {machine['grpcio']}, protobuf {machine['protobuf']}"
            )
            before.append(float(machine["load_average_before"][0]))
        else:  # a report written before the machine was recorded: the load at its end
            count = (report.get("config") or {}).get("cpu_count")
            text = f"{count} CPUs" if count else "not recorded"
            if (load := _load_after(report)) is not None:
                after.append(load)
        cpus = max(cpus, int((machine or report.get("config") or {}).get("cpu_count") or 1))
        if text not in described:
            described.append(text)
    runs = "runs" if len(reports) > 1 else "run"
    loads = [f"load average {_span(before)} before the {runs}"] if before else []
    loads += [f"load average {_span(after)} at the end of the {runs}"] if after else []
    shared = any(load >= 1.0 for load in before) or any(load >= cpus + 1 for load in after)
    note = ": other work shared the machine, so the figures are noisy" if shared else ""
    return f"Machine: {'; '.join(described)}; {', '.join(loads)}{note}."


def _block(reports: Sequence[Report], table: list[str], *notes: str) -> list[str]:
    """The commands that made the reports, the table, its notes and the machine line."""
    commands = [f"    {r['command']}" for r in reports if r.get("command")]
    return [*(["", *commands] if commands else []), "", *table, "", *notes, machine_line(reports)]


def _cpu(report: Report, phase: str, label: str = "server_us_per_move") -> float | None:
    value = (report.get("cpu") or {}).get(phase, {}).get(label)
    return float(value) if value is not None else None


def _phase(report: Report, kind: str, game: str) -> str:
    return f"{kind}:{game}" if report["config"]["separately"] else kind


def _per_game(report: Report) -> list[tuple[str, str]]:
    """The report's games in the pages' order, each with its label: `game (seats)`."""
    games = [game for game in GAME_ORDER if game in report]
    return [(game, f"{game} ({report['config']['seats'][game]})") for game in games]


def _pair(mean: float | None, most: float | None, unit: str = "") -> str:
    return f"{number(mean)}{unit} / {number(most)}{unit}"


def service(reports: Sequence[Report]) -> list[str]:
    """Per game: replayed ApplyMoves (the server's CPU per move, calls/s, against Echo) and
    game-play moves (a ListLegalMoves and an ApplyMove)."""
    (r,) = reports
    plays = (r.get("game_play") or {}).get("games", {})
    echo = ["Echo (the baseline)", number(r["baseline"]["calls_per_s"]), "1"]
    echo += [number(_cpu(r, "baseline", "server_us_per_call"), 1), "", "", ""]
    rows = [
        (
            label,
            number(r[game]["calls_per_s"]),
            number(r[game]["ratio"], 2),
            number(_cpu(r, _phase(r, "replay", game)), 1),
            number(_cpu(r, _phase(r, "replay", game), "redis_us_per_move"), 1),
            number(plays.get(game, {}).get("calls_per_s")),
            number(_cpu(r, _phase(r, "game_play", game)), 1),
        )
        for game, label in _per_game(r)
    ]
    headers = ["game (seats)", "replayed ApplyMove/s", f"{TIMES} Echo", "server µs per ApplyMove"]
    headers += ["Redis µs", "game-play moves/s", "server µs per game-play move"]
    table = _table([(h, itemgetter(i)) for i, h in enumerate(headers)], [echo, *rows])
    return _block(reports, table, f"Errors: {sum(r['errors'].values())}.")


def latency(reports: Sequence[Report]) -> list[str]:
    """Per game, one call in flight: ApplyMove's latency percentiles and the server's CPU."""
    (r,) = reports
    rows = [("Echo (the baseline)", r["baseline"], "baseline", "server_us_per_call")]
    rows += [
        (label, r[game], _phase(r, "replay", game), "server_us_per_move")
        for game, label in _per_game(r)
    ]
    columns: list[Column] = [
        ("game (seats)", lambda row: row[0]),
        ("ApplyMove/s", lambda row: number(row[1]["calls_per_s"])),
        *(
            (f"{p} ms", lambda row, p=p: number(row[1][f"{p}_ms"], 3))
            for p in ("p50", "p90", "p99")
        ),
        ("server µs per ApplyMove", lambda row: number(_cpu(r, row[2], row[3]), 1)),
    ]
    return _block(reports, _table(columns, rows), f"Errors: {sum(r['errors'].values())}.")


def _commands_of(entry: Report) -> str:
    counts = sorted(entry["commands_per_call"].items())
    return ", ".join(f"`{n.upper()}`" + (f" {TIMES}{c:g}" if c != 1 else "") for n, c in counts)


def _trips(entry: Report) -> str:
    low, high = entry["round_trips_min"], entry["round_trips_max"]
    return f"{entry['round_trips_median']:g}" + (f" ({low}{DASH}{high})" if low != high else "")


def redis_calls(reports: Sequence[Report]) -> list[str]:
    """Redis round trips, commands and bytes of single calls (the service benchmark's count)."""
    (r,) = reports
    rpcs = ("apply_move", "list_legal_moves", "get_game", "create_game")
    rows = [(rpc, r["redis"][rpc]) for rpc in rpcs if r["redis"].get(rpc)]
    columns: list[Column] = [
        ("RPC", lambda row: row[0]),
        ("round trips", lambda row: _trips(row[1])),
        ("commands (each once unless said)", lambda row: _commands_of(row[1])),
        (
            "bytes to / from Redis",
            lambda row: _pair(row[1]["net_input_bytes_median"], row[1]["net_output_bytes_median"]),
        ),
    ]
    game, label = _per_game(r)[0]
    seats = label.removeprefix(game).strip(" ()")
    note = f"Medians of single calls, one at a time ({game}, {seats} seats)."
    return _block(reports, _table(columns, rows), note)


def redis_per_move(reports: Sequence[Report]) -> list[str]:
    """Redis counters over each replay window (`--redis-stats`), per move."""
    rows = [
        (label, r["redis"]["replay"].get(f"replay:{game}") or {})
        for r in reports
        for game, label in _per_game(r)
    ]
    columns: list[Column] = [
        ("game (seats)", lambda row: row[0]),
        ("round trips", lambda row: number(row[1]["round_trips_per_move"], 3)),
        ("commands", lambda row: number(sum(row[1]["commands_per_move"].values()), 2)),
        ("bytes to Redis", lambda row: number(row[1]["net_input_bytes_per_move"])),
        ("bytes from Redis", lambda row: number(row[1]["net_output_bytes_per_move"])),
        ("`used_memory` growth", lambda row: number(row[1]["used_memory_per_move"])),
    ]
    rows = [row for row in rows if row[1] and "error" not in row[1]]
    return _block(reports, _table(columns, rows), "Bytes per move, over each game's replay window.")


def redis_memory(reports: Sequence[Report]) -> list[str]:
    """Redis memory of the keys of replayed, finished games (`--redis-stats`)."""
    rows = [
        (label, r["redis"]["games"][game])
        for r in reports
        for game, label in _per_game(r)
        if game in (r["redis"].get("games") or {})
    ]
    columns: list[Column] = [
        ("game (seats)", lambda row: row[0]),
        ("moves per game", lambda row: number(row[1]["moves_mean"])),
        ("game hash", lambda row: f"{number(row[1]['game_key_memory_mean'])} B"),
        (
            "move log per move",
            lambda row: f"{number(row[1]['log_key_memory_mean'] / row[1]['moves_mean'], 1)} B",
        ),
        (
            "idempotency record (its stored bytes)",
            lambda row: (
                f"{number(row[1]['record_key_memory_mean'])} B"
                f" ({number(row[1]['record_bytes_mean'])} B)"
            ),
        ),
    ]
    note = "`MEMORY USAGE` of each key, means over the replayed games of each type."
    return _block(reports, _table(columns, rows), note)


def _engine_rows(reports: Sequence[Report]) -> list[tuple[str, Report]]:
    return [
        (game, r["engines"][game])
        for r in reports
        for game in GAME_ORDER
        if game in r["engines"] and "error" not in r["engines"][game]
    ]


STORED: list[Column] = [
    (
        "StoredGame bytes mean / max",
        lambda row: _pair(row[1]["stored_bytes_mean"], row[1]["stored_bytes_max"]),
    ),
    (
        "move log per game mean / max",
        lambda row: _pair(row[1]["log_bytes_mean"], row[1]["log_bytes_max"]),
    ),
]


def engines(reports: Sequence[Report]) -> list[str]:
    """Random playouts per game: moves per second, sizes; RLCard's UNO when it ran."""
    columns: list[Column] = [
        ("game", lambda row: row[0]),
        ("seats", lambda row: row[1]["seats"]),
        ("moves/s", lambda row: number(row[1]["moves_per_s"])),
        ("moves per game", lambda row: number(row[1]["moves_per_playout"])),
        *STORED,
    ]
    notes = [
        f"RLCard {uno['version']} UNO ({uno['players']} players): {number(uno['steps_per_s'])}"
        f" steps/s; `one_card` with {uno['players']} seats in the same run:"
        f" {number(uno['one_card_moves_per_s'])} moves/s, **{uno['one_card_over_uno']:.2f}{TIMES}"
        " UNO**."
        for uno in (r.get("rlcard_uno") for r in reports)
        if uno and "error" not in uno
    ]
    return _block(reports, _table(columns, _engine_rows(reports)), *notes)


def stored_bytes(reports: Sequence[Report]) -> list[str]:
    """What a game stores, from the engine benchmark's sizes: the `StoredGame` after every move
    and the move log of each whole game."""
    columns: list[Column] = [
        ("game", lambda row: row[0]),
        ("seats", lambda row: row[1]["seats"]),
        *STORED,
        ("moves per game", lambda row: number(row[1]["moves_per_playout"])),
    ]
    return _block(reports, _table(columns, _engine_rows(reports)))


def watchers(reports: Sequence[Report]) -> list[str]:
    """WatchGame streams while moves are applied: delivery, the server's CPU, memory."""
    delivery = ("p50", "p99", "max")
    columns: list[Column] = [
        *(
            (name, lambda w, key=key: number(w[key]))
            for name, key in (
                ("streams", "watchers"),
                ("games", "games"),
                ("moves/s", "moves_per_s"),
                ("updates/s", "updates_per_s"),
                ("missed", "missed_updates"),
            )
        ),
        (
            "delivery p50 / p99 / max ms",
            lambda w: " / ".join(number(w["delivery_ms"][k], 1) for k in delivery),
        ),
        ("server µs per update", lambda w: number(w.get("server_us_per_update"), 1)),
        ("server memory per stream", lambda w: f"{number(w.get('server_bytes_per_stream'))} B"),
    ]
    streams = [r["watch"] for r in reports]
    games = sorted({f"{w['game']} ({w['seats']} seats)" for w in streams})
    errors = sum(w["errors"] + sum(w["stream_errors"].values()) for w in streams)
    return _block(
        reports, _table(columns, streams), f"Games: {', '.join(games)}. Errors: {errors}."
    )


def watch_split(reports: Sequence[Report]) -> list[str]:
    """An extra seat's update against a baseline taken in the same server (`--watch-split`)."""
    columns: list[Column] = [
        ("moves/s", lambda w: number(w["moves_per_s"])),
        ("pairs", lambda w: w["split"]["pairs"]),
        ("extra updates per move", lambda w: number(w["split"]["extra_streams_per_move"], 2)),
        (
            "µs per extra seat update: mean ± standard error",
            lambda w: f"**{number(w['split']['mean_us'], 1)} ± {number(w['split']['sem_us'], 1)}**",
        ),
        ("median", lambda w: number(w["split"]["median_us"], 1)),
        ("missed", lambda w: w["missed_updates"]),
    ]
    return _block(reports, _table(columns, [r["watch"] for r in reports]))


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
    phases = (
        ("table", "`table` (PlayGame)"),
        ("table_unary", "`table_unary` (WatchGame + ListLegalMoves + ApplyMove)"),
    )
    rows = [
        (games, runs, phase, label)
        for games, runs in sorted(groups.items())
        for phase, label in phases
    ]

    def med(row: tuple[int, list[Report], str, str], *path: str) -> float:
        return float(statistics.median(float(_dig(run[row[2]], path)) for run in row[1]))

    columns: list[Column] = [
        ("`--games`", lambda row: number(row[0])),
        ("phase", lambda row: row[3]),
        (
            "server + Redis µs/move (server, Redis)",
            lambda row: (
                f"{number(med(row, 'server_us_per_move'), 1)}"
                f" ({number(med(row, 'cpu_us_per_move', 'server'), 1)},"
                f" {number(med(row, 'cpu_us_per_move', 'redis'), 1)})"
            ),
        ),
        ("moves/s", lambda row: number(med(row, "moves_per_s"))),
        ("p50 ms", lambda row: number(med(row, "p50_ms"), 2)),
        ("p99 ms", lambda row: number(med(row, "p99_ms"), 2)),
        ("updates/move", lambda row: number(med(row, "updates_per_move"), 2)),
        ("errors", lambda row: number(med(row, "errors"))),
    ]
    notes = [
        f"`--games {games}`: the medians of {len(runs)} runs, each column on its own."
        for games, runs in sorted(groups.items())
        if len(runs) > 1
    ]
    return _block(reports, _table(columns, rows), *notes)


def stored_games(reports: Sequence[Report]) -> list[str]:
    """`--stored-games N`: Redis memory per idle game, and a move's cost among them."""

    def reclaimed(expiry: Report) -> str:
        return (
            f"{number(expiry.get('reclaimed'))} of {number(expiry.get('probes'))}"
            f" within {number(expiry.get('reclaimed_after_s'), 1)} s"
        )

    columns: list[Column] = [
        ("idle games stored", lambda r: number(r["stored_games"]["games"])),
        ("Redis `used_memory`", lambda r: f"{number(r['stored_games']['used_memory_mb'], 1)} MB"),
        ("per stored game", lambda r: f"{number(r['stored_games']['used_memory_per_game'])} B"),
        ("fill", lambda r: f"{number(r['stored_games']['fill_s'], 1)} s"),
        (
            "ApplyMove p50 / p99 ms",
            lambda r: (
                f"{number(r['apply_move']['p50_ms'], 3)} / {number(r['apply_move']['p99_ms'], 3)}"
            ),
        ),
        ("server µs per ApplyMove", lambda r: number(_cpu(r, "replay"), 1)),
        (
            "expired, read: gone",
            lambda r: (r["stored_games"].get("expiry") or {}).get("read_not_found", DASH),
        ),
        ("expired keys reclaimed", lambda r: reclaimed(r["stored_games"].get("expiry") or {})),
    ]
    ordered = sorted(reports, key=lambda r: int(r["stored_games"]["games"]))
    return _block(reports, _table(columns, ordered))


def long_game(reports: Sequence[Report]) -> list[str]:
    """`--long-game MOVES`: a move's cost slice by slice along one long match."""
    (report,) = reports
    match = report["long_game"]
    columns: list[Column] = [
        ("moves", lambda s: f"{number(s['moves'][0])}{DASH}{number(s['moves'][1])}"),
        ("ApplyMove/s", lambda s: number(s["calls_per_s"])),
        ("p50 ms", lambda s: number(s["p50_ms"], 2)),
        ("p99 ms", lambda s: number(s["p99_ms"], 2)),
        ("server µs per move", lambda s: number(s.get("server_us_per_move"), 1)),
        ("response bytes", lambda s: number(s["response_bytes"])),
    ]
    log = match.get("log") or {}
    note = (
        f"{match['copies']} copies of one {match['game']} match ({match['seats']} seats) in step;"
        f" errors: {match['errors']}. The move log: {number(log.get('entry_bytes_mean'), 1)} B a"
        f" move, {number(log.get('log_memory_per_move'), 1)} B of Redis memory a move"
        f" ({number(log.get('log_key_memory'))} B for {number(log.get('entries'))} moves); the"
        f" state {number(log.get('stored_state_bytes'))} B."
    )
    return _block(reports, _table(columns, match["slices"]), note)


def _replay_us(report: Report) -> float | None:
    return _cpu(report, "replay")


def _server_label(config: Report) -> str:
    args = config["server_args"]
    workers = next((a.split("=", 1)[1] for a in args if a.startswith("--workers=")), "1")
    label = f"{workers} process{'es' if workers != '1' else ''}"
    if "--pin-workers" in args:
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

    def share(r: Report) -> float | None:
        value = (r.get("cpu") or {}).get("replay", {}).get("server")
        return float(value) if value is not None else None

    def per_core(r: Report) -> str:
        cores = share(r)
        return number(float(r["apply_move"]["calls_per_s"]) / cores if cores else None)

    columns: list[Column] = [
        ("server", lambda r: _server_label(r["config"])),
        ("ApplyMove/s", lambda r: number(r["apply_move"]["calls_per_s"])),
        ("server CPU (cores)", lambda r: number(share(r), 2)),
        ("server µs per ApplyMove", lambda r: number(_replay_us(r), 1)),
        ("ApplyMove/s per server core", per_core),
        ("Echo/s", lambda r: number(r["baseline"]["calls_per_s"])),
    ]
    return _block(reports, _table(columns, reports))


def _relative(value: float | None, base: float | None) -> str:
    if value is None or base is None:
        return DASH
    return f"{value - base:+,.1f} µs ({(value - base) / base:+.1%})"


def cluster(reports: Sequence[Report]) -> list[str]:
    """A single Redis against a local Redis Cluster (`--redis-cluster N`)."""
    single = reports[0]

    def store(r: Report) -> str:
        masters = r["config"].get("redis_cluster_masters")
        return f"Redis Cluster, {masters} masters" if masters else "single Redis"

    columns: list[Column] = [
        ("store", store),
        ("ApplyMove/s", lambda r: number(r["apply_move"]["calls_per_s"])),
        ("server µs per ApplyMove", lambda r: number(_replay_us(r), 1)),
        (
            "against a single Redis",
            lambda r: "" if r is single else _relative(_replay_us(r), _replay_us(single)),
        ),
    ]
    return _block(reports, _table(columns, reports))


def tls(reports: Sequence[Report]) -> list[str]:
    """A single Redis reached over TCP against the same over TLS (`--redis-tls`), in the order
    given (runs alternating): each run's figures, then the medians of each kind."""

    def kind(r: Report) -> str:
        return "TLS (`rediss://`)" if r["config"].get("redis_tls") else "TCP (`redis://`)"

    rows: list[tuple[str, float | None, float | None, float | None]] = [
        (
            kind(r),
            float(r["apply_move"]["calls_per_s"]),
            _replay_us(r),
            _cpu(r, "replay", "redis_us_per_move"),
        )
        for r in reports
    ]
    for label in ("TCP (`redis://`)", "TLS (`rediss://`)"):
        runs = [row for row in rows if row[0] == label]
        if len(runs) > 1:
            rows.append(
                (
                    f"median, {label}",
                    _median([r[1] for r in runs]),
                    _median([r[2] for r in runs]),
                    _median([r[3] for r in runs]),
                )
            )
    columns: list[Column] = [
        ("Redis over", lambda x: x[0]),
        ("ApplyMove/s", lambda x: number(x[1])),
        ("server µs per ApplyMove", lambda x: number(x[2], 1)),
        ("Redis µs per ApplyMove", lambda x: number(x[3], 1)),
    ]
    return _block(reports, _table(columns, rows))


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def features(reports: Sequence[Report]) -> list[str]:
    """What a turn clock, the feed's move events and bot seats cost a move: the first report
    without any, each other with one, or the bot seats' (`--bot-games`)."""
    base = _replay_us(reports[0])

    def row(r: Report) -> tuple[str, object, float | None, str]:
        if "bot_games" in r:
            bots = r["bot_games"]
            label = f"bot seats: a move the server's {bots['bot_level']} bot makes"
            return label, bots["moves_per_s"], bots.get("server_us_per_move"), ""
        config = r["config"]
        if r is reports[0]:
            label = "replay, no feature"
        elif config.get("clock_seconds"):
            label = f"replay, turn clock (`--clock {config['clock_seconds']}`)"
        else:
            label = "replay, " + " ".join(f"`{arg}`" for arg in config["server_args"])
        added = "" if r is reports[0] else _relative(_replay_us(r), base)
        return label, r["apply_move"]["calls_per_s"], _replay_us(r), added

    columns: list[Column] = [
        ("run", lambda x: x[0]),
        ("moves/s", lambda x: number(x[1])),
        ("server µs per move", lambda x: number(x[2], 1)),
        ("added per move", lambda x: x[3]),
    ]
    return _block(reports, _table(columns, map(row, reports)))


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _range(values: Sequence[float], digits: int = 0) -> str:
    return f"{number(min(values), digits)}{DASH}{number(max(values), digits)}"


def targets(reports: Sequence[Report]) -> list[str]:
    """Each target against the reports it is measured by: service, latency, watch-split,
    engines, cluster-single, cluster-3, features-none, features-clock, features-feed,
    bot-seats (in that order)."""
    service_r, latency_r, split_r, engines_r, single, clustered, plain, clock, feed, bots = reports
    rows: list[tuple[str, str, bool]] = []
    games = [game for game, _ in _per_game(service_r)]
    replay = [_cpu(service_r, f"replay:{g}") or 0.0 for g in games]
    rows.append(
        (
            f"server CPU per replayed ApplyMove ≤ {APPLY_US:.0f} µs at 32 in flight, every game",
            f"{_range(replay, 1)} µs",
            max(replay) <= APPLY_US,
        )
    )
    play = [_cpu(service_r, f"game_play:{g}") or 0.0 for g in games]
    rows.append(
        (
            f"ListLegalMoves + ApplyMove per move ≤ {GAME_PLAY_US:.0f} µs, every game",
            f"{_range(play, 1)} µs",
            max(play) <= GAME_PLAY_US,
        )
    )
    split = split_r["watch"]["split"]
    rows.append(
        (
            f"one more watch update ≤ {EXTRA_UPDATE_US:.0f} µs, one stream per seat",
            f"{number(split['mean_us'], 1)} ± {number(split['sem_us'], 1)} µs (median"
            f" {number(split['median_us'], 1)})",
            float(split["mean_us"]) <= EXTRA_UPDATE_US,
        )
    )
    p50 = [float(latency_r[g]["p50_ms"]) for g, _ in _per_game(latency_r)]
    p99 = [float(latency_r[g]["p99_ms"]) for g, _ in _per_game(latency_r)]
    rows.append(
        (
            f"ApplyMove p50 ≤ {P50_MS} ms, p99 ≤ {P99_MS} ms at one call in flight, every game",
            f"p50 {_range(p50, 3)}, p99 {_range(p99, 2)} ms",
            max(p50) <= P50_MS and max(p99) <= P99_MS,
        )
    )
    single_us, cluster_us = _replay_us(single) or 0.0, _replay_us(clustered) or 0.0
    rows.append(
        (
            f"Redis Cluster within {CLUSTER_OVER_SINGLE:.0%} of a single Redis in server CPU"
            " per move",
            f"{(cluster_us - single_us) / single_us:+.1%} ({number(cluster_us, 1)} against"
            f" {number(single_us, 1)} µs)",
            cluster_us <= single_us * (1 + CLUSTER_OVER_SINGLE),
        )
    )
    base = _replay_us(plain) or 0.0
    for name, report in (("a turn clock", clock), ("the feed's move events", feed)):
        added = (_replay_us(report) or 0.0) - base
        rows.append(
            (
                f"{name}: at most +{FEATURE_US:.0f} µs a move",
                f"{added:+,.1f} µs",
                added <= FEATURE_US,
            )
        )
    bot_us = float(bots["bot_games"]["server_us_per_move"])
    rows.append(
        (
            f"a bot seat's move: at most a client's ApplyMove + {FEATURE_US:.0f} µs",
            f"{number(bot_us, 1)} µs against {number(base, 1)}",
            bot_us <= base + FEATURE_US,
        )
    )
    measured = [entry for _, entry in _engine_rows([engines_r])]
    rates = [float(entry["moves_per_s"]) for entry in measured]
    rows.append(
        (
            f"engines ≥ {number(ENGINE_MOVES_PER_S)} random moves/s, every game",
            _range(rates),
            min(rates) >= ENGINE_MOVES_PER_S,
        )
    )
    uno = engines_r.get("rlcard_uno")
    if uno and "error" not in uno:
        over = float(uno["one_card_over_uno"])
        rows.append(
            (
                f"`one_card` ≥ {OVER_UNO:.1f}{TIMES} RLCard's UNO",
                f"{over:.2f}{TIMES}",
                over >= OVER_UNO,
            )
        )
    stored = max(int(entry["stored_bytes_max"]) for entry in measured)
    rows.append(
        (
            f"stored state < {number(STORED_BYTES)} B, every game",
            f"at most {number(stored)} B",
            stored < STORED_BYTES,
        )
    )
    trips = service_r["redis"]["apply_move"]
    low, high, calls = trips["round_trips_min"], trips["round_trips_max"], trips["calls"]
    rows.append(
        (
            "one Redis round trip per move (the process remembers the game)",
            f"{high} in each of {calls} calls"
            if low == high
            else f"{low}{DASH}{high} in {calls} calls",
            int(high) == 1,
        )
    )
    columns: list[Column] = [
        ("target", lambda row: row[0]),
        ("this run", lambda row: row[1]),
        ("", lambda row: _met(row[2])),
    ]
    return ["", *_table(columns, rows), "", machine_line(reports)]


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
    "tls": tls,
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
        prog="python -m croupier.bench.tables",
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
            " (python -m croupier.bench.tables writes them)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
