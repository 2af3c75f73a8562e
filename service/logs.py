"""structlog setup: JSON lines in production, readable lines for people."""

from __future__ import annotations

import datetime
import json
import logging
import os
import sys
from collections.abc import Callable

import structlog

_PID = os.getpid()  # worker processes are started afresh, never forked from this one
_UTC = datetime.UTC

# json.dumps's own string encoder (ensure_ascii, its default).
_string: Callable[[str], str] = json.encoder.encode_basestring_ascii

_rpc_log = structlog.get_logger("croupier.rpc")
# Where the rpc lines go when they are rendered here (JSON at level info or below), else None.
_rpc_write: Callable[[str], object] | None = None


def _add_pid(
    logger: object, method: str, event: structlog.types.EventDict
) -> structlog.types.EventDict:
    event["pid"] = _PID
    return event


def configure(log_format: str = "json", level: str = "info") -> None:
    global _rpc_write
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    threshold = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _add_pid,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(threshold),
        # One write per line (message and newline together): worker processes share stderr, and
        # with unbuffered output (PYTHONUNBUFFERED) two lines written apart could interleave.
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    _rpc_write = None
    if log_format == "json" and threshold <= logging.INFO:
        stream = sys.stderr

        def write(line: str) -> None:
            stream.write(line)
            stream.flush()

        _rpc_write = write


def rpc_line(
    rpc: str,
    outcome: str,
    latency_ms: float,
    game: str | None,
    game_type: str | None,
    seat: int | None,
    move: str | None,
    reason: str | None,
) -> None:
    """The one line of a call (service/calls.py). In JSON it is rendered here, byte for byte
    what the processors of `configure` write (tests/service/test_logs.py), in about a quarter
    of their CPU: it is written for every call. No context variables are bound on the call
    path, so merge_contextvars adds nothing to it."""
    write = _rpc_write
    if write is None:
        fields = {
            k: v
            for k, v in (
                ("game", game),
                ("game_type", game_type),
                ("seat", seat),
                ("move", move),
                ("reason", reason),
            )
            if v is not None
        }
        _rpc_log.info("rpc", rpc=rpc, outcome=outcome, latency_ms=latency_ms, **fields)
        return
    parts = ['{"rpc": ', _string(rpc), ', "outcome": ', _string(outcome)]
    parts += (', "latency_ms": ', repr(latency_ms))
    if game is not None:
        parts += (', "game": ', _string(game))
    if game_type is not None:
        parts += (', "game_type": ', _string(game_type))
    if seat is not None:
        parts += (', "seat": ', str(int(seat)))
    if move is not None:
        parts += (', "move": ', _string(move))
    if reason is not None:
        parts += (', "reason": ', _string(reason))
    stamp = datetime.datetime.now(tz=_UTC).isoformat().replace("+00:00", "Z")
    parts += (', "event": "rpc", "level": "info", "pid": ', str(_PID))
    parts += (', "timestamp": "', stamp, '"}\n')
    write("".join(parts))
