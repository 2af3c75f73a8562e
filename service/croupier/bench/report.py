"""The service benchmark's figures as one JSON-ready dict."""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Sequence
from typing import Any

from google.protobuf.internal import api_implementation

from croupier.bench.baseline import BASELINE, BASELINE_RPC
from croupier.bench.play import RPCS
from croupier.bench.redis_stats import per_move
from croupier.bench.server import Server
from croupier.bench.spec import Phase
from croupier.bench.stats import Figures, Sample, num, ratio

SATURATED = 0.9  # share of one core above which a process counts as the bottleneck
NEAR_SATURATED = 0.75
PAYLOAD_TOLERANCE = 0.05  # baseline payload vs the measured ApplyMoves' before a warning


def _combined(pairs: Sequence[tuple[Phase, Sample]]) -> tuple[Sample, float]:
    total = Sample()
    for _, sample in pairs:
        total.merge(sample)
    return total, sum(sample.window_s for _, sample in pairs)


def _per_game(
    pairs: Sequence[tuple[Phase, Sample]], combined: Sample, game: str, separately: bool
) -> Sample:
    if not separately:
        return combined
    return next(sample for phase, sample in pairs if phase.games == (game,))


def service_report(
    args: argparse.Namespace,
    server: Server,
    phases: Sequence[Phase],
    samples: Sequence[Sample],
    games: list[str],
    seats: dict[str, int],
    redis_counts: dict[str, Any] | None,
) -> dict[str, Any]:
    pairs = list(zip(phases, samples, strict=True))
    base_sample = next(s for p, s in pairs if p.kind == "baseline")
    base = Figures.of(base_sample, BASELINE, base_sample.window_s)
    replays = [(p, s) for p, s in pairs if p.kind == "replay"]
    plays = [(p, s) for p, s in pairs if p.kind == "game_play"]
    replay, replay_window = _combined(replays)
    apply = Figures.of(replay, "apply_move", replay_window)

    report: dict[str, Any] = {"baseline": {"rpc": BASELINE_RPC, **base.as_json(None)}}
    report["apply_move"] = apply.as_json(base)
    report["ratio"] = num(ratio(apply.calls_per_s, base.calls_per_s))
    for game in games:
        sample = _per_game(replays, replay, game, args.separately)
        figures = Figures.of(sample, f"apply_move@{game}", sample.window_s)
        report[game] = {
            **figures.as_json(base),
            "ratio": num(ratio(figures.calls_per_s, base.calls_per_s)),
            "games_replayed": sample.finished.get(game, 0),
        }
    report["replay"] = {
        "create_game": Figures.of(replay, "create_game", replay_window).as_json(None),
        "games_replayed": sum(replay.finished.values()),
    }
    if plays:
        report["game_play"] = _game_play(args, plays, games, base)

    cpu: dict[str, Any] = {}
    warnings: list[str] = []
    redis: dict[str, Any] = dict(redis_counts or {})
    for phase, sample in pairs:
        cpu[phase.name] = _cpu(sample)
        warnings += _bottleneck_warnings(phase.name, sample)
        if phase.kind == "replay" and sample.redis:
            moves = len(sample.latencies.get("apply_move", []))
            creates = len(sample.latencies.get("create_game", []))
            redis.setdefault("replay", {})[phase.name] = per_move(sample.redis, moves, creates)
    warnings += _setup_warnings(args, server)
    warnings += _payload_warnings(report["baseline"], report["apply_move"])
    report["cpu"] = cpu
    report["redis"] = redis or None
    reasons = base_sample.reasons.copy()
    for _, sample in [*replays, *plays]:
        reasons.update(sample.reasons)
    report["errors"] = dict(sorted(reasons.items()))
    report["warnings"] = warnings
    report["config"] = {
        "target": server.target,
        "server_started": server.started,
        "concurrency": args.concurrency,
        "client_processes": args.client_processes,
        "client": args.client,
        "channels": args.channels,
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "games": games,
        "separately": args.separately,
        "seats": {g: seats[g] for g in games},
        "server_cpus": sorted(args.server_cpus) if args.server_cpus else None,
        "redis_cpus": sorted(args.redis_cpus) if args.redis_cpus else None,
        "client_cpus": sorted(args.client_cpus) if args.client_cpus else None,
        "server_args": list(args.server_arg or []),
        "redis_cluster_masters": args.redis_cluster,
        "redis_tls": getattr(args, "redis_tls", False),
        "clock_seconds": args.clock,
        "stored_games": args.stored_games,
        "protobuf": api_implementation.Type(),
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    return report


def _game_play(
    args: argparse.Namespace,
    plays: Sequence[tuple[Phase, Sample]],
    games: list[str],
    base: Figures,
) -> dict[str, Any]:
    """The mixed workload: ListLegalMoves + ApplyMove per move, GetGame and CreateGame."""
    combined, window = _combined(plays)
    out: dict[str, Any] = {rpc: Figures.of(combined, rpc, window).as_json(base) for rpc in RPCS}
    apply = Figures.of(combined, "apply_move", window)
    out["ratio"] = num(ratio(apply.calls_per_s, base.calls_per_s))
    calls = combined.calls()
    out["all_game_rpcs"] = {
        "calls_per_s": num(calls / window) if window else None,
        "ratio": num(ratio(calls / window if window else math.nan, base.calls_per_s)),
    }
    out["games"] = {}
    for game in games:
        sample = _per_game(plays, combined, game, args.separately)
        figures = Figures.of(sample, f"apply_move@{game}", sample.window_s)
        out["games"][game] = {
            **figures.as_json(base),
            "ratio": num(ratio(figures.calls_per_s, base.calls_per_s)),
            "games_finished": sample.finished.get(game, 0),
            "rpcs": {
                rpc: Figures.of(sample, f"{rpc}@{game}", sample.window_s).as_json(base)
                for rpc in RPCS[1:]
            },
        }
    return out


def _cpu(sample: Sample) -> dict[str, Any]:
    """Shares of one core during the window, and the server's and Redis's CPU per call."""
    entry: dict[str, Any] = {
        "client": [round(c, 3) for c in sample.client_cpu],
        **{label: num(share, 3) for label, share in sample.monitored.items()},
    }
    calls = sample.calls()
    applied = len(sample.latencies.get("apply_move", []))
    for label in ("server", "redis"):
        share = sample.monitored.get(label, math.nan)
        if math.isnan(share):
            continue
        if calls:
            entry[f"{label}_us_per_call"] = num(share * sample.window_s / calls * 1e6, 1)
        if applied:
            entry[f"{label}_us_per_move"] = num(share * sample.window_s / applied * 1e6, 1)
    switches = sample.monitored.get("server_switches")
    if switches is not None and calls:
        entry["server_switches_per_call"] = num(switches * sample.window_s / calls, 1)
    return entry


def _bottleneck_warnings(phase: str, sample: Sample) -> list[str]:
    warnings = []
    busiest = max(sample.client_cpu, default=0.0)
    server = sample.monitored.get("server", math.nan)
    if busiest >= SATURATED:
        who = f"; the server used {server:.0%} of a core" if not math.isnan(server) else ""
        warnings.append(
            f"{phase}: the load generator is the bottleneck: a client process used"
            f" {busiest:.0%} of a core{who}. Give the client its own core(s)"
            " (--client-cpus, --client-processes N with N cores) or the figures measure the"
            " client, not the server"
        )
    elif busiest >= NEAR_SATURATED:
        warnings.append(
            f"{phase}: a client process used {busiest:.0%} of a core: close to being the"
            " bottleneck; give the client more CPU to be sure the figures measure the server"
        )
    return warnings


def _setup_warnings(args: argparse.Namespace, server: Server) -> list[str]:
    warnings = []
    if not args.server_cpus and not args.client_cpus and server.started:
        warnings.append(
            "client and server were not pinned: they compete for the same cores; for figures"
            " that measure the server, run --server-cpus 0 --client-cpus 1"
        )
    if "server" not in server.pids:
        warnings.append(
            "the server's CPU was not measured (give --server-pid): whether the server or the"
            " load generator was the limit is known only from the client's CPU"
        )
    if api_implementation.Type() != "upb":
        warnings.append(f"the client's protobuf backend is {api_implementation.Type()}, not upb")
    return warnings


def _payload_warnings(base: dict[str, Any], apply: dict[str, Any]) -> list[str]:
    warnings = []
    for name in ("request_bytes", "response_bytes"):
        ours, theirs = base.get(name), apply.get(name)
        if ours is None or not theirs:
            continue
        if abs(ours - theirs) > PAYLOAD_TOLERANCE * theirs:
            warnings.append(
                f"the baseline's {name} ({ours:.0f}) differ from the measured ApplyMoves'"
                f" ({theirs:.0f}) by more than {PAYLOAD_TOLERANCE:.0%}"
            )
    return warnings
