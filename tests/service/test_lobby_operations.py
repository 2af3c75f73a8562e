"""The lobby's RPCs get the same treatment as the others (google.rpc.Status errors with
reasons, rate limits, metrics, a log line): JoinGame, LeaveGame, ListGames,
ReissueCredential, GetGameRecord and CreateGame's rematch through real server processes with
an operator key, on a single Redis and a three-master cluster."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.service.store.redis_store import UPDATE_SCRIPT
from tests.lost_reply import LostReplyProxy, script_sha
from tests.scrape import metrics_text, wait_metric
from tests.service.helpers import finish

OPERATOR_KEY = "op-lobby-operations"
ENV = {"CROUPIER_OPERATOR_KEY": OPERATOR_KEY}
LOBBY_RPCS = (
    "CreateGame",
    "JoinGame",
    "LeaveGame",
    "ListGames",
    "ReissueCredential",
    "GetGameRecord",
)


def test_each_lobby_rpc_is_logged_and_counted(store_url: str, tmp_path: Path) -> None:
    """One JSON log line per call (with its game and outcome, never a credential or the join
    code) and the calls and latency metrics, labelled by RPC, code and reason."""
    port = free_port()
    log_path = tmp_path / "server.log"
    with (
        log_path.open("wb") as log,
        LocalServer(
            store_url,
            env=ENV,
            log_level="info",
            stderr=log.fileno(),
            extra_args=("--metrics-port", str(port)),
        ) as server,
        Croupier(server.target, operator_key=OPERATOR_KEY) as operator,
        Croupier(server.target) as anonymous,
    ):
        game = operator.create(
            options_for("whats_your_name"), 2, player_ids=["host", ""], open_seats=True
        )
        joined = anonymous.join(game.name, game.join_code, player_id="guest")
        anonymous.leave(game.name, joined.seat_credential)
        joined = anonymous.join(game.name, game.join_code, player_id="guest")
        with pytest.raises(CroupierError) as refused:
            anonymous.join(game.name, game.join_code, player_id="late")
        assert refused.value.reason == "GAME_FULL"
        credentials = [operator.reissue(game.name, 0), joined.seat_credential]
        assert game.name not in [g.name for g in anonymous.list_games().games]  # not public
        listed = operator.iter_games(filter='player_id = "guest"')
        assert game.name in [g.name for g in listed]
        finish([operator], game.name, credentials, seed=2)
        record = anonymous.record(game.name, credentials[1])
        rematch = anonymous.rematch(game.name, credentials[0])
        # The rematch's metrics and log line are written in the turn of the loop after its answer.
        wait_metric(port, "croupier_rpc_calls_total", 2, rpc="CreateGame", code="OK")
        metrics = metrics_text(port)
    for rpc in LOBBY_RPCS:
        assert f'croupier_rpc_latency_seconds_bucket{{le="0.5",rpc="{rpc}"}}' in metrics, rpc
    ok = 'code="OK",game_type="whats_your_name",reason=""'
    for rpc, count in [("JoinGame", 2), ("LeaveGame", 1), ("ReissueCredential", 1)]:
        assert f'croupier_rpc_calls_total{{{ok},rpc="{rpc}"}} {count:.1f}' in metrics, rpc
    full = 'code="FAILED_PRECONDITION",game_type="whats_your_name",reason="GAME_FULL"'
    assert f'croupier_rpc_calls_total{{{full},rpc="JoinGame"}} 1.0' in metrics
    assert f'croupier_rpc_calls_total{{{ok},rpc="GetGameRecord"}} 1.0' in metrics

    written = log_path.read_text()
    for secret in [game.join_code, *credentials, joined.seat_credential, OPERATOR_KEY]:
        assert secret not in written
    lines = [json.loads(line) for line in written.splitlines() if line.startswith("{")]
    calls = [line for line in lines if line.get("rpc") in LOBBY_RPCS]
    game_id = game.name.removeprefix("games/")
    outcomes = {
        (line["rpc"], line["outcome"], line.get("reason"))
        for line in calls
        if line.get("game") == game_id
    }
    assert {
        ("JoinGame", "OK", None),
        ("JoinGame", "FAILED_PRECONDITION", "GAME_FULL"),
        ("LeaveGame", "OK", None),
        ("ReissueCredential", "OK", None),
        ("GetGameRecord", "OK", None),
    } <= outcomes, outcomes
    assert {line["rpc"] for line in calls} == set(LOBBY_RPCS)
    joins = [line for line in calls if line["rpc"] == "JoinGame" and line["outcome"] == "OK"]
    assert {line["seat"] for line in joins} == {1}
    assert record.name == game.name and rematch.name != game.name


def test_each_lobby_rpc_is_rate_limited(store_url: str) -> None:
    """Calls with a credential (a seat's or the operator key) are limited per credential,
    JoinGame and the lobby's ListGames (no credential) per address: past the burst, each is
    RESOURCE_EXHAUSTED `RATE_LIMITED`, refused before anything is read or written."""
    limits = ["--rate-limit", "1", "--rate-burst", "2"]
    limits += ["--anonymous-rate-limit", "1", "--anonymous-rate-burst", "2"]
    with (
        LocalServer(store_url, env=ENV) as setup_server,
        Croupier(setup_server.target, operator_key=OPERATOR_KEY) as setup,
    ):
        game = setup.create(
            options_for("whats_your_name"), 2, player_ids=["host", ""], open_seats=True
        )
        joined = setup.join(game.name, game.join_code)
        finish([setup], game.name, [game.seat_credentials[0], joined.seat_credential], seed=1)
        waiting = setup.create(options_for("one_card"), 2, open_seats=True)
        with (
            LocalServer(store_url, env=ENV, extra_args=tuple(limits)) as server,
            Croupier(server.target, operator_key=OPERATOR_KEY) as operator,
            Croupier(server.target) as anonymous,
        ):
            seat = game.seat_credentials[0]
            calls: dict[str, Callable[[], Any]] = {
                "JoinGame": lambda: anonymous.join(waiting.name, "jc_wrong"),
                "ListGames (lobby)": lambda: anonymous.list_games(),
                "ListGames (operator)": lambda: operator.list_games(page_size=1),
                "ReissueCredential": lambda: operator.reissue(waiting.name, 0),
                "GetGameRecord": lambda: anonymous.record(game.name, seat),
                "LeaveGame": lambda: anonymous.leave(game.name, seat),
                "CreateGame (rematch)": lambda: anonymous.rematch(game.name, seat),
            }
            for name, call in calls.items():
                outcomes = []
                for _ in range(8):  # a burst of 2 and 1 a second: 8 calls at once are too many
                    try:
                        call()
                        outcomes.append(("OK", grpc.StatusCode.OK))
                    except CroupierError as error:
                        outcomes.append((error.reason, error.code))
                limited = ("RATE_LIMITED", grpc.StatusCode.RESOURCE_EXHAUSTED)
                assert limited in outcomes, (name, outcomes)
        # Refused before the write: the waiting game's seats are as they were.
        assert setup.get(waiting.name).etag == waiting.etag


def test_the_python_client_sends_join_game_again_and_one_seat_is_claimed(tmp_path: Path) -> None:
    """A JoinGame whose write Redis made but whose answer was lost (STORE_UNAVAILABLE) is sent
    again by the channel's retry policy with the same request id: the retry gets the first
    answer from the record, and one seat is claimed (docs/api.md, "Which failures to retry")."""
    log_path = tmp_path / "server.log"
    with (
        EmbeddedRedis() as store,
        LostReplyProxy(store.port, script_sha(UPDATE_SCRIPT)) as proxy,
        log_path.open("wb") as log,
        LocalServer(proxy.url, env=ENV, log_level="info", stderr=log.fileno()) as server,
        Croupier(server.target, operator_key=OPERATOR_KEY, timeout=10) as operator,
        Croupier(server.target, timeout=10) as anonymous,
    ):
        game = operator.create(
            options_for("one_card"), 3, player_ids=["host", "", ""], open_seats=True
        )
        redis.Redis(port=store.port).script_load(UPDATE_SCRIPT)  # no NOSCRIPT round first
        proxy.arm()
        # No player id: nothing but the request id tells the retry from a second join.
        joined = anonymous.join(game.name, game.join_code, display_name="Guest")
        assert proxy.dropped.is_set()  # the first answer was lost: the write was made
        view = operator.get(game.name)
        assert (joined.seat, view.etag, list(view.open_seats)) == (1, "2", [2])
        assert anonymous.get(game.name, joined.seat_credential).viewer_seat == 1
        time.sleep(0.3)  # the log lines are written after the answers
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line[:1] == "{"]
    sent = Counter(
        (line["outcome"], line.get("reason")) for line in lines if line.get("rpc") == "JoinGame"
    )
    assert sent == {("UNAVAILABLE", "STORE_UNAVAILABLE"): 1, ("OK", None): 1}, sent
