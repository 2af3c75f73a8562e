"""What every call goes through before and after its servicer method: a slot under the process's
bounds, the bearer token read once, the rate limit of that credential (or of the address without
one), the one log line and the metrics, and the mapping of every exception to a gRPC status (the
only place where that happens). The same wrapper serves the gRPC port and the web gateway, which
calls the servicer's methods directly, so nothing here is a grpc.aio interceptor."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
import structlog
from google.protobuf.message import DecodeError, Message

from croupier.service.application import errors
from croupier.service.application.callers import CallLog
from croupier.service.application.config import Settings
from croupier.service.application.limits import RateLimiter, peer_address
from croupier.service.observability import logs, metrics
from croupier.service.store.protocol import StoreUnavailable
from croupier.service.transport import overload

log = structlog.get_logger("croupier.rpc")

Req = TypeVar("Req")
Resp = TypeVar("Resp")


class _Answered:
    """The unary calls answered since the event loop last ran their metrics and log lines: done
    together, once per turn of the loop, after the responses are on their way. One callback
    and one write of the log for every call answered in a turn, instead of one each."""

    def __init__(self) -> None:
        self.calls: list[tuple[CallLog, float]] = []
        # The loop where `emit` is scheduled (None: nowhere). Another loop (tests run one per
        # test) schedules its own: what a closed loop left pending is written with it.
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, call: CallLog, latency: float) -> None:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop = loop
            loop.call_soon(self.emit)
        self.calls.append((call, latency))

    def emit(self) -> None:
        self.loop = None
        calls, self.calls = self.calls, []
        record = metrics.record_call
        for call, latency in calls:
            record(call.rpc, call.game_type, call.outcome, latency, call.rule_id, call.reason)
        logs.rpc_lines(calls)


_answered = _Answered()


# Calls whose bearer token, on a server without operator keys, proves nothing (anyone may
# create a game, nobody is an operator) or that take none (JoinGame): rate-limited per address,
# so that made-up tokens are not fresh buckets.
_CREDENTIAL_REFUSALS = frozenset(
    {
        errors.Reason.CREDENTIAL_REJECTED,
        errors.Reason.CREDENTIAL_MALFORMED,
        errors.Reason.OPERATOR_KEY_REJECTED,
    }
)
_ADDRESS_LIMITED = frozenset({"CreateGame", "ListGames", "ReissueCredential", "JoinGame"})


class Admission:
    """What a call must pass before its servicer method runs, one per process (every service of the
    process shares it: the servicer holds it as `admission`, where the wrappers below find it): a
    slot under the bounds of calls in flight and of open streams
    (service/croupier/service/transport/overload.py), and the rate limits of credentials and
    addresses."""

    def __init__(self, settings: Settings, operator_keys: bool) -> None:
        self._settings = settings
        self._operator_keys = operator_keys
        self.overload = overload.Overload(
            settings.max_calls_in_flight,
            settings.max_watch_streams,
            settings.max_spectator_streams,
        )
        self.calls = self.overload.calls
        self._limiter = RateLimiter(settings.rate_limit, settings.rate_burst)
        self._anonymous = RateLimiter(settings.anonymous_rate_limit, settings.anonymous_rate_burst)
        # Credentials the server refused, per address: a made-up token is no credential, so
        # guessing them is limited like calls without one (each guess costs a store read).
        self._refused = RateLimiter(settings.anonymous_rate_limit, settings.anonymous_rate_burst)

    def admit(self, call: CallLog, context: grpc.aio.ServicerContext) -> None:
        """Refuse a call over its credential's rate, or, without a credential, over its
        address's (RESOURCE_EXHAUSTED with RetryInfo)."""
        # CreateGame's bearer token is a credential only when operator keys are configured;
        # otherwise any made-up token would be a fresh bucket, so the call counts as anonymous.
        anonymous = (
            call.token is None
            or call.rpc == "JoinGame"
            or (call.rpc in _ADDRESS_LIMITED and not self._operator_keys)
        )
        if not anonymous:
            assert call.token is not None
            wait = self._refused.wait(peer_address(context.peer()))
            if wait is not None:
                raise errors.resource_exhausted(
                    errors.Reason.RATE_LIMITED,
                    f"more than {self._settings.anonymous_rate_limit:g} refused credentials per"
                    f" second from this address; retry in {wait:.2f} s",
                    retry_after=wait,
                )
            wait = self._limiter.acquire(call.token)
            if wait is not None:
                raise errors.resource_exhausted(
                    errors.Reason.RATE_LIMITED,
                    f"more than {self._settings.rate_limit:g} calls per second with this"
                    f" credential; retry in {wait:.2f} s",
                    retry_after=wait,
                )
            return
        if self._anonymous.rate <= 0:
            return
        wait = self._anonymous.acquire(peer_address(context.peer()))
        if wait is not None:
            raise errors.resource_exhausted(
                errors.Reason.RATE_LIMITED,
                f"more than {self._settings.anonymous_rate_limit:g} calls per second without a"
                f" credential from this address; retry in {wait:.2f} s",
                retry_after=wait,
            )

    def refused(self, error: errors.ServiceError, context: grpc.aio.ServicerContext) -> None:
        """Count a refused credential or operator key against its address (see `admit`)."""
        if error.reason in _CREDENTIAL_REFUSALS:
            self._refused.acquire(peer_address(context.peer()))


@dataclass(frozen=True, slots=True)
class Undecodable:
    """A request whose bytes are not a valid message of its type: `problem` says how, for the
    MALFORMED_REQUEST message (the web gateway's JSON and framing have their own)."""

    type_name: str
    problem: str = errors.BAD_PROTOBUF


def lenient(message_type: type[Message]) -> Callable[[bytes], Message | Undecodable]:
    """A request deserializer that does not raise: gRPC answers a deserializer's exception with
    UNKNOWN and the parser's text; the wrappers below answer INVALID_ARGUMENT instead."""

    def parse(data: bytes) -> Message | Undecodable:
        try:
            return message_type.FromString(data)
        except DecodeError:
            return Undecodable(message_type.DESCRIPTOR.name)

    return parse


# The longest bearer token read: longer is no credential of this server's.
MAX_TOKEN = 256


def bearer(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The token of `authorization: Bearer <token>`, None when there is no such header.

    Two `authorization` headers are refused rather than one of them picked: a proxy that adds
    its own header, or a client that sends a seat credential and an operator key, would
    otherwise have the call run as whichever came first."""
    found = [value for key, value in metadata or () if key == "authorization"]
    if not found:
        return None
    if len(found) > 1:
        raise errors.credential_malformed("send one 'authorization' header, not several")
    value = found[0]
    text = value.decode(errors="replace") if isinstance(value, bytes) else value
    scheme, _, token = text.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN:
        raise errors.credential_malformed()
    return token


def _to_service_error(exc: Exception) -> errors.ServiceError:
    if isinstance(exc, errors.ServiceError):
        return exc
    if isinstance(exc, StoreUnavailable):
        return errors.store_unavailable(str(exc))
    return unexpected_error(exc)


def unexpected_error(exc: Exception) -> errors.ServiceError:
    """INTERNAL for an exception nothing expected; its text and traceback go to the log only."""
    log.error("unexpected_error", error=type(exc).__name__, exc_info=exc)
    return errors.internal()


async def _refuse(
    context: grpc.aio.ServicerContext, call: CallLog, error: errors.ServiceError, started: float
) -> NoReturn:
    """Answer a call the process has no room for, before anything else is done with it."""
    call.fail(error)
    asyncio.get_running_loop().call_soon(call.count, time.perf_counter() - started)
    await context.abort_with_status(error.to_status())
    raise AssertionError("not reached: abort raises")


# A session refused before its client's first message has come: a grpc.aio client (grpcio 1.85)
# whose write of that message fails because the refusal came first reports INTERNAL ("Internal
# error from Core") instead of the refusal (its failed write overwrites the status received,
# details and trailers included), and so never retries. A client sends its `start` at once, so
# the refusal waits for it, this long at most: seconds, as a client on a loaded machine (or
# behind a slow link) may take that long; the wait holds only the refused stream, which the
# per-address and per-connection stream limits bound.
SESSION_START_WAIT_SECONDS = 5.0


async def _first_message(request: object) -> None:
    """Wait for a session's first message (nothing to wait for in a server stream's request)."""
    if isinstance(request, AsyncIterator):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(anext(request), SESSION_START_WAIT_SECONDS)


def unary(
    handler: Callable[[Any, Req, grpc.aio.ServicerContext, CallLog], Awaitable[Resp]],
) -> Callable[[Any, Req, grpc.aio.ServicerContext], Awaitable[Resp]]:
    """Times the call, maps every exception to a status, and logs one line."""

    @functools.wraps(handler)
    async def wrapper(self: Any, request: Req, context: grpc.aio.ServicerContext) -> Resp:
        call = CallLog(handler.__name__)
        started = time.perf_counter()
        admission: Admission = self.admission
        try:
            admission.calls.enter(call.rpc)
        except errors.ServiceError as refusal:
            await _refuse(context, call, refusal, started)
        try:
            call.peer = context.peer()
            call.token = bearer(context.invocation_metadata())
            admission.admit(call, context)
            if isinstance(request, Undecodable):
                raise errors.malformed_request(request.type_name, request.problem)
            response = await handler(self, request, context, call)
            call.outcome = "OK"
            return response
        except Exception as exc:
            error = _to_service_error(exc)
            call.fail(error)
            admission.refused(error, context)
            await context.abort_with_status(error.to_status())
            raise  # not reached: abort raises
        finally:
            admission.calls.leave()
            # Logged once the response is on its way: the log line and the metrics are not part
            # of the caller's wait.
            _answered.add(call, time.perf_counter() - started)

    return wrapper


def streaming(
    handler: Callable[[Any, Req, grpc.aio.ServicerContext, CallLog], AsyncIterator[Resp]],
) -> Callable[[Any, Req, grpc.aio.ServicerContext], AsyncIterator[Resp]]:
    """A server stream (WatchGame), or a session (PlayGame: its request is the client's stream
    of messages, which the handler reads): a watch stream's slot under the bound of open
    streams, the caller's rate limit once, every exception mapped to a status, one log line at
    the end."""

    @functools.wraps(handler)
    async def wrapper(
        self: Any, request: Req, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Resp]:
        call = CallLog(handler.__name__)
        started = time.perf_counter()
        metadata = context.invocation_metadata()
        admission: Admission = self.admission
        bound = admission.overload.streams(any(key == "authorization" for key, _ in metadata or ()))
        try:
            bound.enter(call.rpc)
        except errors.ServiceError as refusal:
            await _first_message(request)
            await _refuse(context, call, refusal, started)
        gauge = metrics.open_streams(call.rpc)
        gauge.inc()
        try:
            call.peer = context.peer()
            call.token = bearer(metadata)
            admission.admit(call, context)
            if isinstance(request, Undecodable):
                raise errors.malformed_request(request.type_name, request.problem)
            async for item in handler(self, request, context, call):
                yield item
            call.outcome = "OK"
        except Exception as exc:
            error = _to_service_error(exc)
            call.fail(error)
            admission.refused(error, context)
            await context.abort_with_status(error.to_status())
        finally:
            bound.leave()
            gauge.dec()
            call.emit(time.perf_counter() - started)

    return wrapper


async def session_move(
    admission: Admission,
    context: grpc.aio.ServicerContext,
    call: CallLog,
    apply: Callable[[], Awaitable[Resp]],
) -> Resp:
    """One move of a session, run as `unary` runs a call: a slot under the bound of calls in
    flight, the credential's rate limit, the metrics and one log line; any exception is raised
    again as the ServiceError a call would have ended with."""
    started = time.perf_counter()
    try:
        admission.calls.enter(call.rpc)
    except errors.ServiceError as refusal:
        call.fail(refusal)
        call.count(time.perf_counter() - started)
        raise
    try:
        if call.peer is None:
            call.peer = context.peer()
        admission.admit(call, context)
        result = await apply()
        call.outcome = "OK"
        return result
    except Exception as exc:
        error = _to_service_error(exc)
        call.fail(error)
        admission.refused(error, context)
        if error is exc:
            raise
        raise error from exc
    finally:
        admission.calls.leave()
        _answered.add(call, time.perf_counter() - started)
