"""A move written by the process whose streams watch its game reaches them without its
notification being decoded there (RecentNotifications.remember): two real server processes on
one real Redis, the watch streams on process A, moves made through A and through B. Every
stream still gets every move once, in order, and the same view as a read of the game."""

from __future__ import annotations

import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1 import game_service_pb2 as pb
from tests.service.helpers import create

MOVES = 8  # half through each process


@dataclass
class Pair:
    a: Croupier  # the process the streams are on, which serves its metrics
    b: Croupier
    a_metrics: str


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    metrics_port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(store.url, extra_args=("--metrics-port", str(metrics_port))) as server_a,
        LocalServer(store.url) as server_b,
        Croupier(server_a.target) as a,
        Croupier(server_b.target) as b,
    ):
        yield Pair(a, b, f"http://127.0.0.1:{metrics_port}/metrics")


class Stream:
    """A seat's watch stream, read by a thread of its own."""

    def __init__(self, client: Croupier, name: str, credential: str) -> None:
        self.received: list[pb.WatchGameResponse] = []
        self.error: CroupierError | None = None
        self._client, self._name, self._credential = client, name, credential
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self._client.watch(self._name, self._credential):
                self.received.append(message)
        except CroupierError as error:  # the channel closed at the module's end, or a failure
            self.error = error

    def wait_for(self, count: int, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.received) >= count, f"{len(self.received)} of {count}: {self.error}"


def watched_moves(url: str) -> dict[str, float]:
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    found = re.findall(r'^croupier_watched_moves_total\{source="(\w+)"\} (\S+)$', text, re.M)
    return {source: float(count) for source, count in found}


def test_the_writing_process_hands_its_moves_to_its_streams_undecoded(pair: Pair) -> None:
    game = create(pair.a, "one_card", 4, seed=41)
    credentials = list(game.seat_credentials)
    streams = [Stream(pair.a, game.name, credential) for credential in credentials]
    for stream in streams:
        stream.wait_for(1)  # subscribed: the view now has come
    before = watched_moves(pair.a_metrics)
    view = game.view
    for number in range(MOVES):
        via = pair.a if number % 2 == 0 else pair.b
        credential = credentials[view.active_seats[0]]
        view = via.apply(game.name, credential, via.legal_moves(game.name, credential)[0]).view
    for stream in streams:
        stream.wait_for(1 + MOVES)
    after = watched_moves(pair.a_metrics)
    # A's moves were filed by A as it wrote them; B's came to A as notifications to decode.
    assert after.get("filed", 0) - before.get("filed", 0) == MOVES // 2
    assert after.get("decoded", 0) - before.get("decoded", 0) == MOVES // 2
    for seat, stream in enumerate(streams):
        assert stream.error is None
        etags = [message.view.etag for message in stream.received]
        assert etags == [str(version) for version in range(1, MOVES + 2)]
        assert stream.received[-1].view == pair.b.get(game.name, credentials[seat])


def test_the_bot_seats_moves_are_filed_by_the_process_that_plays_them(pair: Pair) -> None:
    """Bot seats are played by the process whose write made them due (here A, where the
    human's moves go): their moves reach A's streams filed too."""
    game = pair.a.create(options_for("one_card"), 3, seed=42, bot_levels=["", "random", "random"])
    human = game.seat_credentials[0]
    stream = Stream(pair.a, game.name, human)

    def humans_turn() -> pb.GameView:
        """The last view the stream got, once only the human may act (no bot moves until it
        does) or the game is over."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if stream.received:
                view = stream.received[-1].view
                if list(view.active_seats) == [0] or view.status == pb.GAME_STATUS_FINISHED:
                    return view
            time.sleep(0.01)
        raise AssertionError(f"the bots did not hand the turn back: {stream.error}")

    view = humans_turn()
    before, received = watched_moves(pair.a_metrics), len(stream.received)
    for _ in range(4):
        if view.status == pb.GAME_STATUS_FINISHED:
            break
        count = len(stream.received)
        pair.a.apply(game.name, human, pair.a.legal_moves(game.name, human)[0])
        stream.wait_for(count + 1)
        view = humans_turn()
    after = watched_moves(pair.a_metrics)
    moves = len(stream.received) - received
    assert moves > 4  # the human's and the bots'
    assert after.get("filed", 0) - before.get("filed", 0) == moves
    assert after.get("decoded", 0) - before.get("decoded", 0) == 0
    assert stream.error is None
