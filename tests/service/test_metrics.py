"""The lean counters and histograms of service/croupier/service/observability/metrics.py expose what
prometheus_client's Counter and Histogram expose for the same increments and observations, byte for
byte."""

from __future__ import annotations

import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from croupier.service.observability import metrics

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
LABELS = [
    ("ApplyMove", "one_card", "OK", ""),
    ("ApplyMove", "trinity", "FAILED_PRECONDITION", "ILLEGAL_MOVE"),
    ("CreateGame", "", "RESOURCE_EXHAUSTED", "RATE_LIMITED"),
    ('Odd "name"\\', "caf\u00e9", "OK", ""),
]


def test_empty_like_prometheus_client() -> None:
    lean, native = CollectorRegistry(), CollectorRegistry()
    metrics.LeanCounter("c", "Help.", ["a", "b"], registry=lean)
    metrics.LeanHistogram("h_seconds", "Help of h.", "rpc", BUCKETS, registry=lean)
    Counter("c", "Help.", ["a", "b"], registry=native)
    Histogram("h_seconds", "Help of h.", ["rpc"], buckets=BUCKETS, registry=native)
    assert generate_latest(lean) == generate_latest(native)


def test_counts_and_latencies_like_prometheus_client() -> None:
    lean, native = CollectorRegistry(), CollectorRegistry()
    names = ["rpc", "game_type", "code", "reason"]
    calls = metrics.LeanCounter("calls", "Calls.", names, lean)
    latency = metrics.LeanHistogram("latency_seconds", "Latency.", "rpc", BUCKETS, lean)
    native_calls = Counter(
        "calls", "Calls.", ["rpc", "game_type", "code", "reason"], registry=native
    )
    native_latency = Histogram(
        "latency_seconds", "Latency.", ["rpc"], buckets=BUCKETS, registry=native
    )
    draw = random.Random(22)
    # Bounds themselves (a bound's own bucket holds it), beyond the last, zero, and a spread.
    amounts = [*BUCKETS, 0.0, 3.0, 1e-9, *(draw.expovariate(200) for _ in range(2000))]
    for number, amount in enumerate(amounts):
        labels = LABELS[number % len(LABELS)]
        calls.inc(labels)
        native_calls.labels(*labels).inc()
        latency.observe(labels[0], amount)
        native_latency.labels(labels[0]).observe(amount)
    assert generate_latest(lean) == generate_latest(native)
