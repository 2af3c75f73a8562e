"""What the server's Redis does: round trips, commands and bytes per call (one call at a time),
the same per move over a replay window, the MONITOR transcript of one ApplyMove, and the
memory the keys of finished games take."""

from __future__ import annotations

import contextlib
import functools
import os
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.message import Message

from croupier.bench.play import RPCS
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

# The measured calls that only read.
READS = frozenset({"list_legal_moves", "get_game"})


def connect(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)


def info_snapshot(client: Any) -> dict[str, Any]:
    info: dict[str, Any] = client.info("commandstats", "stats", "memory")
    info["_time"] = time.perf_counter()
    return info


def _commands(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    commands = {}
    for key, value in after.items():
        if key.startswith("cmdstat_") and isinstance(value, dict):
            old = before.get(key, {}).get("calls", 0)
            if value["calls"] > old:
                commands[key.removeprefix("cmdstat_")] = value["calls"] - old
    return dict(sorted(commands.items()))


def window_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Redis counters over a window. The INFO calls themselves and the server's store health
    check (a PING a second) are left out of the commands and round trips (read events); a ping
    that shared a read event with a call's command takes one too many off, a few in a window
    of thousands."""
    commands = _commands(before, after)
    overhead = commands.pop("info", 0) + commands.pop("ping", 0)
    return {
        "seconds": round(after["_time"] - before["_time"], 3),
        "round_trips": after["total_reads_processed"] - before["total_reads_processed"] - overhead,
        "commands": commands,
        "net_input_bytes": after["total_net_input_bytes"] - before["total_net_input_bytes"],
        "net_output_bytes": after["total_net_output_bytes"] - before["total_net_output_bytes"],
        "used_memory": after["used_memory"] - before["used_memory"],
        "keys_before": _keys(before),
        "keys_after": _keys(after),
    }


def _keys(info: dict[str, Any]) -> int | None:
    db = info.get("db0")
    return int(db["keys"]) if isinstance(db, dict) else None


def per_move(window: dict[str, Any], moves: int, creates: int) -> dict[str, Any]:
    """A replay window's Redis counters per ApplyMove (its CreateGames included)."""
    if not moves:
        return {"error": "no ApplyMove in the window"}
    return {
        "moves": moves,
        "create_games": creates,
        "round_trips_per_move": round(window["round_trips"] / moves, 3),
        "commands_per_move": {k: round(v / moves, 3) for k, v in window["commands"].items()},
        "net_input_bytes_per_move": round(window["net_input_bytes"] / moves, 1),
        "net_output_bytes_per_move": round(window["net_output_bytes"] / moves, 1),
        "used_memory_per_move": round(window["used_memory"] / moves, 1),
        "window": window,
    }


def count_round_trips(
    target: str, redis_url: str, game: str, seats: int, seed: int, moves: int = 40
) -> dict[str, Any]:
    """Redis commands, round trips (read events of the Redis server) and bytes per call,
    measured around single calls made one at a time, and the MONITOR transcript of one
    ApplyMove. Bytes: each call's counters less those of an INFO alone just before it."""
    client = connect(redis_url)
    chooser = random.Random(seed)
    transcript: list[str] = []
    measured: dict[str, list[dict[str, Any]]] = {rpc: [] for rpc in RPCS}
    overlapped: Counter[str] = Counter()

    def timed(rpc: str, method: Any, request: Message, metadata: Any = ()) -> Any:
        first = client.info("commandstats", "stats")
        before = client.info("commandstats", "stats")
        result = method(request, metadata=metadata)
        after = client.info("commandstats", "stats")
        commands = _commands(before, after)
        reads = after["total_reads_processed"] - before["total_reads_processed"]
        # The later INFO is one read event of its own.
        trips = reads - commands.pop("info", 0)
        # Windows that also hold other work measure more (or less) than the call, and are left
        # out: a PING is the server's health check, which its Redis client may send in the same
        # write as a call's command (one read event for both); none of the measured calls reads
        # a sorted set, so a ZRANGE is a replica's background sweep of the turn clocks' due
        # index; the reads write nothing, so an XADD there is an earlier call's feed entry,
        # which the server sends without waiting for Redis and which may reach it after that
        # call was answered.
        if "ping" in commands or "zrange" in commands or (rpc in READS and "xadd" in commands):
            overlapped[rpc] += 1
            return result
        sizes = {}
        for name in ("total_net_input_bytes", "total_net_output_bytes"):
            sizes[name] = (after[name] - before[name]) - (before[name] - first[name])
        measured[rpc].append({"round_trips": trips, "commands": commands, **sizes})
        return result

    with grpc.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        name, metadata, active = "", [], []
        for number in range(moves):
            if not name:
                create = pb.CreateGameRequest(seats=seats, seed=chooser.getrandbits(63))
                getattr(create, game).SetInParent()
                created = timed("create_game", stub.CreateGame, create)
                name = created.name
                metadata = [(("authorization", f"Bearer {c}"),) for c in created.seat_credentials]
                active = list(created.view.active_seats)
            md = metadata[chooser.choice(active)]
            listed = timed(
                "list_legal_moves", stub.ListLegalMoves, pb.ListLegalMovesRequest(name=name), md
            )
            move = pb.ApplyMoveRequest(
                name=name, move=chooser.choice(listed.moves), request_id=str(uuid.uuid4())
            )
            if number == moves - 1:
                timed("get_game", stub.GetGame, pb.GetGameRequest(name=name))
                transcript = _monitor(
                    redis_url, client, functools.partial(stub.ApplyMove, move, metadata=md)
                )
                break
            applied = timed("apply_move", stub.ApplyMove, move, md)
            if applied.view.HasField("result"):
                timed("get_game", stub.GetGame, pb.GetGameRequest(name=name))
                name = ""
            else:
                active = list(applied.view.active_seats)
    client.close()
    out: dict[str, Any] = {}
    for rpc, runs in measured.items():
        if not runs:
            continue
        trips = sorted(r["round_trips"] for r in runs)
        commands: Counter[str] = Counter()
        for run in runs:
            commands.update(run["commands"])
        out[rpc] = {
            "calls": len(runs),
            "calls_dropped_for_other_work": overlapped[rpc],
            "round_trips_min": trips[0],
            "round_trips_median": trips[len(trips) // 2],
            "round_trips_max": trips[-1],
            "commands_per_call": {k: round(v / len(runs), 2) for k, v in sorted(commands.items())},
            "net_input_bytes_median": statistics.median(r["total_net_input_bytes"] for r in runs),
            "net_output_bytes_median": statistics.median(r["total_net_output_bytes"] for r in runs),
        }
    out["apply_move_monitor"] = transcript
    return out


def _monitor(redis_url: str, client: Any, call: Callable[[], Any]) -> list[str]:
    """The commands Redis executes for `call` as MONITOR shows them ("lua": inside a script);
    `client` (already connected) sends the marker that ends the transcript."""
    marker = f"croupier-bench-{os.getpid()}-{time.time_ns()}"
    lines: list[str] = []
    watcher = connect(redis_url)
    with contextlib.closing(watcher), watcher.monitor() as monitor:
        call()
        client.echo(marker)
        while True:
            entry = monitor.next_command()
            command = str(entry.get("command", ""))
            if marker in command:
                break
            if command.upper().startswith(("PING", "INFO")) or ":due:" in command:
                continue  # the server's health check, and its sweep of the turn clocks
            source = "lua" if entry.get("client_type") == "lua" else "client"
            words = command.split()
            lines.append(f"{source}: {' '.join(words[:2])}")
    return lines


def game_memory(redis_url: str, names: dict[str, list[str]]) -> dict[str, Any]:
    """For finished games of each type (replayed, so every move has a request id): the stored
    StoredGame, the move log and the idempotency records, in bytes and in Redis memory (MEMORY
    USAGE, all samples)."""
    from croupier.service.store import keys

    client = connect(redis_url)
    out: dict[str, Any] = {}
    try:
        for game, game_names in names.items():
            rows = []
            for name in game_names:
                game_id = name.removeprefix("games/")
                entries: list[bytes] = client.lrange(keys.log(game_id), 0, -1)
                if not entries:
                    continue
                # The records' keys name the seat credential that sent each move: found by
                # their common prefix (the game's hash tag keeps them on one node).
                requests = sorted(client.scan_iter(match=keys.request(game_id, "*")))
                sampled = requests[:: max(1, len(requests) // 20)]
                rows.append(
                    {
                        "moves": len(entries),
                        "stored_bytes": client.hstrlen(keys.game(game_id), "s"),
                        "game_key_memory": _memory(client, keys.game(game_id)),
                        "log_bytes": sum(len(e) for e in entries),
                        "log_key_memory": _memory(client, keys.log(game_id)),
                        "record_bytes": statistics.mean(client.strlen(k) for k in sampled),
                        "record_key_memory": statistics.mean(_memory(client, k) for k in sampled),
                    }
                )
            if rows:
                out[game] = {
                    "games": len(rows),
                    **{
                        f"{field}_mean": round(statistics.mean(r[field] for r in rows), 1)
                        for field in rows[0]
                    },
                    **{f"{field}_max": max(r[field] for r in rows) for field in rows[0]},
                }
    finally:
        client.close()
    return out


def _memory(client: Any, key: str) -> int:
    return int(client.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0") or 0)
