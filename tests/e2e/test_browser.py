"""Browsers: the web gateway (service/croupier/service/transport/web_gateway.py) serving the same
GameService servicer as a gRPC port, over gRPC-Web and the Connect protocol; its CORS; and the
example page (clients/typescript/examples/browser) in headless Chromium, loaded from another
origin."""

from __future__ import annotations

import functools
import json
import shutil
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis
from tests.e2e.helpers import ROOT, TS, check_refusals, run_node, run_script

PAGE_FOLDER = TS / "examples" / "browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SERVICE_PATH = "/croupier.v1.GameService/GetGame"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def page_origin() -> Iterator[str]:
    """The example page's folder on its own loopback origin, so its calls are cross-origin."""
    handler = functools.partial(_QuietHandler, directory=str(PAGE_FOLDER))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@dataclass
class Stack:
    grpc_target: str
    web_url: str


@pytest.fixture(scope="module")
def stack(redis_server: EmbeddedRedis, page_origin: str) -> Iterator[Stack]:
    """One servicer behind a gRPC port and the web gateway (tests/e2e/web_server.py)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.e2e.web_server", "--redis-url", redis_server.url,
         "--origin", page_origin],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "the web gateway launcher exited before listening"
        ports = json.loads(line)
        yield Stack(f"127.0.0.1:{ports['grpc_port']}", f"http://127.0.0.1:{ports['web_port']}")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _quick_game() -> str:
    return "whats_your_name" if "whats_your_name" in GAMES else sorted(GAMES)[0]


@pytest.mark.parametrize("protocol", ["grpc-web", "connect"])
def test_gateway_plays_and_refuses(protocol: str, typescript: Path, stack: Stack) -> None:
    """connect-web's transports (fetch, as in a browser) play a whole game through the
    gateway, watch included, and get the same refusals, with details, as gRPC clients."""
    game = _quick_game()
    seats = GAMES[game].min_seats
    summary = run_script(
        "examples/play.ts", "--transport", protocol, "--target", stack.web_url,
        "--game", game, "--seats", str(seats), "--seed", "5",
    )  # fmt: skip
    assert summary["moveCount"] == summary["moves"] > 0
    assert summary["watchSawResult"]
    assert summary["watchFinalMoveCount"] == summary["moves"]
    with Croupier(stack.grpc_target) as croupier:  # same store behind both ports
        assert croupier.get(summary["name"]).move_count == summary["moves"]
    check_refusals(run_script("test/errors.ts", "--transport", protocol, "--target", stack.web_url))


def _request(
    url: str, method: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, method=method, headers=headers, data=body)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}


def test_cors_only_for_the_configured_origin(stack: Stack, page_origin: str) -> None:
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, x-grpc-web",
    }
    status, headers = _request(
        stack.web_url + SERVICE_PATH, "OPTIONS", {"Origin": page_origin, **preflight}
    )
    assert status == 204
    assert headers["access-control-allow-origin"] == page_origin
    assert "authorization" in headers["access-control-allow-headers"]
    assert "POST" in headers["access-control-allow-methods"]

    other = "http://evil.invalid"
    status, headers = _request(
        stack.web_url + SERVICE_PATH, "OPTIONS", {"Origin": other, **preflight}
    )
    assert status == 403
    assert "access-control-allow-origin" not in headers

    # A simple call from the allowed origin exposes the status headers; from another, nothing.
    call = {"Content-Type": "application/json", "Connect-Protocol-Version": "1"}
    status, headers = _request(
        stack.web_url + SERVICE_PATH, "POST", {"Origin": page_origin, **call}, b"{}"
    )
    assert status == 400  # INVALID_NAME: the empty request names no game
    assert headers["access-control-allow-origin"] == page_origin
    assert "grpc-status-details-bin" in headers["access-control-expose-headers"]
    status, headers = _request(
        stack.web_url + SERVICE_PATH, "POST", {"Origin": other, **call}, b"{}"
    )
    assert "access-control-allow-origin" not in headers


@pytest.fixture(scope="module")
def page_bundle(typescript: Path) -> Path:
    run_node("npm", "run", "--silent", "build:browser")
    bundle = PAGE_FOLDER / "dist" / "main.js"
    assert bundle.exists()
    return bundle


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("protocol", ["grpc-web", "connect"])
def test_example_page_in_headless_chromium(
    protocol: str, page_bundle: Path, stack: Stack, page_origin: str, tmp_path: Path
) -> None:
    """The page lists the legal moves of the acting seat and applies the first; the move is
    in the store the gRPC port reads. A wrong credential shows the refusal's reason."""
    with Croupier(stack.grpc_target) as croupier:
        name = _quick_game()
        game = croupier.create(options_for(name), GAMES[name].min_seats, seed=21)
        seat = game.view.active_seats[0]
        credential = game.seat_credentials[seat]
        legal = croupier.legal_moves(game.name, credential)
    query = urllib.parse.urlencode(
        {"gateway": stack.web_url, "protocol": protocol, "name": game.name,
         "credential": credential}
    )  # fmt: skip
    shown = run_script(
        "test/browser.ts",
        "--page", f"{page_origin}/index.html?{query}",
        "--chromium", str(CHROMIUM),
        "--screenshot", str(tmp_path / "page.png"),
    )  # fmt: skip
    assert shown["listed"].startswith(f"seat {seat}: {len(legal)} legal move(s)")
    assert len(shown["moves"]) == len(legal)
    assert shown["applied"].startswith("applied: move_count=1 "), shown["applied"]
    assert shown["refused"].startswith("refused: PERMISSION_DENIED CREDENTIAL_REJECTED")
    assert shown["consoleErrors"] == []
    with Croupier(stack.grpc_target) as croupier:
        assert croupier.get(game.name).move_count == 1
