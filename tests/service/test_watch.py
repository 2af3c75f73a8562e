"""WatchGame streams, fed through Redis pub/sub across server processes."""

from __future__ import annotations

import asyncio
import contextlib
import threading

import grpc

from croupier.client import Croupier
from croupier.local import LocalServer
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.one_card_pb2 import OneCardOptions
from engines.registry import GAMES
from tests.service.helpers import create, play_to_end


def collect(
    client: Croupier, name: str, credential: str | None
) -> tuple[threading.Thread, list[pb.WatchGameResponse]]:
    received: list[pb.WatchGameResponse] = []
    first = threading.Event()

    def run() -> None:
        for message in client.watch(name, credential):
            received.append(message)
            first.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert first.wait(10), "no first message"
    return thread, received


def test_watchers_on_one_process_see_moves_applied_through_another(
    client: Croupier, client_b: Croupier
) -> None:
    game = create(client, "vampire_queen", 3, seed=31)
    spectator_thread, spectator = collect(client, game.name, None)
    seat_thread, seat0 = collect(client, game.name, game.seat_credentials[0])
    view, moves = play_to_end([client_b], game, seed=31)
    spectator_thread.join(20)
    seat_thread.join(20)
    assert not spectator_thread.is_alive(), "the spectator's stream did not end"
    assert not seat_thread.is_alive(), "the seat's stream did not end"
    for stream in (spectator, seat0):
        assert len(stream) == moves + 1
        assert [int(m.view.etag) for m in stream] == list(range(1, moves + 2))
        assert stream[-1].view.HasField("result")
        assert not stream[0].events
    assert not spectator[0].view.HasField("viewer_seat")
    assert all(m.view.viewer_seat == 0 for m in seat0)
    assert spectator[-1].view.result == view.result


def test_streams_opened_all_at_once_on_a_fresh_server_all_see_the_next_move(
    store_url: str,
) -> None:
    """Many first subscriptions at once (a fresh process has no pub/sub connection yet) must
    neither stall nor lose any channel's notifications: each stream has its first view at once
    and gets the move well before the poll that would otherwise hide the loss."""
    games, per_game = 16, 8
    with LocalServer(store_url, extra_args=("--watch-poll", "60")) as server:
        asyncio.run(_watch_all_at_once(server.target, games, per_game))


async def _watch_all_at_once(target: str, games: int, per_game: int) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = GameServiceStub(channel)
        created = []
        for seed in range(games):
            request = pb.CreateGameRequest(seats=3, seed=seed, one_card=OneCardOptions())
            created.append(await stub.CreateGame(request))
        counts = [0] * (games * per_game)
        changed = asyncio.Condition()

        async def watch(number: int) -> None:
            request = pb.WatchGameRequest(name=created[number % games].name)
            async for _ in stub.WatchGame(request):
                counts[number] += 1
                async with changed:
                    changed.notify_all()

        async def all_reach(count: int, seconds: float) -> None:
            async with asyncio.timeout(seconds), changed:
                await changed.wait_for(lambda: min(counts) >= count)

        streams = [asyncio.create_task(watch(n)) for n in range(games * per_game)]
        try:
            await all_reach(1, 4)  # below the 5 s a subscription may wait to be confirmed
            engine = GAMES["one_card"]
            for seed, game in enumerate(created):
                state, _ = engine.new_game(OneCardOptions(), 3, seed)
                seat = engine.active_seats(state)[0]
                move = pb.Move(one_card=engine.legal_moves(state, seat)[0])
                credential = (("authorization", f"Bearer {game.seat_credentials[seat]}"),)
                apply = pb.ApplyMoveRequest(name=game.name, move=move)
                await stub.ApplyMove(apply, metadata=credential)
            with contextlib.suppress(TimeoutError):
                await all_reach(2, 10)
            missed = sorted({n % games for n, count in enumerate(counts) if count < 2})
            assert not missed, f"games whose watchers missed the move: {missed}"
        finally:
            for stream in streams:
                stream.cancel()
            await asyncio.gather(*streams, return_exceptions=True)
