"""Following the event feed: games created, seats joined, games finished (and, on servers
started with --feed-moves, every move), as `croupier.v1.FeedEvent` messages read from Redis.

The feed is 8 capped Redis Streams, `croupier:feed:{feed-0}` … `{feed-7}` (one game's events
always in the same one, in order; docs/api.md, "The event feed"). A consumer group reads every
shard: each entry goes to one consumer of the group, and stays pending until acknowledged, so a
consumer that dies before its acknowledgement leaves the entry to be claimed again. An entry
can thus arrive twice (and a retried append can write one twice): `(name, kind, version)`
identifies an event; count each once.

    for item in follow("redis://localhost:6379/0", group="leaderboard", consumer="c1"):
        handle(item.event)
        item.ack()

`croupier-feed --redis-url URL --group G --consumer C` prints each event as a JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis
from google.protobuf import json_format
from redis.cluster import RedisCluster

from croupier.v1 import game_service_pb2 as pb

FEED_SHARDS = 8  # service/croupier/service/store/keys.py: FEED_SHARDS


def shard_keys() -> list[str]:
    return [f"croupier:feed:{{feed-{shard}}}" for shard in range(FEED_SHARDS)]


def connect(url: str) -> Any:
    """A Redis client for a URL as croupier-server takes it (redis+cluster:// for a cluster)."""
    if "+cluster://" in url:
        return RedisCluster.from_url(url.replace("+cluster", "", 1))
    return redis.Redis.from_url(url)


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One feed entry read by a consumer of a group."""

    stream: str
    entry_id: str
    event: pb.FeedEvent
    _client: Any
    _group: str

    @property
    def identity(self) -> tuple[str, int, int]:
        """What tells a duplicate: the game, the event's kind and the game's version."""
        return (self.event.name, self.event.kind, self.event.version)

    def ack(self) -> None:
        self._client.xack(self.stream, self._group, self.entry_id)


def ensure_group(client: Any, group: str, start: str = "$") -> None:
    """Create the group on every shard (reading from `start`: `$` new entries, `0` all kept),
    and the shard itself if no event was appended yet; an existing group is left as it is."""
    for key in shard_keys():
        try:
            client.xgroup_create(key, group, id=start, mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise


def follow(
    url_or_client: str | Any,
    *,
    group: str,
    consumer: str,
    start: str = "$",
    block_ms: int = 1000,
    count: int = 100,
    forever: bool = True,
) -> Iterator[FeedItem]:
    """The feed's events for `consumer` of `group`, first every one this consumer had read
    without acknowledging (after a restart), then new ones. Acknowledge each once handled
    (`item.ack()`). `forever=False`: stop once a read of every shard finds nothing new."""
    client = connect(url_or_client) if isinstance(url_or_client, str) else url_or_client
    ensure_group(client, group, start)
    # Each shard on its own: in a cluster the shards are in different slots, and one
    # XREADGROUP may only name keys of one.
    for key in shard_keys():
        # This consumer's pending entries, `count` at a time from after the last one read, until
        # none is left: a consumer may hold more than one read's worth.
        after = "0"
        while True:
            reply = client.xreadgroup(group, consumer, {key: after}, count=count)
            entries = [entry for _, entries in reply or [] for entry in entries]
            if not entries:
                break
            for entry_id, fields in entries:
                after = entry_id
                item = _item(client, group, key, entry_id, fields)
                if item is None:
                    # Trimmed away while pending: nothing is left to hand over, so it is
                    # acknowledged rather than read again at every restart.
                    client.xack(key, group, entry_id)
                    continue
                yield item
    while True:
        found = False
        for key in shard_keys():
            reply = client.xreadgroup(
                group, consumer, {key: ">"}, count=count, block=max(1, block_ms // FEED_SHARDS)
            )
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    found = True
                    item = _item(client, group, key, entry_id, fields)
                    if item is not None:
                        yield item
        if not found and not forever:
            return


def _item(client: Any, group: str, key: str, entry_id: Any, fields: Any) -> FeedItem | None:
    """The entry as a FeedItem; None for an entry trimmed away (redis-py reads its fields as
    none, or as an empty dict)."""
    data = (fields or {}).get(b"event")
    if data is None:
        return None
    entry = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return FeedItem(key, entry, pb.FeedEvent.FromString(data), client, group)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="croupier-feed", description="Follow Croupier's event feed as a consumer group."
    )
    parser.add_argument("--redis-url", required=True, help="the servers' --redis-url")
    parser.add_argument("--group", default="croupier-feed", help="consumer group name")
    parser.add_argument("--consumer", default="croupier-feed-1", help="this consumer's name")
    parser.add_argument(
        "--from-start", action="store_true", help="a new group reads every kept entry first"
    )
    parser.add_argument("--no-follow", action="store_true", help="stop when nothing new arrives")
    args = parser.parse_args(argv)
    try:
        for item in follow(
            args.redis_url,
            group=args.group,
            consumer=args.consumer,
            start="0" if args.from_start else "$",
            forever=not args.no_follow,
        ):
            line = json_format.MessageToDict(item.event)
            line["entry"] = f"{item.stream}/{item.entry_id}"
            print(json.dumps(line), flush=True)
            item.ack()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except redis.RedisError as error:
        print(f"croupier-feed: {error}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
