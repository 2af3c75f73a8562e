"""structlog setup: JSON lines in production, readable lines for people."""

from __future__ import annotations

import logging
import os
import sys

import structlog

_PID = os.getpid()  # worker processes are started afresh, never forked from this one


def _add_pid(
    logger: object, method: str, event: structlog.types.EventDict
) -> structlog.types.EventDict:
    event["pid"] = _PID
    return event


def configure(log_format: str = "json", level: str = "info") -> None:
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _add_pid,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        # One write per line (message and newline together): worker processes share stderr, and
        # with unbuffered output (PYTHONUNBUFFERED) two lines written apart could interleave.
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
