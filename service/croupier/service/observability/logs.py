"""structlog setup: JSON lines in production, readable lines for people; the one line of a
call, with the address it came from (`client_address`)."""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import os
import select
import sys
import time
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Protocol

import structlog

_PID = os.getpid()  # worker processes are started afresh, never forked from this one
_TAIL = f', "event": "rpc", "level": "info", "pid": {_PID}, "timestamp": "'

# json.dumps's own string encoder (ensure_ascii, its default).
_string: Callable[[str], str] = json.encoder.encode_basestring_ascii

_rpc_log = structlog.get_logger("croupier.rpc")
# Where the rpc lines go when they are rendered here (JSON at level info or below), else None.
_rpc_write: Callable[[str], object] | None = None


def peer_ip(peer: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | str:
    """The IP address of a peer: gRPC's peers look like `ipv4:127.0.0.1:53422` and
    `ipv6:[::1]:53422` (some versions percent-encode the brackets), the web gateway's like
    `web:127.0.0.1:53422` or `web:::1:53422`. An IPv4-mapped IPv6 address is its IPv4
    address. Anything else (a Unix socket) is given back as it is."""
    kind, _, rest = urllib.parse.unquote(peer).partition(":")
    if kind not in ("ipv4", "ipv6", "web"):
        return peer
    host = rest.rsplit(":", 1)[0] if ":" in rest else rest
    host = host.removeprefix("[").removesuffix("]")
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host or peer
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


# Memoized: every call's log line gives its address (a connection's peer is the same string
# for all its calls).
@functools.lru_cache(maxsize=4096)
def client_address(peer: str) -> str:
    """The address of a call's log line: the peer's IP address without its port (an IPv6
    host's own address, not its /64), so that abuse can be traced to an address."""
    return str(peer_ip(peer))


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
        # In the order logged, not sorted: a line puts what a person looks for first (the
        # addresses and the store of `listening`).
        else structlog.dev.ConsoleRenderer(colors=False, sort_keys=False)
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


class RpcCall(Protocol):
    """What the line of a call says (service/croupier/service/application/callers.py's CallLog)."""

    rpc: str
    outcome: str
    game: str | None
    game_type: str | None
    seat: int | None
    move: str | None
    reason: str | None
    peer: str | None


# Lines written by one write at most: a write to a pipe of up to PIPE_BUF bytes is never
# interleaved with another process's (worker processes share stderr).
_WRITE_BYTES = select.PIPE_BUF
# The timestamp's text up to its seconds, for the second it was made in (a line's timestamp is
# otherwise a datetime and its isoformat, per line).
_second: tuple[int, str] = (-1, "")


def _stamp() -> str:
    """What structlog's TimeStamper(fmt="iso", utc=True) writes for now: the microseconds
    floored, and left out when zero, as datetime.isoformat does."""
    global _second
    micros = time.time_ns() // 1000
    seconds, fraction = divmod(micros, 1_000_000)
    if seconds != _second[0]:
        _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    return f"{_second[1]}.{fraction:06d}Z" if fraction else f"{_second[1]}Z"


def rpc_line(
    rpc: str,
    outcome: str,
    latency_ms: float,
    game: str | None,
    game_type: str | None,
    seat: int | None,
    move: str | None,
    reason: str | None,
    peer: str | None = None,
) -> None:
    """The one line of a call, alone (a watch stream's, the web gateway's). `peer` is gRPC's
    (`ipv4:127.0.0.1:54321`): the line gives its address, `peer` "127.0.0.1"."""
    write = _rpc_write
    address = None if peer is None else client_address(peer)
    if write is None:
        _structlog_line(rpc, outcome, latency_ms, game, game_type, seat, move, reason, address)
        return
    write(_line(rpc, outcome, latency_ms, game, game_type, seat, move, reason, address, _stamp()))


def rpc_lines(calls: Sequence[tuple[RpcCall, float]]) -> None:
    """The lines of the unary calls answered in one turn of the event loop
    (service/croupier/service/transport/calls.py), each with its latency in seconds. In JSON they
    are rendered here, byte for byte what the processors of `configure` write
    (tests/service/test_logs.py), in a fraction of their CPU, and written together: one write of up
    to PIPE_BUF bytes of whole lines instead of one per line. No context variables are bound on the
    call path, so merge_contextvars adds nothing to them."""
    write = _rpc_write
    if write is None:
        for call, latency in calls:
            _structlog_line(*_fields(call, latency))
        return
    stamp = _stamp()  # the lines are written at once: one time for all
    lines: list[str] = []
    size = 0
    for call, latency in calls:
        line = _line(*_fields(call, latency), stamp)
        if size + len(line) > _WRITE_BYTES and lines:
            write("".join(lines))
            lines.clear()
            size = 0
        lines.append(line)
        size += len(line)  # ASCII (ensure_ascii): a character is a byte
    write("".join(lines))


_Fields = tuple[
    str, str, float, str | None, str | None, int | None, str | None, str | None, str | None
]


def _fields(call: RpcCall, latency: float) -> _Fields:
    """A call's line's fields, in the line's order (latency in milliseconds, the peer's address)."""
    peer = None if call.peer is None else client_address(call.peer)
    return (
        call.rpc,
        call.outcome,
        round(latency * 1000, 3),
        call.game,
        call.game_type,
        call.seat,
        call.move,
        call.reason,
        peer,
    )


def _structlog_line(
    rpc: str,
    outcome: str,
    latency_ms: float,
    game: str | None,
    game_type: str | None,
    seat: int | None,
    move: str | None,
    reason: str | None,
    peer: str | None,
) -> None:
    fields = {
        k: v
        for k, v in (
            ("game", game),
            ("game_type", game_type),
            ("seat", seat),
            ("move", move),
            ("reason", reason),
            ("peer", peer),
        )
        if v is not None
    }
    _rpc_log.info("rpc", rpc=rpc, outcome=outcome, latency_ms=latency_ms, **fields)


def _line(
    rpc: str,
    outcome: str,
    latency_ms: float,
    game: str | None,
    game_type: str | None,
    seat: int | None,
    move: str | None,
    reason: str | None,
    peer: str | None,
    stamp: str,
) -> str:
    """The line: the keys in the order of structlog's event dict, rendered as json.dumps
    renders them."""
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
    if peer is not None:
        parts += (', "peer": ', _string(peer))
    parts += (_TAIL, stamp, '"}\n')
    return "".join(parts)
