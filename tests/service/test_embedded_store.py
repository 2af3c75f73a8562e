"""The embedded default store of `croupier-server` without a Redis URL, against real processes:
a private redis-server child that keeps its games in the data folder from one start to the
next (`--data-dir`, by default in the user's data directory), or nothing with `--ephemeral`;
one server per folder; and a child that never outlives its server, SIGKILL included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from croupier.bench.cpu import children_of
from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import SERVER_MODULE, LocalServer
from croupier.service.application.config import default_data_dir, parse
from croupier.service.store.embedded_redis import EmbeddedRedis
from croupier.v1 import game_service_pb2 as pb
from tests.service.helpers import create

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

# How long a redis-server may take to go once its server is killed: the kernel's signal is
# immediate and redis-server's shutdown takes milliseconds; the margin is for a busy machine.
GONE_WITHIN = 15.0


def start_up_line(log: Path, event: str = "embedded_redis") -> dict[str, object]:
    """The server's start-up line `event`: by default the one about its embedded store."""
    complete = log.read_text().rpartition("\n")[0]
    events: list[dict[str, object]] = [
        json.loads(line) for line in complete.splitlines() if line.startswith("{")
    ]
    (line,) = [logged for logged in events if logged.get("event") == event]
    return line


def running(pid: int) -> bool:
    """Whether `pid` runs: a zombie, ended but not reaped, does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pid: int, timeout: float = GONE_WITHIN) -> float:
    """Seconds until `pid` no longer runs; fails after `timeout`."""
    started = time.monotonic()
    while running(pid):
        assert time.monotonic() - started < timeout, f"process {pid} still runs"
        time.sleep(0.05)
    return time.monotonic() - started


def play_one_move(client: Croupier, seed: int) -> tuple[str, str, pb.GameView]:
    """A new game with one move played: its name, a seat's credential and that seat's view."""
    game = create(client, "one_card", 2, seed=seed)
    seat = game.view.active_seats[0]
    credential = game.seat_credentials[seat]
    move = client.legal_moves(game.name, credential)[0]
    return game.name, credential, client.apply(game.name, credential, move).view


def redis_child(server: LocalServer) -> int:
    assert server.process is not None
    (pid,) = children_of(server.process.pid)
    return pid


def test_a_game_outlives_a_restart_of_its_server(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    log_path = tmp_path / "server.log"
    with (
        log_path.open("wb") as log,
        LocalServer(data_dir=folder, log_level="info", stderr=log.fileno()) as server,
        Croupier(server.target) as client,
    ):
        name, credential, played = play_one_move(client, seed=5)
    line = start_up_line(log_path)
    assert (line["folder"], line["kept"]) == (str(folder.resolve()), True)
    assert start_up_line(log_path, "listening")["store"] == (
        f"embedded in {folder.resolve()} (games kept from one start to the next)"
    )
    assert (folder / "appendonlydir").is_dir()
    with LocalServer(data_dir=folder) as server, Croupier(server.target) as client:
        again = client.get(name, credential)
        assert (again.etag, again.move_count) == (played.etag, 1)
        assert again.one_card == played.one_card


def test_without_data_dir_the_folder_is_in_the_user_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    log_path = tmp_path / "server.log"
    with (
        log_path.open("wb") as log,
        LocalServer(
            env={"XDG_DATA_HOME": str(data)},
            extra_args=("--no-ephemeral",),
            log_level="info",
            stderr=log.fileno(),
        ) as server,
        Croupier(server.target) as client,
    ):
        play_one_move(client, seed=6)
    folder = data / "croupier" / "redis"
    assert start_up_line(log_path)["folder"] == str(folder.resolve())
    assert (folder / "appendonlydir").is_dir()


def test_ephemeral_keeps_nothing(tmp_path: Path) -> None:
    """LocalServer's default, as croupier-play's: a temporary folder, removed at the end, and
    nothing in the user's data directory."""
    data = tmp_path / "data"
    log_path = tmp_path / "server.log"
    with (
        log_path.open("wb") as log,
        LocalServer(
            env={"XDG_DATA_HOME": str(data)}, log_level="info", stderr=log.fileno()
        ) as server,
        Croupier(server.target) as client,
    ):
        name, credential, _ = play_one_move(client, seed=7)
    line = start_up_line(log_path)
    assert line["kept"] is False
    listening = start_up_line(log_path, "listening")
    assert listening["store"] == "embedded (games are lost when the server stops)"
    assert not Path(str(line["folder"])).exists()
    assert not data.exists()
    with LocalServer(env={"XDG_DATA_HOME": str(data)}) as server, Croupier(server.target) as client:
        with pytest.raises(CroupierError) as refused:
            client.get(name, credential)
        assert refused.value.reason == "GAME_NOT_FOUND"


def test_a_second_server_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with LocalServer(data_dir=folder) as first, Croupier(first.target) as client:
        assert first.process is not None
        name, credential, _ = play_one_move(client, seed=8)
        second = subprocess.run(
            [
                *[sys.executable, "-m", SERVER_MODULE, "--host", "127.0.0.1", "--port", "0"],
                *["--data-dir", str(folder), "--no-ephemeral"],
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert f"{folder} is the store of another croupier-server" in second.stderr
        assert f"pid {first.process.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        # The first one's redis-server is untouched.
        assert client.get(name, credential).move_count == 1


@pytest.mark.parametrize("kept", [True, False], ids=["data-dir", "ephemeral"])
def test_sigkill_of_the_server_takes_its_redis_server_along(tmp_path: Path, kept: bool) -> None:
    """Killed outright, the server runs no code of its own: the kernel's parent-death signal
    stops its redis-server, which first writes what it holds, so a kept game is still there."""
    folder = tmp_path / "store"
    server = LocalServer(data_dir=folder if kept else None).start()
    try:
        with Croupier(server.target) as client:
            name, credential, _ = play_one_move(client, seed=9)
        child = redis_child(server)
        assert server.process is not None
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        wait_gone(child)
    finally:
        server.stop()
    if kept:
        with LocalServer(data_dir=folder) as server, Croupier(server.target) as client:
            assert client.get(name, credential).move_count == 1


def test_a_redis_server_left_in_the_folder_is_stopped_first(tmp_path: Path) -> None:
    """A redis-server still running in the folder (left by a server that died where no
    parent-death signal stopped it) is stopped, having written what it held, before the new
    server starts its own on the same files."""
    folder = tmp_path / "store"
    log_path = tmp_path / "server.log"
    leftover = EmbeddedRedis(folder=folder).start()
    try:
        with redis.Redis.from_url(leftover.url) as direct:
            direct.set("written-before", "kept")
        assert leftover.process is not None
        pid = leftover.process.pid
        with (
            log_path.open("wb") as log,
            LocalServer(data_dir=folder, log_level="info", stderr=log.fileno()) as server,
        ):
            assert leftover.process.wait(timeout=GONE_WITHIN) == 0  # a clean shutdown
            assert redis_child(server) != pid
            port = json.loads((folder / "redis-server.json").read_text())["port"]
            with redis.Redis(host="127.0.0.1", port=port) as direct:
                assert direct.get("written-before") == b"kept"
        assert start_up_line(log_path)["stopped_leftover"] == pid
    finally:
        leftover.stop()


def test_settings_of_the_embedded_store(capsys: pytest.CaptureFixture[str]) -> None:
    home = {"HOME": "/home/someone"}
    assert default_data_dir({**home, "XDG_DATA_HOME": "/data"}) == Path("/data/croupier/redis")
    expected = Path("/home/someone/.local/share/croupier/redis")
    assert default_data_dir(home) == expected
    # A relative XDG_DATA_HOME is ignored, as the XDG specification says.
    assert default_data_dir({**home, "XDG_DATA_HOME": "data"}) == expected
    assert parse([], environ={}).ephemeral is False
    assert parse([], environ={"CROUPIER_EPHEMERAL": "yes"}).ephemeral is True
    assert parse(["--no-ephemeral"], environ={"CROUPIER_EPHEMERAL": "1"}).ephemeral is False
    assert parse([], environ={"CROUPIER_DATA_DIR": "/srv/games"}).data_dir == "/srv/games"
    assert parse([], environ={"CROUPIER_DATA_DIR": ""}).data_dir is None
    # --help names the folder this environment gives.
    with pytest.raises(SystemExit):
        parse(["--help"], environ={"XDG_DATA_HOME": "/srv/xdg"})
    assert "/srv/xdg/croupier/redis" in capsys.readouterr().out
    assert os.environ["CROUPIER_EPHEMERAL"] == "1"  # the suite's servers keep nothing
