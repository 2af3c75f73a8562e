"""The rpc line rendered by service/croupier/service/observability/logs.py is the line structlog's
processors render."""

from __future__ import annotations

import datetime
import io
import json
import re
import select
import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
import structlog

from croupier.service.observability import logs
from croupier.service.observability.logs import client_address

STAMP = re.compile(r'"timestamp": "[^"]*"')

IPV4 = "ipv4:127.0.0.1:54321"
CASES = [
    ("Echo", "OK", 0.482, None, None, None, None, None, None),
    ("ApplyMove", "OK", 0.712, "23a7ac4c097e1dbd633b3876", "one_card", 3, "play", None, IPV4),
    ("ApplyMove", "FAILED_PRECONDITION", 1.0, "g", "trinity", 0, "bid", "ILLEGAL_MOVE", IPV4),
    ("GetGame", "NOT_FOUND", 12.5, 'a "quoted"\\ name\n', None, None, None, "GAME_NOT_FOUND",
     "ipv6:[2001:db8::7]:443"),
    ("WatchGame", "CANCELLED", 3001.25, "caf\u00e9 \u2660", "vampire_queen", 11, None, None,
     "web:::1:8080"),
    ("GetGame", "UNIMPLEMENTED", 0.2, None, None, None, None, "METHOD_NOT_ALLOWED", "unix:/s"),
]  # fmt: skip
# The fields of a case, in rpc_line's order, without the latency.
FIELDS = ("rpc", "outcome", "game", "game_type", "seat", "move", "reason", "peer")


@pytest.fixture
def stream(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    # A fresh proxy: the module's caches the logger of its first use (and its stream).
    monkeypatch.setattr(logs, "_rpc_log", structlog.get_logger("croupier.rpc"))
    logs.configure("json", "info")
    yield out
    structlog.reset_defaults()
    logs._rpc_write = None


@pytest.mark.parametrize("case", CASES)
def test_rendered_like_structlog(stream: io.StringIO, case: tuple[object, ...]) -> None:
    logs.rpc_line(*case)  # type: ignore[arg-type]
    fast = stream.getvalue()
    write, logs._rpc_write = logs._rpc_write, None
    try:
        logs.rpc_line(*case)  # type: ignore[arg-type]
    finally:
        logs._rpc_write = write
    slow = stream.getvalue()[len(fast) :]
    assert fast.endswith("\n") and fast.count("\n") == 1
    assert STAMP.sub("", fast) == STAMP.sub("", slow)
    assert json.loads(fast)["rpc"] == case[0]
    assert json.loads(fast).get("peer") == (None if case[8] is None else client_address(case[8]))


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:54321", "127.0.0.1"),
        ("ipv6:[2001:db8::7]:443", "2001:db8::7"),  # the host's own, not its /64
        ("ipv6:%5B2001:db8::7%5D:443", "2001:db8::7"),  # brackets percent-encoded
        ("ipv6:[::ffff:192.0.2.1]:5", "192.0.2.1"),  # IPv4-mapped: the IPv4 address
        ("web:192.0.2.1:5", "192.0.2.1"),  # the web gateway's HTTP connection
        ("web:::1:8080", "::1"),
        ("web:unknown", "unknown"),
        ("unix:/run/croupier.sock", "unix:/run/croupier.sock"),  # no address: as given
    ],
)
def test_the_line_gives_the_peers_address_without_its_port(peer: str, address: str) -> None:
    assert client_address(peer) == address


def test_not_rendered_above_info(stream: io.StringIO) -> None:
    logs.configure("json", "warning")
    logs.rpc_line(*CASES[1])
    assert stream.getvalue() == ""


def test_console_format_left_to_structlog(stream: io.StringIO) -> None:
    logs.configure("console", "info")
    assert logs._rpc_write is None


def test_lines_of_one_turn_in_whole_writes_of_at_most_pipe_buf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The unary calls answered in one turn of the event loop are logged together: every line
    as rpc_line renders it, in writes of whole lines of up to PIPE_BUF bytes (worker processes
    share stderr)."""
    writes: list[str] = []
    monkeypatch.setattr(logs, "_rpc_write", writes.append)
    monkeypatch.setattr(logs, "_stamp", lambda: "2026-11-30T23:59:59.000001Z")
    calls = [
        (SimpleNamespace(**dict(zip(FIELDS, case[:2] + case[3:], strict=True))), case[2] / 1000)
        for case in CASES * 10
    ]
    logs.rpc_lines(calls)
    assert len(writes) > 1 and all(len(w.encode()) <= select.PIPE_BUF for w in writes)
    assert all(w.endswith("\n") for w in writes)
    alone: list[str] = []
    monkeypatch.setattr(logs, "_rpc_write", alone.append)
    for case in CASES * 10:
        logs.rpc_line(*case)
    assert "".join(writes) == "".join(alone)


def test_timestamp_as_structlog_writes_it() -> None:
    """ISO 8601 in UTC with a Z, microseconds left out when zero (datetime.isoformat)."""
    before = datetime.datetime.now(tz=datetime.UTC)
    stamp = logs._stamp()
    after = datetime.datetime.now(tz=datetime.UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", stamp)
    parsed = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert before <= parsed <= after
