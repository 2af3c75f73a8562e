"""Servers kept full for the overload tests: their one call slot held by a call waiting for a
stopped Redis, or their one watch-stream slot by an open stream."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import grpc

from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from tests.scrape import wait_metric


@contextmanager
def call_slot_held(
    store: EmbeddedRedis, target: str, name: str, metrics_port: int
) -> Iterator[None]:
    """A server started with --max-calls-in-flight 1 (and a long --store-timeout) kept full:
    Redis is stopped (SIGSTOP) and one GetGame waits for it, until the block ends."""
    assert store.process is not None
    answered: list[pb.GetGameResponse] = []

    def hold() -> None:
        with grpc.insecure_channel(target, options=[("grpc.enable_retries", 0)]) as channel:
            answered.append(
                GameServiceStub(channel).GetGame(pb.GetGameRequest(name=name), timeout=60)
            )

    store.process.send_signal(signal.SIGSTOP)
    holder = threading.Thread(target=hold)
    try:
        holder.start()
        wait_metric(metrics_port, "croupier_calls_in_flight", 1)
        yield
    finally:
        store.process.send_signal(signal.SIGCONT)
        holder.join(timeout=60)
    assert answered, "the call holding the slot was not answered"


@contextmanager
def watch_slot_held(target: str, name: str, metrics_port: int) -> Iterator[None]:
    """A server started with --max-watch-streams 1 kept full by one open WatchGame stream."""
    with grpc.insecure_channel(target, options=[("grpc.enable_retries", 0)]) as channel:
        stream = GameServiceStub(channel).WatchGame(pb.WatchGameRequest(name=name))
        next(stream)
        wait_metric(metrics_port, "croupier_watch_streams", 1)
        try:
            yield
        finally:
            stream.cancel()
