"""A server's --metrics-port, read by the tests. A unary call is counted in the turn of the event
loop after its answer is sent (service/croupier/service/transport/calls.py), so a test that reads a
count right after a call waits for the count it expects instead of reading once."""

from __future__ import annotations

import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def metrics_text(port: int, host: str = "127.0.0.1") -> str:
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as reply:
        text: str = reply.read().decode()
    return text


def metric(port: int, name: str, **labels: str) -> float:
    """The sum of the samples of `name` with `labels` on the server's --metrics-port."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(metrics_text(port))
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


def counted(port: int, name: str, expected: float, timeout: float = 30.0, **labels: str) -> float:
    """`metric` once it has reached `expected`, or its value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    value = metric(port, name, **labels)
    while value < expected and time.monotonic() < deadline:
        time.sleep(0.005)
        value = metric(port, name, **labels)
    return value


def wait_metric(
    port: int, name: str, at_least: float, timeout: float = 30.0, **labels: str
) -> None:
    value = counted(port, name, at_least, timeout, **labels)
    if value < at_least:
        raise AssertionError(f"{name}{labels} was {value}, not {at_least}, after {timeout} s")
