"""WatchGame streams, fed through Redis pub/sub across server processes."""

from __future__ import annotations

import threading

from croupier.client import Croupier
from croupier.v1 import game_service_pb2 as pb
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
