"""The rpc line rendered by service/logs.py is the line structlog's processors render."""

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

from croupier.service import logs

STAMP = re.compile(r'"timestamp": "[^"]*"')

CASES = [
    ("Echo", "OK", 0.482, None, None, None, None, None),
    ("ApplyMove", "OK", 0.712, "23a7ac4c097e1dbd633b3876", "one_card", 3, "play", None),
    ("ApplyMove", "FAILED_PRECONDITION", 1.0, "g", "trinity", 0, "bid", "ILLEGAL_MOVE"),
    ("GetGame", "NOT_FOUND", 12.5, 'a "quoted"\\ name\n', None, None, None, "GAME_NOT_FOUND"),
    ("WatchGame", "CANCELLED", 3001.25, "caf\u00e9 \u2660", "vampire_queen", 11, None, None),
]
# The fields of a case, in rpc_line's order, without the latency.
FIELDS = ("rpc", "outcome", "game", "game_type", "seat", "move", "reason")


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
