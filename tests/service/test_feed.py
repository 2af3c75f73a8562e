"""The event feed: a consumer group of two consumers builds a leaderboard from the
games finished through two server processes and finds every game exactly once; move events
come only from servers started with --feed-moves. On a single Redis and a three-master cluster,
read through the documented iterator (croupier.feed.follow)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis
from google.protobuf import json_format

from croupier.client import Croupier
from croupier.feed import FeedItem, connect, ensure_group, follow, shard_keys
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.store import keys
from croupier.service.store.redis_client import is_cluster_url
from croupier.v1 import game_service_pb2 as pb
from tests.service.helpers import finish

Kind = pb.FeedEvent.Kind


def consume(store_url: str, group: str, consumers: int) -> list[FeedItem]:
    """Every entry the group has not read yet, read by `consumers` consumers at once, each
    acknowledged after it is handled."""
    read: list[list[FeedItem]] = [[] for _ in range(consumers)]

    def run(index: int) -> None:
        client = connect(store_url)
        try:
            for item in follow(
                client, group=group, consumer=f"c{index}", block_ms=200, forever=False
            ):
                read[index].append(item)
                item.ack()
        finally:
            client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(consumers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [item for items in read for item in items]


def test_a_leaderboard_consumer_group_finds_every_finished_game_once(
    store_url: str, client: Croupier, client_b: Croupier
) -> None:
    group = f"leaderboard-{uuid.uuid4().hex[:8]}"
    setup = connect(store_url)
    ensure_group(setup, group)  # from now on: what was appended before is not this group's
    setup.close()
    tag = uuid.uuid4().hex[:8]
    results: dict[str, pb.GameView] = {}
    for number in range(6):
        players = [f"{tag}-{number}-{seat}" for seat in range(2)]
        creator = [client, client_b][number % 2]
        game = creator.create(options_for("whats_your_name"), 2, player_ids=players)
        view, _ = finish([client, client_b], game.name, list(game.seat_credentials), number)
        results[game.name] = view

    items = [i for i in consume(store_url, group, 2) if i.event.player_ids[0].startswith(tag)]
    finished = [i.event for i in items if i.event.kind == Kind.KIND_GAME_FINISHED]
    assert Counter(e.name for e in finished) == Counter(results.keys())  # each game exactly once
    wins: Counter[str] = Counter()
    for event in finished:
        assert event.result == results[event.name].result
        assert int(results[event.name].etag) == event.version
        wins.update(event.player_ids[seat] for seat in event.result.winners)
    expected: Counter[str] = Counter()
    for view in results.values():
        expected.update(view.player_ids[seat] for seat in view.result.winners)
    assert wins == expected
    created = Counter(i.event.name for i in items if i.event.kind == Kind.KIND_GAME_CREATED)
    assert created == Counter(results.keys())
    assert not [i for i in items if i.event.kind == Kind.KIND_MOVE]  # off by default
    # Acknowledged: the group has nothing pending, and reading again finds nothing new.
    assert not [i for i in consume(store_url, group, 1) if i.event.name in results]


def test_move_events_with_feed_moves_and_joins(store_url: str, redis_client: redis.Redis) -> None:
    group = f"moves-{uuid.uuid4().hex[:8]}"
    setup = connect(store_url)
    ensure_group(setup, group)
    setup.close()
    with (
        LocalServer(store_url, extra_args=("--feed-moves",)) as server,
        Croupier(server.target) as croupier,
    ):
        host = f"host-{uuid.uuid4().hex[:8]}"
        game = croupier.create(
            options_for("whats_your_name"), 2, player_ids=[host, ""], open_seats=True
        )
        joined = croupier.join(game.name, game.join_code, player_id="guest")
        credentials = [game.seat_credentials[0], joined.seat_credential]
        view, moves = finish([croupier], game.name, credentials, seed=4)
    read = consume(store_url, group, 1)
    events = [i.event for i in read if i.event.name == game.name]
    kinds = [e.kind for e in events]
    assert kinds == [
        Kind.KIND_GAME_CREATED,
        Kind.KIND_SEAT_JOINED,
        *[Kind.KIND_MOVE] * moves,
        Kind.KIND_GAME_FINISHED,
    ]
    assert [e.version for e in events] == [1, 2, *range(3, 3 + moves), 2 + moves]
    assert events[1].seat == 1 and list(events[1].player_ids) == [host, "guest"]
    # One game's events are in one shard (in order: the versions above).
    assert len({i.stream for i in read if i.event.name == game.name}) == 1
    assert events[-1].result == view.result
    # Capped: each shard is a stream trimmed to about --feed-max-len entries.
    assert all(redis_client.type(key) in (b"stream", b"none") for key in shard_keys())


def test_the_feed_and_the_indexes_spread_over_the_cluster(
    store_url: str, redis_client: Any
) -> None:
    """No single shard takes every index or feed write."""
    if not is_cluster_url(store_url):
        pytest.skip("a single Redis is one shard")
    for names in (
        shard_keys(),
        [keys.games_index(b) for b in range(keys.INDEX_BUCKETS)],
        [keys.lobby_index(b) for b in range(keys.INDEX_BUCKETS)],
    ):
        nodes = {redis_client.get_node_from_key(key).name for key in names}
        assert len(nodes) == 3, names


def test_a_restarted_consumer_gets_every_entry_it_left_unacknowledged(
    store_url: str, client: Croupier
) -> None:
    """docs/api.md, "The event feed": a consumer that dies before acknowledging gets its
    entries again. All of them, however many (`follow` re-read only its first `count` per
    shard before), and an entry trimmed away while pending is acknowledged, not handed over."""
    group = f"restart-{uuid.uuid4().hex[:8]}"
    tag = uuid.uuid4().hex[:8]
    reader = connect(store_url)
    try:
        ensure_group(reader, group)
        names = {
            client.create(options_for("whats_your_name"), 2, player_ids=[f"{tag}-{n}", ""]).name
            for n in range(12)  # 12 events over 8 shards: some shard holds two or more
        }

        def read() -> list[FeedItem]:
            items = list(
                follow(reader, group=group, consumer="c1", count=1, block_ms=200, forever=False)
            )
            for item in items:
                if item.event.name not in names:
                    # Another test's game, ended meanwhile (its clock, its bots): not this
                    # test's, and acknowledged so that the count of pending entries is ours.
                    item.ack()
            return [i for i in items if i.event.name in names]

        first = read()  # nothing acknowledged: the consumer "dies"
        assert {i.event.name for i in first} == names
        trimmed = first[0]
        reader.xdel(trimmed.stream, trimmed.entry_id)
        again = read()
        assert sorted(i.entry_id for i in again) == sorted(
            i.entry_id for i in first if i is not trimmed
        )
        for item in again:
            item.ack()
        assert all(reader.xpending(key, group)["pending"] == 0 for key in shard_keys())
        assert read() == []
    finally:
        reader.close()


def test_croupier_feed_prints_each_event_once_as_json(store_url: str, client: Croupier) -> None:
    """`croupier-feed` (a real process) follows the feed as one consumer of a group: each new
    event a JSON line, acknowledged, so a second run prints none of them again."""
    group = f"cli-{uuid.uuid4().hex[:8]}"
    setup = connect(store_url)
    ensure_group(setup, group)
    setup.close()
    tag = uuid.uuid4().hex[:8]
    game = client.create(options_for("whats_your_name"), 2, player_ids=[tag, ""])
    view, _ = finish([client], game.name, list(game.seat_credentials), seed=6)
    command = [str(Path(sys.executable).parent / "croupier-feed"), "--redis-url", store_url]
    command += ["--group", group, "--no-follow"]

    def run() -> list[dict[str, Any]]:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        return [line for line in lines if line["name"] == game.name]

    lines = run()
    assert [line["kind"] for line in lines] == ["KIND_GAME_CREATED", "KIND_GAME_FINISHED"]
    assert lines[0]["playerIds"] == [tag, ""]
    assert lines[1]["result"] == json_format.MessageToDict(view.result)
    assert all(line["entry"].startswith("croupier:feed:{feed-") for line in lines)
    assert run() == []


def test_games_finished_by_bot_seats_and_by_a_forfeit_are_in_the_feed(store_url: str) -> None:
    """Every game finished (with its result) is appended to the feed, whoever ends it: the
    service's bot seats (each of their moves a write of the server's own, not an ApplyMove)
    and a turn clock's forfeit (the sweep's write)."""
    key = "op-feed-key"
    group = f"finishers-{uuid.uuid4().hex[:8]}"
    setup = connect(store_url)
    ensure_group(setup, group)
    setup.close()
    views: dict[str, pb.GameView] = {}
    with (
        LocalServer(store_url, env={"CROUPIER_OPERATOR_KEY": key}) as server,
        Croupier(server.target, operator_key=key) as operator,
        Croupier(server.target) as spectator,
    ):
        bots = operator.create(options_for("trinity"), 3, bot_levels=["random"] * 3)
        forfeit = pb.Clock(seconds_per_decision=1, on_timeout=pb.TIMEOUT_POLICY_FORFEIT)
        clocked = operator.create(options_for("one_card"), 2, clock=forfeit)
        until = time.monotonic() + 120  # an honest margin on a busy machine; seconds as a rule
        for game in (bots, clocked):
            while not (view := spectator.get(game.name)).HasField("result"):
                assert time.monotonic() < until, view
                time.sleep(0.2)
            views[game.name] = view
    assert views[clocked.name].HasField("forfeited_seat")
    finished = {
        i.event.name: i.event
        for i in consume(store_url, group, 1)
        if i.event.kind == Kind.KIND_GAME_FINISHED and i.event.name in views
    }
    assert set(finished) == set(views)
    for name, event in finished.items():
        assert event.result == views[name].result
        assert event.version == int(views[name].etag)
