"""`python -m croupier.healthcheck` (the image's HEALTHCHECK and the compose healthchecks)
against a real croupier-server process with a real Redis."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from croupier import healthcheck
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.service.transport.server import SERVICE_NAME


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    """The probe exactly as a container runs it: a fresh interpreter, `-m croupier.healthcheck`."""
    return subprocess.run(
        [sys.executable, "-m", "croupier.healthcheck", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with EmbeddedRedis() as redis:
        yield redis.url


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[LocalServer]:
    with LocalServer(redis_url) as running:
        yield running


def test_serving_server_exits_0(server: LocalServer) -> None:
    result = probe("--target", server.target)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{server.target} (server): SERVING"


def test_game_service_by_name_is_serving(server: LocalServer) -> None:
    assert healthcheck.main(["--target", server.target, "--service", SERVICE_NAME]) == 0


def test_unknown_service_exits_1(server: LocalServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert healthcheck.main(["--target", server.target, "--service", "no.such.Service"]) == 1
    assert "NOT_FOUND" in capsys.readouterr().err


def test_default_target_is_the_local_port_of_croupier_port(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The image's HEALTHCHECK passes no --target: CROUPIER_PORT tells the probe where to ask."""
    monkeypatch.setenv("CROUPIER_PORT", str(server.port))
    monkeypatch.delenv("CROUPIER_HEALTHCHECK_TARGET", raising=False)
    assert healthcheck.main(["--timeout", "3"]) == 0


def test_closed_port_exits_1() -> None:
    target = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    result = probe("--target", target, "--timeout", "5")
    assert result.returncode == 1
    assert "UNAVAILABLE" in result.stderr
    assert time.monotonic() - started < 5, "a refused connection should fail at once"


def test_not_serving_while_draining_exits_1(redis_url: str) -> None:
    """From SIGTERM on, the server reports NOT_SERVING (while --shutdown-delay keeps it
    answering), and the probe says unhealthy."""
    with LocalServer(redis_url, extra_args=("--shutdown-delay", "1.5")) as draining:
        assert draining.process is not None
        assert healthcheck.check(draining.target) == (True, "SERVING")
        draining.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 1.5
        while healthcheck.check(draining.target, timeout=1)[0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert healthcheck.check(draining.target, timeout=1) == (False, "NOT_SERVING")
        assert healthcheck.main(["--target", draining.target, "--timeout", "1"]) == 1
        draining.process.kill()  # seen draining: no need to wait out the delay


@pytest.mark.parametrize(
    ("environ", "target"),
    [
        ({}, "127.0.0.1:50051"),
        ({"CROUPIER_PORT": "6000"}, "127.0.0.1:6000"),
        ({"CROUPIER_PORT": "0"}, "127.0.0.1:50051"),
        ({"CROUPIER_PORT": "6000", "CROUPIER_HEALTHCHECK_TARGET": "db:7"}, "db:7"),
    ],
)
def test_default_target(environ: dict[str, str], target: str) -> None:
    assert healthcheck.default_target(environ) == target


def test_bad_timeout_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as raised:
        healthcheck.main(["--timeout", "0"])
    assert raised.value.code == 2
