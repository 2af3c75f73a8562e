"""The browser gateway: gRPC-Web and the Connect protocol over HTTP/1.1 (and h2c) for the same
`GameService` servicer, store and rules as the gRPC port.

Browsers cannot speak gRPC (no HTTP trailers from fetch), so a second port serves the two
browser protocols, both of which connect-web clients speak. The protocols come from
`connectrpc` (Connect's Python runtime, with its google.protobuf codecs) served by Hypercorn
inside the server's own event loop; each call is handed to the very servicer object the gRPC
server uses, through a small adapter of the two things it needs from a gRPC context (the call
metadata, and `abort_with_status`). Nothing about games is reimplemented here: the endpoints
are derived from the GameService descriptor, so they follow protos/.

One behaviour on every port: requests are decoded leniently, as on the gRPC port (a body that
is not a message reaches the servicer's call wrapper as `Undecodable`, which answers
MALFORMED_REQUEST, logs the call and counts it), and the calls that end in the gateway itself
(unknown path, an HTTP method other than POST, wrong content type, oversize or badly framed
body) are logged and counted as well, framing errors as MALFORMED_REQUEST.

    gateway = await start_web_gateway(servicer, "[::]", 8080, cors_origins=["https://app"])
    ...
    await gateway.stop()

See docs/browser.md.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import gzip
import hashlib
import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, cast

import grpc
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import status_pb2
from hypercorn.asyncio import serve
from hypercorn.config import Config
from protobuf.wkt import Any as AnyDetail

from croupier.service.application import errors
from croupier.service.application.callers import CallLog
from croupier.service.transport.calls import Undecodable, lenient, unexpected_error
from croupier.service.transport.servicer import GameService
from croupier.v1 import game_service_pb2

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
    """A `grpc.Status` (as built by service/croupier/service/application/errors.py) as a
    ConnectError with the same google.rpc.Status details, so both browser protocols carry ErrorInfo,
    BadRequest and PreconditionFailure exactly as the gRPC port does."""
    code: grpc.StatusCode = status.code
    details: list[ErrorDetail] = []
    for key, value in status.trailing_metadata or ():
        if key == STATUS_DETAILS_KEY:
            rich = status_pb2.Status.FromString(value)
            details = [
                ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich.details
            ]
    return ConnectError(_connect_code(code), status.details or "", details)


def _status_name(code: Code) -> str:
    """A Connect code as the gRPC status name the call log and metrics use."""
    return "CANCELLED" if code == Code.CANCELED else code.name


# The status a gRPC client reads from a bare HTTP error (the gRPC spec's table, which
# connect-web and grpc-web follow as well); any other status: UNKNOWN.
_HTTP_STATUS_CODES = {
    400: "INTERNAL", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "UNIMPLEMENTED",
    429: "UNAVAILABLE", 502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "UNAVAILABLE",
}  # fmt: skip
_GRPC_STATUS_NAMES: dict[str, str] = {str(code.value[0]): code.name for code in grpc.StatusCode}
UNKNOWN_RPC = "unknown"  # the rpc of a path that names no GameService method
# The log's and the metrics' reason of an HTTP method other than POST on a method's path,
# answered HTTP 405 before any protocol is read. It is no ErrorInfo reason: a 405 has no body,
# and a client reads its code from the HTTP status (UNKNOWN, as for any status the protocols'
# tables do not list). The call is counted UNIMPLEMENTED: the method is not served that way.
METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"


@dataclass(slots=True)
class _Request:
    """One HTTP request to the gateway: its call log, written here unless the servicer's
    call wrapper got the call (then the wrapper writes it, as for the gRPC port)."""

    call: CallLog
    started: float
    served: bool = False  # the servicer's wrapper has the call
    decided: bool = False  # the call's outcome is set (by _GatewayErrors)


# The request being handled: Hypercorn runs each request in its own task, so its own context.
_REQUEST: contextvars.ContextVar[_Request | None] = contextvars.ContextVar(
    "croupier_web_request", default=None
)


def _served() -> None:
    request = _REQUEST.get()
    if request is not None:
        request.served = True


class _LenientBinaryCodec:
    """Protobuf binary, decoded as the gRPC port decodes
    (service/croupier/service/transport/calls.py `lenient`): bytes that are not a message become
    `Undecodable`, for the servicer's wrapper to answer."""

    _codec = google_protobuf_binary_codec()

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        encoded: bytes = self._codec.encode(message)
        return encoded

    def decode(
        self, data: bytes | bytearray, message_class: type[Message]
    ) -> Message | Undecodable:
        return lenient(message_class)(bytes(data))


class _LenientJsonCodec:
    """Protobuf JSON, decoded by protobuf's own JSON parser; a body it refuses becomes
    `Undecodable` with a fixed description (not JSON, or not the message's JSON mapping).
    Unknown fields are ignored, as the binary encoding skips unknown fields (and as Connect
    servers do): a newer client's extra field does not break an older server."""

    _codec = google_protobuf_json_codec()

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        encoded: bytes = self._codec.encode(message)
        return encoded

    def decode(
        self, data: bytes | bytearray, message_class: type[Message]
    ) -> Message | Undecodable:
        message = message_class()
        try:
            json_format.Parse(bytes(data), message, ignore_unknown_fields=True)
        # Whatever the parser raises (ParseError, UnicodeDecodeError, RecursionError of deep
        # nesting...), the body is not a request: the exception's text is not the caller's.
        except Exception:
            return Undecodable(message_class.DESCRIPTOR.name, self._problem(data))
        return message

    @staticmethod
    def _problem(data: bytes | bytearray) -> str:
        try:
            json.loads(data)
        except Exception:
            return errors.NOT_JSON
        return errors.BAD_JSON


class _GatewayErrors:
    """A Connect metadata interceptor: it sees how every call that got past path and content
    type ends. One that ended before reaching the servicer (a body that is not framed as the
    protocol says, or badly compressed, or over the size limit) is recorded for its log line;
    a framing error is answered MALFORMED_REQUEST with its details, as a body that does not
    decode; an unexpected exception INTERNAL, without its text."""

    async def on_start(self, ctx: RequestContext[Any, Any]) -> None:
        return None

    async def on_end(
        self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        request = _REQUEST.get()
        if request is None or request.served or error is None:
            return
        request.decided = True
        if isinstance(error, ConnectError) and error.code != Code.INVALID_ARGUMENT:
            request.call.outcome = _status_name(error.code)
            return
        if isinstance(error, ConnectError):
            refusal = errors.malformed_request(ctx.method.input.DESCRIPTOR.name, errors.BAD_FRAMING)
        else:
            refusal = unexpected_error(error)
        request.call.fail(refusal)
        raise _connect_error(refusal.to_status()) from error


class _Response:
    """What the gateway answered, for the log line of a call refused before any interceptor
    ran (unknown path, wrong method or content type, bad protocol headers)."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.status = 0
        self.grpc_status: str | None = None
        self.json_error = False
        self.body = b""

    async def __call__(self, message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            for key, value in message.get("headers", ()):
                if key.lower() == b"grpc-status":
                    self.grpc_status = value.decode("latin-1")
                elif key.lower() == b"content-type":
                    self.json_error = value.startswith(b"application/json")
        elif message["type"] == "http.response.body" and self.json_error and self.status != 200:
            self.body += message.get("body", b"")
        await self._send(message)

    def outcome(self) -> str:
        if self.grpc_status is not None:
            return _GRPC_STATUS_NAMES.get(self.grpc_status, "UNKNOWN")
        if self.json_error and self.status != 200:
            # A Connect error: {"code": "invalid_argument", "message": ...}
            with contextlib.suppress(ValueError, AttributeError, KeyError):
                name = str(json.loads(self.body)["code"]).upper()
                if name in Code.__members__:
                    return _status_name(Code[name])
        if self.status == 0:
            return "CANCELLED"  # nothing was answered: the client went away
        return _HTTP_STATUS_CODES.get(self.status, "UNKNOWN")


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
        _served()
        response: Message = await handler(request, WebContext(ctx))
        return response

    return call


def _stream(
    handler: Any, output: type[Message]
) -> Callable[[Message, RequestContext[Any, Any]], AsyncIterator[Message]]:
    async def call(request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Message]:
        _served()
        # The servicer streams messages, or updates serialized once for every stream of a
        # seat (games.Published.update_for): Connect's codecs, JSON's too, take messages.
        async with contextlib.aclosing(handler(request, WebContext(ctx))) as stream:
            async for item in stream:
                yield output.FromString(item) if type(item) is bytes else item

    return call


def endpoints(servicer: GameService) -> dict[str, Endpoint[Any, Any]]:
    """One endpoint per GameService RPC, by URL path (`/croupier.v1.GameService/GetGame`),
    each calling the servicer's own method."""
    found: dict[str, Endpoint[Any, Any]] = {}
    for method in SERVICE.methods:
        if method.client_streaming:
            continue  # PlayGame: HTTP/1.1's gRPC-Web and Connect streams go one way only
        handler = getattr(servicer, method.name)
        info = _method_info(method)
        found[f"/{SERVICE.full_name}/{method.name}"] = (
            Endpoint.server_stream(info, _stream(handler, info.output))
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
            interceptors=[_GatewayErrors()],
            codecs=[_LenientBinaryCodec(), _LenientJsonCodec()],
            read_max_bytes=max_request_bytes,
        )
        self._rpcs = {f"/{SERVICE.full_name}/{m.name}": m.name for m in SERVICE.methods}

    @property
    def path(self) -> str:
        return f"/{SERVICE.full_name}"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Every HTTP request is one call with one log line and its metrics: written by the
        servicer's call wrapper when the call reaches it, else here."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        rpc = self._rpcs.get(scope["path"], UNKNOWN_RPC)
        client = scope.get("client")
        # The peer as WebContext.peer() gives it to the servicer, for the calls that end here.
        # The address of the HTTP connection: a header such as X-Forwarded-For is anyone's to
        # send, so none is read.
        peer = f"web:{client[0]}:{client[1]}" if client else "web:unknown"
        request = _Request(CallLog(rpc, peer=peer), time.perf_counter())
        response = _Response(send)
        token = _REQUEST.set(request)
        try:
            if rpc != UNKNOWN_RPC and scope["method"] != "POST":
                # Both protocols call every method with POST (Connect's GET is only for methods
                # marked free of side effects, which none is).
                request.call.outcome, request.call.reason = "UNIMPLEMENTED", METHOD_NOT_ALLOWED
                request.decided = True
                await _answer(response, 405, b"", [(b"allow", b"POST")])
                return
            if _grpc_without_trailers(scope):
                await _answer(response, 505, b"gRPC needs HTTP/2 trailers: call the gRPC port")
                return
            await super().__call__(scope, receive, response)
        finally:
            _REQUEST.reset(token)
            if not request.served:
                if not request.decided:
                    request.call.outcome = response.outcome()
                request.call.emit(time.perf_counter() - request.started)


def _grpc_without_trailers(scope: Any) -> bool:
    """A gRPC (not gRPC-Web) call over a connection without trailers (HTTP/1.1): connectrpc
    would raise, answering grpc-status UNKNOWN with its exception's text."""
    if "http.response.trailers" in scope.get("extensions", {}):
        return False
    for key, value in scope["headers"]:
        if key.lower() == b"content-type":
            return value.startswith(b"application/grpc") and not value.startswith(
                b"application/grpc-web"
            )
    return False


async def _answer(
    send: Send, status: int, text: bytes, extra: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(text)),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text})


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


# The table page (clients/typescript/table/, built into croupier/service/static/; docs/browser.md).
TABLE_FOLDER = Path(__file__).parents[1] / "static"
_CONTENT_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".png": b"image/png",
    ".ico": b"image/x-icon",
}
# The page calls only its own origin and loads only its own files; no inline script, so an
# injected string can never run. `frame-ancestors 'none'`: no clickjacking of the moves.
_PAGE_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    b" connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True, slots=True)
class _File:
    body: bytes
    gzipped: bytes
    content_type: bytes
    etag: bytes


class StaticFiles:
    """Serves the table page's files at `/` beside the RPC endpoints: a GET or HEAD of a path
    outside `/croupier.v1.GameService/` is answered from the files of `folder`, read once at
    start. Only the files found there are served, looked up by exact name, so no path can
    reach outside the folder (`..`, encoded slashes and symlinks lead nowhere). Every answer
    says `no-cache` with an ETag: a reload after an upgrade never mixes old and new files, and
    an unchanged file costs a 304. Requests for the page are not calls: not logged or counted
    as RPCs (and a seat's credential, in the URL fragment, never reaches the server anyway)."""

    def __init__(self, app: Asgi, folder: Path) -> None:
        self._app = app
        self._rpc_prefix = f"/{SERVICE.full_name}/"
        self._files: dict[str, _File] = {}
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                kind = _CONTENT_TYPES.get(path.suffix)
                if kind is None or not path.is_file() or path.is_symlink():
                    continue
                body = path.read_bytes()
                digest = hashlib.sha256(body).hexdigest()[:20]
                self._files[f"/{path.name}"] = _File(
                    body, gzip.compress(body, 9, mtime=0), kind, f'"{digest}"'.encode()
                )
        if "/index.html" in self._files:
            self._files["/"] = self._files["/index.html"]

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self._files)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "HEAD")
            or scope["path"].startswith(self._rpc_prefix)
        ):
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        found = self._files.get(scope["path"])
        if found is None:
            await _answer(send, 404, b"not found")
            return
        common = [
            (b"cache-control", b"no-cache"),
            (b"etag", found.etag),
            (b"vary", b"Accept-Encoding"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", _PAGE_POLICY),
        ]
        if headers.get("if-none-match") == found.etag.decode():
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        body = found.body
        if "gzip" in headers.get("accept-encoding", ""):
            body = found.gzipped
            common.append((b"content-encoding", b"gzip"))
        common += [(b"content-type", found.content_type), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": common})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


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
    table_folder: Path | None = TABLE_FOLDER,
) -> WebGateway:
    """Serve `servicer` to browsers on host:port (port 0: a free port), in this event loop.

    `cors_origins`: the origins whose pages may call (`*`: any). `reuse_port`: bind with
    SO_REUSEPORT (the processes of --workers). `tls`: (certificate chain file, key file) to
    serve HTTPS, with HTTP/2 for the browsers that negotiate it. `max_request_bytes`: the
    largest request message accepted, as the gRPC port's limit. `table_folder`: the files of
    the table page, served at `/` (None: no page).

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
    rpcs: Asgi = GameServiceWebApp(servicer, max_request_bytes)
    if table_folder is not None:
        rpcs = StaticFiles(rpcs, table_folder)
    app = Cors(rpcs, cors_origins)
    stopping = asyncio.Event()
    task = asyncio.create_task(
        # Cors is a plain ASGI callable; Hypercorn's type names its exact scope/event types.
        serve(app, config, shutdown_trigger=stopping.wait, mode="asgi"),  # type: ignore[arg-type]
        name="croupier-web-gateway",
    )
    if table_folder is not None:
        log.info(
            "web gateway listening on port %d; the table page at http://<host>:%d/",
            bound_port,
            bound_port,
        )
    else:
        log.info("web gateway listening on port %d", bound_port)
    return WebGateway(bound_port, stopping, task)
