"""The `listening` line as a person reads it in `make run`'s console format: where the gRPC port
and the table are, and whether the store keeps the games, before the rest."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from croupier.local import LocalServer
from croupier.service.application import config
from croupier.service.main import store_description
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.service.transport.server import _reachable_host


def wait_for_line(path: Path, pattern: str) -> str:
    deadline = time.monotonic() + 10
    while True:
        complete = path.read_text().rpartition("\n")[0]
        found = [line for line in complete.splitlines() if re.search(pattern, line)]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no line matching {pattern!r}:\n{complete}"
        time.sleep(0.05)


def test_the_console_line_starts_with_the_addresses_and_the_store(tmp_path: Path) -> None:
    web_port = free_port()
    log_path = tmp_path / "server.log"
    with (
        EmbeddedRedis() as redis_server,
        log_path.open("wb") as log,
        LocalServer(
            redis_server.url,
            extra_args=("--web-port", str(web_port), "--log-format", "console"),
            log_level="info",
            stderr=log.fileno(),
        ) as server,
    ):
        line = wait_for_line(log_path, r"\blistening\b")
    after = line.split("listening", 1)[1].strip()
    assert after.startswith(
        f"grpc=127.0.0.1:{server.port} table=http://127.0.0.1:{web_port}/"
        f" store='{redis_server.url} (games kept in that Redis)' host=127.0.0.1"
    ), line


def test_the_json_line_has_the_same_fields(tmp_path: Path) -> None:
    """Without --web-port there is no table: null, as every port that is off."""
    log_path = tmp_path / "server.log"
    with (
        EmbeddedRedis() as redis_server,
        log_path.open("wb") as log,
        LocalServer(redis_server.url, log_level="info", stderr=log.fileno()) as server,
    ):
        line = json.loads(wait_for_line(log_path, r'"event": "listening"'))
    assert (line["grpc"], line["table"]) == (f"127.0.0.1:{server.port}", None)
    assert line["store"] == f"{redis_server.url} (games kept in that Redis)"


def test_the_store_is_named_with_whether_it_keeps_the_games() -> None:
    given = config.parse(["--redis-url", "redis://:hunter2@db.internal:6379/0?password=hunter2"])
    assert store_description(given, given.redis_url) == (
        "redis://db.internal:6379/0 (games kept in that Redis)"
    )
    default = config.parse([])
    embedded = store_description(default, "redis://127.0.0.1:41234/0")
    assert embedded == "embedded (games are lost when the server stops)"
    in_process = store_description(default, None)
    assert in_process == "in this process (games are lost when the server stops)"


def test_an_address_on_every_interface_is_named_as_this_machine_reaches_it() -> None:
    assert _reachable_host("[::]") == _reachable_host("0.0.0.0") == "localhost"
    assert _reachable_host("127.0.0.1") == "127.0.0.1"
    assert _reachable_host("::1") == _reachable_host("[::1]") == "[::1]"
