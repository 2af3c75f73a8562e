"""Servers kept full for the overload tests: their one call slot held by a call waiting for a
stopped Redis, or their one watch-stream slot by an open stream; and their metrics read."""

from __future__ import annotations

import signal
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
from prometheus_client.parser import text_string_to_metric_families

from croupier.service.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub


def metric(port: int, name: str, **labels: str) -> float:
    """The sum of the samples of `name` with `labels` on the server's --metrics-port."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


def wait_metric(
    port: int, name: str, at_least: float, timeout: float = 30.0, **labels: str
) -> None:
    deadline = time.monotonic() + timeout
    while metric(port, name, **labels) < at_least:
        if time.monotonic() > deadline:
            raise AssertionError(f"{name}{labels} did not reach {at_least} within {timeout} s")
        time.sleep(0.005)


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
