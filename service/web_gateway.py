"""The browser gateway: gRPC-Web and the Connect protocol over HTTP/1.1 (and h2c) for the same
`GameService` servicer, store and rules as the gRPC port.

Browsers cannot speak gRPC (no HTTP trailers from fetch), so a second port serves the two
browser protocols, both of which connect-web clients speak. The protocols come from
`connectrpc` (Connect's Python runtime, with its google.protobuf codecs) served by Hypercorn
inside the server's own event loop; each call is handed to the very servicer object the gRPC
server uses, through a small adapter of the two things it needs from a gRPC context (the call
metadata, and `abort_with_status`). Nothing about games is reimplemented here: the endpoints
are derived from the GameService descriptor, so they follow protos/.

    gateway = await start_web_gateway(servicer, "[::]", 8080, cors_origins=["https://app"])
    ...
    await gateway.stop()

See docs/browser.md.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import grpc
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import status_pb2
from hypercorn.asyncio import serve
from hypercorn.config import Config
from protobuf.wkt import Any as AnyDetail

from croupier.v1 import game_service_pb2
from service.servicer import GameService

log = logging.getLogger("croupier.web")

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
STATUS_DETAILS_KEY = "grpc-status-details-bin"

# What a browser may send and read across origins (the Connect and gRPC-Web headers, and the
# seat credential).
ALLOWED_HEADERS = (
    "authorization, content-type, connect-protocol-version, connect-timeout-ms,"
    " connect-accept-encoding, connect-content-encoding, grpc-timeout, grpc-accept-encoding,"
    " x-grpc-web, x-user-agent"
)
EXPOSED_HEADERS = (
    "grpc-status, grpc-message, grpc-status-details-bin, grpc-encoding,"
    " connect-content-encoding, content-encoding"
)
PREFLIGHT_MAX_AGE = "7200"
MAX_REQUEST_BYTES = 1024 * 1024  # default; the server passes its --max-message-bytes

# Request headers of the transport itself, not call metadata.
_TRANSPORT_HEADERS = frozenset(
    {
        "host", "connection", "content-length", "content-type", "transfer-encoding", "te",
        "accept", "accept-encoding", "origin", "referer", "user-agent", "x-grpc-web",
        "x-user-agent", "connect-protocol-version", "connect-timeout-ms", "grpc-timeout",
        "connect-accept-encoding", "connect-content-encoding", "grpc-encoding",
        "grpc-accept-encoding",
    }
)  # fmt: skip

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def _connect_code(code: grpc.StatusCode) -> Code:
    name = "CANCELED" if code == grpc.StatusCode.CANCELLED else code.name
    return Code[name] if name in Code.__members__ else Code.UNKNOWN


def _connect_error(status: Any) -> ConnectError:
    """A `grpc.Status` (as built by service/errors.py) as a ConnectError with the same
    google.rpc.Status details, so both browser protocols carry ErrorInfo, BadRequest and
    PreconditionFailure exactly as the gRPC port does."""
    code: grpc.StatusCode = status.code
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == STATUS_DETAILS_KEY:
            rich = status_pb2.Status.FromString(value)
            details = [
                ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich.details
            ]
    return ConnectError(_connect_code(code), status.details or "", details)


class WebContext:
    """What `GameService` uses of `grpc.aio.ServicerContext`, over a Connect request."""

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        metadata: list[tuple[str, str | bytes]] = []
        for key, value in self._ctx.request_headers.allitems():
            name = key.lower()
            if name in _TRANSPORT_HEADERS or name.startswith(":"):
                continue
            if name.endswith("-bin"):
                metadata.append((name, base64.b64decode(value + "===")))
            else:
                metadata.append((name, value))
        return tuple(metadata)

    def peer(self) -> str:
        return f"web:{self._ctx.client_address or 'unknown'}"

    def time_remaining(self) -> float | None:
        remaining_ms = self._ctx.timeout_ms
        return None if remaining_ms is None else max(remaining_ms / 1000, 0.0)

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        for key, value in metadata:
            self._ctx.response_trailers.add(key, value)

    async def send_initial_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        for key, value in metadata:
            self._ctx.response_headers.add(key, value)

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        raise ConnectError(_connect_code(code), details)

    async def abort_with_status(self, status: Any) -> NoReturn:
        raise _connect_error(status)


def _method_info(method: MethodDescriptor) -> MethodInfo[Message, Message]:
    if method.client_streaming:
        raise NotImplementedError(f"{method.full_name}: client streaming is not served")
    return MethodInfo(
        name=method.name,
        service_name=SERVICE.full_name,
        input=GetMessageClass(method.input_type),
        output=GetMessageClass(method.output_type),
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
    )


def _unary(handler: Any) -> Callable[[Message, RequestContext[Any, Any]], Awaitable[Message]]:
    async def call(request: Message, ctx: RequestContext[Any, Any]) -> Message:
        response: Message = await handler(request, WebContext(ctx))
        return response

    return call


def _stream(
    handler: Any,
) -> Callable[[Message, RequestContext[Any, Any]], AsyncIterator[Message]]:
    def call(request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Message]:
        stream: AsyncIterator[Message] = handler(request, WebContext(ctx))
        return stream

    return call


def endpoints(servicer: GameService) -> dict[str, Endpoint[Any, Any]]:
    """One endpoint per GameService RPC, by URL path (`/croupier.v1.GameService/GetGame`),
    each calling the servicer's own method."""
    found: dict[str, Endpoint[Any, Any]] = {}
    for method in SERVICE.methods:
        handler = getattr(servicer, method.name)
        info = _method_info(method)
        found[f"/{SERVICE.full_name}/{method.name}"] = (
            Endpoint.server_stream(info, _stream(handler))
            if method.server_streaming
            else Endpoint.unary(info, _unary(handler))
        )
    return found


class GameServiceWebApp(ConnectASGIApplication[GameService]):
    """The ASGI application serving GameService over the Connect and gRPC-Web protocols."""

    def __init__(self, servicer: GameService, max_request_bytes: int = MAX_REQUEST_BYTES) -> None:
        super().__init__(
            service=servicer,
            endpoints=cast("Callable[[GameService], Mapping[str, Any]]", endpoints),
            codecs=google_protobuf_codecs(),
            read_max_bytes=max_request_bytes,
        )

    @property
    def path(self) -> str:
        return f"/{SERVICE.full_name}"


class Cors:
    """CORS for the listed origins (`*`: any): answers preflights, and adds the
    Access-Control headers to the responses of an allowed origin. No origin listed: browsers
    may call only from the gateway's own origin."""

    def __init__(self, app: Asgi, origins: Sequence[str]) -> None:
        self._app = app
        self._origins = frozenset(origins)

    def _allowed(self, origin: str | None) -> bool:
        return origin is not None and ("*" in self._origins or origin in self._origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            allowed = self._allowed(origin)
            response = [(b"vary", b"Origin"), (b"content-length", b"0")]
            if allowed and origin is not None:
                response += [
                    (b"access-control-allow-origin", origin.encode("latin-1")),
                    (b"access-control-allow-methods", b"GET, POST"),
                    (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                    (b"access-control-max-age", PREFLIGHT_MAX_AGE.encode()),
                ]
            await send(
                {"type": "http.response.start", "status": 204 if allowed else 403,
                 "headers": response}
            )  # fmt: skip
            await send({"type": "http.response.body", "body": b""})
            return
        if not self._allowed(origin) or origin is None:
            await self._app(scope, receive, send)
            return
        extra = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
            (b"vary", b"Origin"),
        ]

        async def send_with_cors(message: Mapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self._app(scope, receive, send_with_cors)


@dataclass
class WebGateway:
    """A started gateway: the port it listens on, and how to stop it."""

    port: int
    _stopping: asyncio.Event
    _task: asyncio.Task[None]

    async def stop(self, grace: float = 5.0) -> None:
        """Stop accepting; let calls in flight finish for up to `grace` seconds."""
        self._stopping.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), grace + 1.0)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _listen(host: str, port: int, reuse_port: bool) -> socket.socket:
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def start_web_gateway(
    servicer: GameService,
    host: str,
    port: int,
    *,
    cors_origins: Sequence[str] = (),
    grace: float = 5.0,
    reuse_port: bool = False,
    tls: tuple[str, str] | None = None,
    max_request_bytes: int = MAX_REQUEST_BYTES,
) -> WebGateway:
    """Serve `servicer` to browsers on host:port (port 0: a free port), in this event loop.

    `cors_origins`: the origins whose pages may call (`*`: any). `reuse_port`: bind with
    SO_REUSEPORT (the processes of --workers). `tls`: (certificate chain file, key file) to
    serve HTTPS, with HTTP/2 for the browsers that negotiate it. `max_request_bytes`: the
    largest request message accepted, as the gRPC port's limit.

    The socket is bound and listening when this returns, so `gateway.port` can be used at
    once; calls are accepted as soon as the loop runs the server task."""
    sock = _listen(host, port, reuse_port)
    bound_port: int = sock.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]
    config.errorlog = log
    config.accesslog = None
    config.graceful_timeout = grace
    config.keep_alive_timeout = 75.0  # browsers reuse connections between moves
    if tls is not None:
        config.certfile, config.keyfile = tls
    app = Cors(GameServiceWebApp(servicer, max_request_bytes), cors_origins)
    stopping = asyncio.Event()
    task = asyncio.create_task(
        # Cors is a plain ASGI callable; Hypercorn's type names its exact scope/event types.
        serve(app, config, shutdown_trigger=stopping.wait, mode="asgi"),  # type: ignore[arg-type]
        name="croupier-web-gateway",
    )
    log.info("web gateway listening on port %d", bound_port)
    return WebGateway(bound_port, stopping, task)
