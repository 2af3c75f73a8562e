"""Stored games (`--stored-games N`): the service benchmark's phases run while Redis holds N
idle games besides the replayed ones.

Real games are made first: for each game type, SOURCES games created through the server with
recorded seeds and played halfway (at most MAX_SOURCE_MOVES moves) with their recorded moves,
so their keys hold real encoded states and logs. Redis is then filled with copies of those
keys under new game ids (`DUMP` once, `RESTORE` pipelined, with the source's remaining TTL): N
games in all, spread evenly over the types. The copies are games like any other to the server
(they are not in the listing indexes, which only matters to ListGames). After the phases, an
expiry probe: PROBES more copies with a TTL of PROBE_TTL_MS, then how long Redis takes to
reclaim them among the N (its active expiry; a read of an expired key drops it at once).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, TextIO

import grpc

from croupier.bench.replay import request_id
from croupier.bench.spec import Recorded
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

SOURCES = 2  # real games per type whose keys are copied
MAX_SOURCE_MOVES = 60
BATCH = 2_000  # RESTOREs per pipelined round trip
PROBES = 1_000
PROBE_TTL_MS = 2_000
PROBE_WAIT_S = 30.0


@dataclass
class _Source:
    game: str
    dumps: list[tuple[str, bytes]]  # (key suffix after the game id's hash tag, DUMP payload)
    ttl_ms: int


def _key_suffixes() -> tuple[str, str]:
    from croupier.service.store import keys

    return keys.game("X").split("{X}")[1], keys.log("X").split("{X}")[1]


def _key(game_id: str, suffix: str) -> str:
    from croupier.service.store import keys

    return keys.game(game_id).removesuffix(_key_suffixes()[0]) + suffix


def _play_sources(
    target: str, recorded: dict[str, tuple[Recorded, ...]], timeout: float
) -> dict[str, list[str]]:
    """SOURCES games per type, created and played halfway through the server: their ids."""
    ids: dict[str, list[str]] = {}
    with grpc.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        for game, games in recorded.items():
            for number in range(SOURCES):
                source = games[number % len(games)]
                created = stub.CreateGame(
                    pb.CreateGameRequest.FromString(source.create), timeout=timeout
                )
                moves = source.moves[: min(len(source.moves) // 2, MAX_SOURCE_MOVES)]
                for position, (seat, move) in enumerate(moves):
                    stub.ApplyMove(
                        pb.ApplyMoveRequest(
                            name=created.name,
                            move=pb.Move.FromString(move),
                            request_id=request_id(position),
                        ),
                        metadata=(("authorization", f"Bearer {created.seat_credentials[seat]}"),),
                        timeout=timeout,
                    )
                ids.setdefault(game, []).append(created.name.removeprefix("games/"))
    return ids


def _memory(client: Any, key: str) -> int:
    return int(client.memory_usage(key, samples=0) or 0)


def fill(
    redis_url: str,
    target: str,
    recorded: dict[str, tuple[Recorded, ...]],
    count: int,
    seed: int,
    timeout: float,
    out: TextIO,
) -> dict[str, Any]:
    """Fill Redis with `count` idle games (copies of real ones); their bytes per game."""
    import redis

    started = time.perf_counter()
    ids = _play_sources(target, recorded, max(timeout, 60.0))  # a busy machine stalls calls
    client = redis.Redis.from_url(redis_url, socket_timeout=60)  # a big RESTORE batch is slow
    sources: list[_Source] = []
    per_type: dict[str, Any] = {}
    for game, game_ids in ids.items():
        rows = []
        for game_id in game_ids:
            dumps = []
            for suffix in _key_suffixes():
                payload = client.dump(_key(game_id, suffix))
                if payload is not None:
                    dumps.append((suffix, payload))
            ttl = int(client.pttl(_key(game_id, _key_suffixes()[0])))
            sources.append(_Source(game, dumps, max(ttl, 60_000)))
            game_key, log_key = (_key(game_id, s) for s in _key_suffixes())
            rows.append((_memory(client, game_key), _memory(client, log_key), client.llen(log_key)))
        per_type[game] = {
            "moves": round(sum(r[2] for r in rows) / len(rows), 1),
            "game_key_memory": round(sum(r[0] for r in rows) / len(rows)),
            "log_key_memory": round(sum(r[1] for r in rows) / len(rows)),
        }
    before = client.info("memory")["used_memory"]
    keys_before = client.dbsize()
    chooser = random.Random(f"stored/{seed}")
    pipe = client.pipeline(transaction=False)
    for number in range(count):
        source = sources[number % len(sources)]
        game_id = f"{chooser.getrandbits(96):024x}"
        for suffix, payload in source.dumps:
            pipe.restore(_key(game_id, suffix), source.ttl_ms, payload)
        if len(pipe) >= BATCH:
            pipe.execute()
    pipe.execute()
    after = client.info("memory")["used_memory"]
    report = {
        "games": count,
        "keys_added": client.dbsize() - keys_before,
        "fill_s": round(time.perf_counter() - started, 1),
        "used_memory_mb": round(after / 2**20, 1),
        "used_memory_per_game": round((after - before) / count) if count else None,
        "per_type": per_type,
        "sources": {game: len(game_ids) for game, game_ids in ids.items()},
    }
    client.close()
    print(
        f"stored games: {count:,} idle copies of {len(sources)} real games in"
        f" {report['fill_s']} s; Redis used_memory {report['used_memory_mb']:,} MB,"
        f" {report['used_memory_per_game']} B per stored game",
        file=out,
        flush=True,
    )
    for game, row in per_type.items():
        print(
            f"  {game}: game hash {row['game_key_memory']:,} B + move log"
            f" {row['log_key_memory']:,} B (MEMORY USAGE) after {row['moves']:g} moves",
            file=out,
        )
    return report


def expiry_probe(redis_url: str, target: str, seed: int, out: TextIO) -> dict[str, Any]:
    """PROBES copies of a stored game given a PROBE_TTL_MS TTL among the stored ones: whether a
    read through the server finds them gone at once, and how long Redis's own active expiry
    takes to reclaim the rest (they are never read)."""
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=60)  # redis-py 8 waits 5 s by default
    suffix = _key_suffixes()[0]
    source = next(iter(client.scan_iter(match=_key("*", suffix), count=1000)))
    payload = client.dump(source)
    assert payload is not None, "a stored game vanished"
    chooser = random.Random(f"probe/{seed}")
    probe_ids = [f"{chooser.getrandbits(96):024x}" for _ in range(PROBES)]
    pipe = client.pipeline(transaction=False)
    for game_id in probe_ids:
        pipe.restore(_key(game_id, suffix), PROBE_TTL_MS, payload)
    pipe.execute()
    expired_before = client.info("stats")["expired_keys"]
    set_at = time.perf_counter()
    time.sleep(PROBE_TTL_MS / 1000 + 0.1)
    # Read through the server: the game is gone (NOT_FOUND) whether or not Redis reclaimed it.
    read = 5
    not_found = 0
    with grpc.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        for game_id in probe_ids[:read]:
            try:
                stub.GetGame(pb.GetGameRequest(name=f"games/{game_id}"), timeout=10)
            except grpc.RpcError as error:
                not_found += error.code() == grpc.StatusCode.NOT_FOUND
    reclaimed = 0
    while True:
        reclaimed = client.info("stats")["expired_keys"] - expired_before
        waited = time.perf_counter() - set_at
        if reclaimed >= PROBES or waited > PROBE_WAIT_S + PROBE_TTL_MS / 1000:
            break
        time.sleep(0.25)
    client.close()
    report = {
        "probes": PROBES,
        "ttl_s": PROBE_TTL_MS / 1000,
        "read_not_found": f"{not_found}/{read}",
        "reclaimed": reclaimed,
        "reclaimed_after_s": round(waited, 1),
    }
    print(
        f"expiry: {PROBES:,} games with a {PROBE_TTL_MS / 1000:g} s TTL among the stored ones:"
        f" read through the server after it, {not_found}/{read} NOT_FOUND;"
        f" {reclaimed:,} reclaimed by Redis {report['reclaimed_after_s']} s after they were set",
        file=out,
        flush=True,
    )
    return report
