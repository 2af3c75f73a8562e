"""Store key names. Every key of one game shares the hash tag `{<game id>}`, so a Redis
Cluster keeps them in one slot and the compare-and-set script can touch them all."""

from __future__ import annotations

import hashlib

PREFIX = "croupier"


def game(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:game"


def log(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:log"


def request(game_id: str, request_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:req:{request_id}"


def channel(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:moves"


def create_request(request_id: str) -> str:
    return f"{PREFIX}:create:{{{request_id}}}"


def durability_barrier(key: str) -> str:
    """A key in the slot of `key` (its hash tag), written and gone within a millisecond by a
    call answered from what another call wrote (a retry's recorded response): a write of the
    answering connection, so that the wait of --durability after it covers what was read."""
    start = key.find("{")
    end = key.find("}", start + 1)
    tag = key[start + 1 : end] if start >= 0 and end > start + 1 else key
    return f"{PREFIX}:durable:{{{tag}}}"


# The listing indexes and the event feed live outside any game's slot: each is sharded into
# buckets by a hash tag of its own, so that in a Redis Cluster their writes spread over the
# shards (docs/scaling.md, "Listing and the feed"). A game's entries go to the bucket of its
# id; a listing reads every bucket. The counts are part of the stored layout: every replica and
# every feed consumer must use the same ones.
INDEX_BUCKETS = 16
FEED_SHARDS = 8


def bucket_of(game_id: str, buckets: int) -> int:
    """A game's bucket: its id is random hex, so its leading digits spread evenly."""
    return int(game_id[:6], 16) % buckets


def games_index(bucket: int) -> str:
    """Every game by creation time (a sorted set: score Unix ms, member game id)."""
    return f"{PREFIX}:index:{{games-{bucket}}}"


def lobby_index(bucket: int) -> str:
    """Public games created with open seats, by creation time."""
    return f"{PREFIX}:lobby:{{lobby-{bucket}}}"


def player_index(player_id: str) -> str:
    """The games of one player id, by creation time. The id is hashed: any text (braces too)
    becomes a fixed-size key of its own slot."""
    digest = hashlib.sha256(player_id.encode()).hexdigest()[:32]
    return f"{PREFIX}:player:{{p-{digest}}}"


def feed(shard: int) -> str:
    """One shard of the event feed (a capped Redis Stream)."""
    return f"{PREFIX}:feed:{{feed-{shard}}}"


def page_token_secret() -> str:
    """The deployment's page-token key, made by the first replica that needs one."""
    return f"{PREFIX}:page-token-secret"


DUE_BUCKETS = 16


def due_index(bucket: int) -> str:
    """Turn-clock deadlines due (a sorted set: score Unix ms of a game's next deadline, member
    game id), one per bucket so that no single shard takes every clocked move's write."""
    return f"{PREFIX}:due:{{due-{bucket}}}"
