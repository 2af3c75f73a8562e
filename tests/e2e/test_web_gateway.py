"""One behaviour on every port: a request that is not a message gets, on the web gateway
(Connect and gRPC-Web, unary and the server-streaming WatchGame), the very answer of the gRPC
port — INVALID_ARGUMENT with ErrorInfo MALFORMED_REQUEST and a BadRequest — and the same log
line and metrics; the calls that end in the gateway itself (unknown path, wrong content type,
oversize or badly framed body) are logged and counted too, and never answer with Python text.

Raw HTTP requests to a real `croupier-server --web-port` process, so the bytes on the wire are
exactly the ones under test."""

from __future__ import annotations

import base64
import gzip
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port

SERVICE = "/croupier.v1.GameService"
GARBAGE = b"\xff\xff\xff"  # field 31, wire type 7: no protobuf message
MAX_MESSAGE_BYTES = 2048
# What a parser or the Python runtime says, which callers must never be shown.
PYTHON_TEXT = re.compile(r"Failed to load JSON|unmarshal|Error -\d|Traceback|Exception|Expecting")


@dataclass
class Gateway:
    grpc_target: str
    web_url: str
    metrics_url: str
    log: Path


@pytest.fixture(scope="module")
def gateway(
    redis_server: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gateway]:
    web_port, metrics_port = free_port(), free_port()
    log_path = tmp_path_factory.mktemp("web") / "server.log"
    with (
        log_path.open("wb") as log,
        LocalServer(
            redis_server.url,
            extra_args=("--web-port", str(web_port), "--metrics-port", str(metrics_port),
                        "--max-message-bytes", str(MAX_MESSAGE_BYTES)),
            log_level="info",
            stderr=log.fileno(),
        ) as server,
    ):  # fmt: skip
        yield Gateway(
            server.target,
            f"http://127.0.0.1:{web_port}",
            f"http://127.0.0.1:{metrics_port}/metrics",
            log_path,
        )


@dataclass
class Answer:
    """A call's status as a client of its protocol reads it."""

    code: str  # gRPC status name
    message: str
    details: list[Message]


def _post(
    url: str, content_type: str, body: bytes, **headers: str
) -> tuple[int, bytes, dict[str, str]]:
    request = urllib.request.Request(
        url, method="POST", data=body, headers={"Content-Type": content_type, **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (
                response.status,
                response.read(),
                {k.lower(): v for k, v in response.headers.items()},
            )
    except urllib.error.HTTPError as error:
        return error.code, error.read(), {k.lower(): v for k, v in error.headers.items()}


def _unpack(any_details: list[Any]) -> list[Message]:
    unpacked: list[Message] = []
    for detail in any_details:
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
            message = kind()
            if detail.Unpack(message):
                unpacked.append(message)
    return unpacked


def _connect_details(error: dict[str, Any]) -> list[Message]:
    kinds = {"google.rpc.ErrorInfo": error_details_pb2.ErrorInfo,
             "google.rpc.BadRequest": error_details_pb2.BadRequest}  # fmt: skip
    return [
        kinds[d["type"]].FromString(base64.b64decode(d["value"] + "=" * (-len(d["value"]) % 4)))
        for d in error.get("details", [])
        if d["type"] in kinds
    ]


def _envelopes(body: bytes) -> Iterator[tuple[int, bytes]]:
    while body:
        flags, length = body[0], int.from_bytes(body[1:5], "big")
        yield flags, body[5 : 5 + length]
        body = body[5 + length :]


def connect_unary(url: str, rpc: str, content_type: str, body: bytes, **headers: str) -> Answer:
    headers["Connect-Protocol-Version"] = "1"
    status, answer, _ = _post(f"{url}{SERVICE}/{rpc}", content_type, body, **headers)
    assert status != 200, answer
    error = json.loads(answer)
    return Answer(error["code"].upper(), error.get("message", ""), _connect_details(error))


def connect_stream(url: str, rpc: str, body: bytes) -> Answer:
    framed = b"\x00" + len(body).to_bytes(4, "big") + body
    status, answer, _ = _post(f"{url}{SERVICE}/{rpc}", "application/connect+proto", framed)
    assert status == 200
    (end,) = [json.loads(data) for flags, data in _envelopes(answer) if flags & 0x02]
    error = end["error"]
    return Answer(error["code"].upper(), error.get("message", ""), _connect_details(error))


def grpc_web(url: str, rpc: str, framed: bytes, **headers: str) -> Answer:
    status, answer, response_headers = _post(
        f"{url}{SERVICE}/{rpc}", "application/grpc-web+proto", framed, **headers
    )
    assert status == 200
    trailers = dict(response_headers)
    for flags, data in _envelopes(answer):
        if flags & 0x80:
            for line in data.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
    code = grpc.StatusCode.OK
    for candidate in grpc.StatusCode:
        if str(candidate.value[0]) == trailers["grpc-status"]:
            code = candidate
    details: list[Message] = []
    if "grpc-status-details-bin" in trailers:
        raw = trailers["grpc-status-details-bin"]
        details = _unpack(
            list(
                status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4))).details
            )
        )
    return Answer(code.name, urllib.parse.unquote(trailers.get("grpc-message", "")), details)


def grpc_port(target: str, rpc: str, body: bytes) -> Answer:
    """The same bytes as a request on the gRPC port."""
    with grpc.insecure_channel(target) as channel:
        if rpc == "WatchGame":
            stream = channel.unary_stream(f"{SERVICE}/{rpc}")(body, timeout=10)
            with pytest.raises(grpc.RpcError) as caught:
                next(iter(stream))
        else:
            with pytest.raises(grpc.RpcError) as caught:
                channel.unary_unary(f"{SERVICE}/{rpc}")(body, timeout=10)
    error: Any = caught.value
    details: list[Message] = []
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            details = _unpack(list(status_pb2.Status.FromString(value).details))
    return Answer(error.code().name, error.details(), details)


def _frame(body: bytes) -> bytes:
    return b"\x00" + len(body).to_bytes(4, "big") + body


def _log_lines(path: Path) -> list[dict[str, Any]]:
    complete = path.read_text().rpartition("\n")[0]
    return [json.loads(line) for line in complete.splitlines() if line.startswith("{")]


def _calls(gateway: Gateway) -> list[dict[str, Any]]:
    return [line for line in _log_lines(gateway.log) if line.get("event") == "rpc"]


def _new_calls(gateway: Gateway, before: int, count: int = 1) -> list[dict[str, Any]]:
    """The call log lines written after the first `before`, once there are `count` of them
    (a unary call's line is written just after its answer)."""
    deadline = time.monotonic() + 60
    while len(_calls(gateway)) < before + count and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.1)  # and no more than that
    return _calls(gateway)[before:]


def _counter(gateway: Gateway, rpc: str, code: str, reason: str) -> float:
    text = urllib.request.urlopen(gateway.metrics_url, timeout=5).read().decode()
    labels = f'code="{code}",game_type="",reason="{reason}",rpc="{rpc}"'
    found = re.search(rf"^croupier_rpc_calls_total\{{{re.escape(labels)}\}} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def _assert_malformed(answer: Answer, type_name: str, problem: str) -> None:
    assert answer.code == "INVALID_ARGUMENT"
    assert answer.message == f"the request is not a valid {type_name} message ({problem})"
    assert not PYTHON_TEXT.search(answer.message)
    info, bad_request = answer.details
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "MALFORMED_REQUEST", "croupier.v1", {"field": "request"},
    )  # fmt: skip
    assert isinstance(bad_request, error_details_pb2.BadRequest)
    assert [v.field for v in bad_request.field_violations] == ["request"]


BAD_PROTOBUF = "bad protobuf encoding, or invalid UTF-8 in a string field"
NOT_JSON = "the body is not JSON"
BAD_JSON = (
    "the JSON does not follow the message's protobuf JSON mapping: a field of the wrong type,"
    " an unknown enum value or a repeated key"
)
BAD_FRAMING = "the body is not one message as the protocol frames it, or its compression is bad"


@dataclass(frozen=True)
class Case:
    name: str
    rpc: str
    protocol: str  # a Connect content type, or "grpc-web" (the body is then framed as sent)
    body: bytes
    problem: str  # what MALFORMED_REQUEST says
    gzip: bool = False  # sent as gzip-compressed (the body is not gzip)

    def send(self, url: str) -> Answer:
        if self.protocol == "grpc-web":
            headers = {"Grpc-Encoding": "gzip"} if self.gzip else {}
            return grpc_web(url, self.rpc, self.body, **headers)
        if self.rpc == "WatchGame":
            return connect_stream(url, self.rpc, self.body)
        headers = {"Content-Encoding": "gzip"} if self.gzip else {}
        return connect_unary(url, self.rpc, self.protocol, self.body, **headers)


PROTO, JSON = "application/proto", "application/json"
CASES = [
    Case("connect-proto-garbage", "GetGame", PROTO, GARBAGE, BAD_PROTOBUF),
    Case("connect-bad-json", "GetGame", JSON, b"{not json", NOT_JSON),
    Case("connect-json-not-utf8", "ApplyMove", JSON, b"\xff\xfe{", NOT_JSON),
    Case("connect-json-wrong-type", "GetGame", JSON, b'{"name": 5}', BAD_JSON),
    Case("connect-json-array", "CreateGame", JSON, b"[1, 2]", BAD_JSON),
    Case("connect-json-repeated-key", "GetGame", JSON, b'{"name": "a", "name": "b"}', BAD_JSON),
    Case("connect-json-deep", "GetGame", JSON, b"[" * 2000, NOT_JSON),
    Case("connect-bad-gzip", "GetGame", PROTO, b"not gzip", BAD_FRAMING, gzip=True),
    Case("connect-stream-garbage", "WatchGame", "connect+proto", GARBAGE, BAD_PROTOBUF),
    Case("grpc-web-garbage", "GetGame", "grpc-web", _frame(GARBAGE), BAD_PROTOBUF),
    Case("grpc-web-stream-garbage", "WatchGame", "grpc-web", _frame(GARBAGE), BAD_PROTOBUF),
    # A frame that promises 9 bytes and brings 1; a frame flagged compressed that is not gzip.
    Case("grpc-web-truncated-frame", "GetGame", "grpc-web", b"\0\0\0\0\x09\x0a", BAD_FRAMING),
    Case("grpc-web-bad-gzip", "WatchGame", "grpc-web", b"\x01\0\0\0\x04nope", BAD_FRAMING, True),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_request_that_is_not_a_message_is_malformed_logged_and_counted(
    gateway: Gateway, case: Case
) -> None:
    rpc = case.rpc
    before = len(_calls(gateway))
    counted = _counter(gateway, rpc, "INVALID_ARGUMENT", "MALFORMED_REQUEST")
    _assert_malformed(case.send(gateway.web_url), f"{rpc}Request", case.problem)
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"], line["reason"]) == (
        rpc,
        "INVALID_ARGUMENT",
        "MALFORMED_REQUEST",
    )
    assert _counter(gateway, rpc, "INVALID_ARGUMENT", "MALFORMED_REQUEST") == counted + 1


@pytest.mark.parametrize("rpc", ["GetGame", "ApplyMove", "WatchGame"])
def test_garbage_gets_the_grpc_ports_answer_and_log_line(gateway: Gateway, rpc: str) -> None:
    """The same bytes on the gRPC port, over Connect and over gRPC-Web: one answer (code,
    message, details) and one log line (but for its latency and time)."""
    before = len(_calls(gateway))
    on_grpc = grpc_port(gateway.grpc_target, rpc, GARBAGE)
    over_connect = (
        connect_stream(gateway.web_url, rpc, GARBAGE)
        if rpc == "WatchGame"
        else connect_unary(gateway.web_url, rpc, "application/proto", GARBAGE)
    )
    over_grpc_web = grpc_web(gateway.web_url, rpc, _frame(GARBAGE))
    _assert_malformed(on_grpc, f"{rpc}Request", BAD_PROTOBUF)
    assert over_connect == on_grpc
    assert over_grpc_web == on_grpc
    lines = _new_calls(gateway, before, 3)
    assert len(lines) == 3
    ignored = {"latency_ms", "timestamp"}
    first, *others = [{k: v for k, v in line.items() if k not in ignored} for line in lines]
    assert first["rpc"] == rpc
    assert all(other == first for other in others)


def test_unknown_json_fields_are_ignored_as_unknown_protobuf_fields_are(gateway: Gateway) -> None:
    """A JSON field the message does not have is skipped, as the binary encoding skips an
    unknown field number (a newer client's field does not break an older server): the call
    is served, here refused for its empty name."""
    before = len(_calls(gateway))
    answer = connect_unary(
        gateway.web_url, "GetGame", "application/json", b'{"fieldOfTomorrow": 1}'
    )
    assert answer.code == "INVALID_ARGUMENT"
    assert isinstance(answer.details[0], error_details_pb2.ErrorInfo)
    assert answer.details[0].reason == "INVALID_NAME"
    (line,) = _new_calls(gateway, before)  # (and the next test does not see it as its own)
    assert (line["rpc"], line["reason"]) == ("GetGame", "INVALID_NAME")


def test_an_unknown_path_is_logged_and_counted(gateway: Gateway) -> None:
    before = len(_calls(gateway))
    counted = _counter(gateway, "unknown", "UNIMPLEMENTED", "")
    status, body, _ = _post(f"{gateway.web_url}{SERVICE}/StealChips", "application/proto", b"")
    assert (status, body) == (404, b"")  # Connect and gRPC-Web clients read UNIMPLEMENTED
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"]) == ("unknown", "UNIMPLEMENTED")
    assert _counter(gateway, "unknown", "UNIMPLEMENTED", "") == counted + 1


@pytest.mark.parametrize("method", ["GET", "PUT", "HEAD", "DELETE"])
def test_another_http_method_is_405_logged_and_counted_as_such(
    gateway: Gateway, method: str
) -> None:
    """Both protocols call every method with POST: any other HTTP method on a method's path is
    HTTP 405 with `Allow: POST`, logged and counted under the rpc it named as UNIMPLEMENTED /
    METHOD_NOT_ALLOWED (what a client reads of a 405 is UNKNOWN, which tells nothing)."""
    before = len(_calls(gateway))
    counted = _counter(gateway, "GetGame", "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
    request = urllib.request.Request(
        f"{gateway.web_url}{SERVICE}/GetGame",
        method=method,
        data=b"{}" if method == "PUT" else None,
        headers={"Content-Type": "application/json", "Connect-Protocol-Version": "1"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 405
    assert caught.value.headers["Allow"] == "POST"
    assert caught.value.read() == b""
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"], line["reason"], line["peer"]) == (
        "GetGame", "UNIMPLEMENTED", "METHOD_NOT_ALLOWED", "127.0.0.1",
    )  # fmt: skip
    assert _counter(gateway, "GetGame", "UNIMPLEMENTED", "METHOD_NOT_ALLOWED") == counted + 1


def test_another_http_method_on_an_unknown_path_is_404(gateway: Gateway) -> None:
    """A path that names no method is unknown whatever the HTTP method: 404, rpc "unknown"."""
    before = len(_calls(gateway))
    request = urllib.request.Request(f"{gateway.web_url}{SERVICE}/StealChips", method="GET")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 404
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"], line.get("reason")) == ("unknown", "UNIMPLEMENTED", None)


def test_every_line_gives_the_address_of_the_http_connection(gateway: Gateway) -> None:
    """The address of the connection, on a call served (through the servicer's wrapper) and
    on one refused by the gateway itself; an X-Forwarded-For header, which any client can
    send, changes nothing."""
    forged = {"X-Forwarded-For": "203.0.113.9", "Forwarded": "for=203.0.113.9"}
    before = len(_calls(gateway))
    served = connect_unary(
        gateway.web_url, "GetGame", JSON, b'{"name": "games/000000000000000000000000"}', **forged
    )
    assert served.code == "NOT_FOUND"
    status, _, _ = _post(f"{gateway.web_url}{SERVICE}/GetGame", "text/plain", b"", **forged)
    assert status == 415
    on_grpc = grpc_port(gateway.grpc_target, "GetGame", GARBAGE)
    assert on_grpc.code == "INVALID_ARGUMENT"
    lines = _new_calls(gateway, before, 3)
    assert [(line["rpc"], line["outcome"], line["peer"]) for line in lines] == [
        ("GetGame", "NOT_FOUND", "127.0.0.1"),
        ("GetGame", "UNKNOWN", "127.0.0.1"),
        ("GetGame", "INVALID_ARGUMENT", "127.0.0.1"),
    ]


def test_a_wrong_content_type_is_logged_and_counted(gateway: Gateway) -> None:
    before = len(_calls(gateway))
    counted = _counter(gateway, "GetGame", "UNKNOWN", "")
    status, body, headers = _post(f"{gateway.web_url}{SERVICE}/GetGame", "text/plain", b"name")
    assert (status, body) == (415, b"")
    assert "application/proto" in headers["accept-post"]
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"]) == ("GetGame", "UNKNOWN")  # what clients read of 415
    assert _counter(gateway, "GetGame", "UNKNOWN", "") == counted + 1


def test_a_bad_protocol_header_is_logged_with_its_code(gateway: Gateway) -> None:
    before = len(_calls(gateway))
    status, body, _ = _post(
        f"{gateway.web_url}{SERVICE}/GetGame", "application/json", b"{}",
        **{"Connect-Protocol-Version": "1", "Connect-Timeout-Ms": "soon"},
    )  # fmt: skip
    assert status == 400
    assert json.loads(body)["code"] == "invalid_argument"
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"]) == ("GetGame", "INVALID_ARGUMENT")


@pytest.mark.parametrize("protocol", ["connect", "grpc-web"])
def test_an_oversize_request_is_refused_logged_and_counted(gateway: Gateway, protocol: str) -> None:
    """Over --max-message-bytes: RESOURCE_EXHAUSTED, as the gRPC port answers, without the
    request being read further."""
    big = b"\x0a" + (3000).to_bytes(2, "little") + b"x" * 3000  # more than MAX_MESSAGE_BYTES
    before = len(_calls(gateway))
    counted = _counter(gateway, "GetGame", "RESOURCE_EXHAUSTED", "")
    if protocol == "connect":
        status, body, _ = _post(f"{gateway.web_url}{SERVICE}/GetGame", "application/proto", big)
        assert status == 429
        answer = Answer(json.loads(body)["code"].upper(), json.loads(body)["message"], [])
    else:
        answer = grpc_web(gateway.web_url, "GetGame", _frame(big))
    assert answer.code == "RESOURCE_EXHAUSTED"
    assert answer.message == f"message is larger than configured max {MAX_MESSAGE_BYTES}"
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"]) == ("GetGame", "RESOURCE_EXHAUSTED")
    assert _counter(gateway, "GetGame", "RESOURCE_EXHAUSTED", "") == counted + 1
    with grpc.insecure_channel(gateway.grpc_target) as channel:  # the gRPC port's answer
        with pytest.raises(grpc.RpcError) as caught:
            channel.unary_unary(f"{SERVICE}/GetGame")(big, timeout=10)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_gzip_requests_are_still_served(gateway: Gateway) -> None:
    """The lenient codecs change nothing for a valid request, compressed or not."""
    body = gzip.compress(b'{"name": "games/000000000000000000000000"}')
    before = len(_calls(gateway))
    status, answer, _ = _post(
        f"{gateway.web_url}{SERVICE}/GetGame", "application/json", body,
        **{"Content-Encoding": "gzip", "Connect-Protocol-Version": "1"},
    )  # fmt: skip
    assert status == 404
    assert json.loads(answer)["code"] == "not_found"
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["reason"]) == ("GetGame", "GAME_NOT_FOUND")


def test_grpc_over_http1_is_refused_without_python_text(gateway: Gateway) -> None:
    """gRPC needs trailers, which HTTP/1.1 has not: a plain refusal, logged, where connectrpc
    answered grpc-status UNKNOWN with its exception's text (and a traceback in the log)."""
    before = len(_calls(gateway))
    status, body, _ = _post(
        f"{gateway.web_url}{SERVICE}/GetGame", "application/grpc", _frame(GARBAGE)
    )
    assert (status, body) == (505, b"gRPC needs HTTP/2 trailers: call the gRPC port")
    (line,) = _new_calls(gateway, before)
    assert (line["rpc"], line["outcome"]) == ("GetGame", "UNKNOWN")
    assert "Traceback" not in gateway.log.read_text()
