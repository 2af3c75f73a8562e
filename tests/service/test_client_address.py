"""Every call's log line names the client's address (`peer`), so that abuse can be traced to an
address: the peer of the gRPC connection without its port, the IPv6 host's own address (not
the /64 its rate limit counts), and on the web gateway the address of the HTTP connection,
whatever X-Forwarded-For says. Unary calls, watch streams, a PlayGame session and each of its
moves, the gateway's own refusals: real server processes on IPv4 and IPv6 loopback."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer, free_port
from croupier.play import options_for
from croupier.v1 import game_service_pb2 as pb
from croupier.v1 import game_service_pb2_grpc

SERVICE = "/croupier.v1.GameService"
MISSING = "games/" + "0" * 24


class _Ipv6Server(LocalServer):
    """A LocalServer on the IPv6 loopback: its target and --host are [::1]."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.args += ["--host", "[::1]"]  # the last --host is the one taken

    def pick_port(self) -> None:
        super().pick_port()
        self.target = f"[::1]:{self.port}"


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@dataclass
class Server:
    target: str
    web_url: str
    log: Path
    address: str  # what the lines must say


@pytest.fixture(scope="module", params=["127.0.0.1", "::1"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    address: str = request.param
    if address == "::1" and not _has_ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback")
    kind = LocalServer if address == "127.0.0.1" else _Ipv6Server
    web_port = free_port()
    log_path = tmp_path_factory.mktemp("peer") / "server.log"
    with (
        log_path.open("wb") as log,
        kind(
            extra_args=("--web-port", str(web_port), "--anonymous-rate-limit", "0"),
            log_level="info",
            stderr=log.fileno(),
        ) as started,
    ):
        host = "127.0.0.1" if address == "127.0.0.1" else "[::1]"
        yield Server(started.target, f"http://{host}:{web_port}", log_path, address)


def _lines(server: Server) -> list[dict[str, Any]]:
    complete = server.log.read_text().rpartition("\n")[0]
    lines = [json.loads(line) for line in complete.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "rpc"]


def _new_lines(server: Server, before: int, count: int) -> list[dict[str, Any]]:
    """The rpc lines after the first `before`, once there are `count` of them (a unary call's
    line is written just after its answer, a stream's at its end)."""
    deadline = time.monotonic() + 10
    while len(_lines(server)) < before + count and time.monotonic() < deadline:
        time.sleep(0.02)
    return _lines(server)[before:]


def test_grpc_calls_streams_and_session_moves_name_the_address(server: Server) -> None:
    before = len(_lines(server))
    with Croupier(server.target) as croupier:
        with pytest.raises(CroupierError):
            croupier.get(MISSING)
        with pytest.raises(CroupierError):
            next(iter(croupier.watch(MISSING)))
        game = croupier.create(options_for("one_card"), 2, seed=3)
        seat = game.view.active_seats[0]
        credential = game.seat_credentials[seat]
        move = croupier.legal_moves(game.name, credential)[0]
    with grpc.insecure_channel(server.target) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        requests = [
            pb.PlayGameRequest(start=pb.PlayGameStart(name=game.name)),
            pb.PlayGameRequest(move=pb.PlayGameMove(move=move)),
        ]
        session = stub.PlayGame(
            iter(requests), metadata=[("authorization", f"Bearer {credential}")], timeout=10
        )
        outcomes = [r.outcome for r in session if r.HasField("outcome")]
    assert len(outcomes) == 1 and not outcomes[0].HasField("status")  # applied
    lines = _new_lines(server, before, 6)
    by_rpc = {line["rpc"]: line for line in lines}
    assert set(by_rpc) >= {
        "GetGame", "WatchGame", "CreateGame", "ListLegalMoves", "PlayGame", "PlayGame.Move",
    }  # fmt: skip
    assert {line["peer"] for line in lines} == {server.address}, lines


def test_web_calls_and_refusals_name_the_connections_address(server: Server) -> None:
    before = len(_lines(server))
    forged = {"X-Forwarded-For": "203.0.113.9", "X-Real-IP": "203.0.113.9"}
    served = urllib.request.Request(
        f"{server.web_url}{SERVICE}/GetGame",
        method="POST",
        data=json.dumps({"name": MISSING}).encode(),
        headers={"Content-Type": "application/json", **forged},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(served, timeout=10)
    assert caught.value.code == 404  # NOT_FOUND, in Connect's JSON
    refused = urllib.request.Request(f"{server.web_url}{SERVICE}/GetGame", headers=forged)
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(refused, timeout=10)
    assert caught.value.code == 405
    lines = _new_lines(server, before, 2)
    assert [(line["rpc"], line["outcome"], line["peer"]) for line in lines] == [
        ("GetGame", "NOT_FOUND", server.address),
        ("GetGame", "UNIMPLEMENTED", server.address),
    ]
