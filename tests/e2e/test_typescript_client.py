"""The TypeScript client (clients/typescript, Connect for Node over gRPC) against the real
Python server: it type-checks against the code generated from protos/ now, plays a complete
game of every game in the registry through a session per seat with one seat watching, reads
every kind of refusal, and retries the calls an overloaded server refuses."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest
import redis

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.local import LocalServer
from croupier.service.store import keys
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.service.store.redis_store import UPDATE_SCRIPT
from croupier.v1.one_card_pb2 import OneCardOptions
from croupier.v1.vampire_queen_pb2 import VampireQueenOptions
from tests.e2e.helpers import SCRIPT_TIMEOUT, TS, TSX, check_refusals, run_node, run_script
from tests.lost_reply import LostReplyProxy, script_sha
from tests.reliability.overloaded import call_slot_held, watch_slot_held
from tests.reliability.support import game_id
from tests.scrape import metric, wait_metric


def test_typescript_typechecks(typescript: Path) -> None:
    """The wrapper, the examples and the test scripts compile against the generated code."""
    run_node("npm", "run", "--silent", "typecheck")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_typescript_client_plays_a_complete_game(
    game: str, typescript: Path, grpc_server: LocalServer
) -> None:
    """Random legal play to the end through a session per seat (a seat drawn among the active
    seats, a move among the legal moves of its session's view), while the last seat watches
    through WatchGame until the result."""
    seats = GAMES[game].min_seats
    watch_seat = seats - 1
    summary = run_script(
        "examples/play.ts",
        "--target", grpc_server.target,
        "--game", game,
        "--seats", str(seats),
        "--seed", "11",
        "--watch-seat", str(watch_seat),
    )  # fmt: skip
    moves = summary["moves"]
    assert moves > 0
    assert summary["moveCount"] == moves
    assert summary["resultSeats"] > 0
    assert summary["activeSeatsAtEnd"] == 0
    assert summary["spectatorHasResult"]
    assert summary["spectatorMoveCount"] == moves
    assert summary["playedThrough"] == "sessions"
    assert summary["sessionsSawResult"] == [True] * seats, "a session ended before the result"

    # The watch: the view at the start, then views in move order, ending with the result.
    counts = summary["watchMoveCounts"]
    assert counts[0] == 0
    assert counts == sorted(set(counts)), "watch views out of order or repeated"
    assert summary["watchViewerSeat"] == watch_seat
    assert summary["watchSawResult"], "the watch ended without the final result"
    assert summary["watchFinalMoveCount"] == moves
    assert counts == list(range(moves + 1)), "the watch missed a move"

    # A resume from the middle (sinceEtag): every later move again, the same messages.
    middle = summary["resumedFromMoveCount"]
    assert summary["resumedMoveCounts"] == list(range(middle + 1, moves + 1))
    assert summary["resumedSameAsLive"]

    # A move after the end is refused, with the reason and the rule; so is, on its session, a
    # move of a seat that may not act.
    for refusal in (summary["refusalAfterEnd"], summary["sessionRefusal"]):
        code, reason, *rule = refusal.split()
        assert (code, reason) == ("FAILED_PRECONDITION", "ILLEGAL_MOVE")
        assert len(rule) == 1, "the refusal carries no rule id"

    # What the TypeScript client did is what the Python client reads.
    with Croupier(grpc_server.target) as croupier:
        view = croupier.get(summary["name"])
    assert view.game_type == game
    assert view.move_count == moves
    assert view.HasField("result")


def test_typescript_client_errors(typescript: Path, grpc_server: LocalServer) -> None:
    """Each refusal arrives as a CroupierError with the gRPC code, the ErrorInfo reason, the
    ErrorInfo metadata, BadRequest field violations and the PreconditionFailure rule id,
    decoded from grpc-status-details-bin."""
    seen = run_script("test/errors.ts", "--target", grpc_server.target, "--game", "vampire_queen")
    check_refusals(seen)


def _overload_script(target: str, name: str, *args: str) -> subprocess.Popen[str]:
    """test/overload.ts started and ready: it makes its call on the line written to it."""
    env = {**os.environ, "PATH": f"{TS / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"}
    script = subprocess.Popen(
        [str(TSX), "test/overload.ts", "--target", target, "--name", name, *args],
        cwd=TS, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert script.stdout is not None
    assert json.loads(script.stdout.readline()) == {"ready": True}
    return script


def _result(script: subprocess.Popen[str]) -> dict[str, object]:
    out, _ = script.communicate(timeout=SCRIPT_TIMEOUT)
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def test_typescript_client_retries_overloaded_calls(typescript: Path) -> None:
    """An ApplyMove and a WatchGame refused UNAVAILABLE / OVERLOADED (the server's one call
    slot, then its one watch slot, held) are retried after the RetryInfo delay and succeed;
    the move, sent without a request id, carries one the client made up and applies once."""
    metrics_port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(
            store.url,
            extra_args=(
                "--max-calls-in-flight", "1", "--max-watch-streams", "1",
                "--max-spectator-streams", "1", "--store-timeout", "60",
                "--rate-limit", "0", "--metrics-port", str(metrics_port),
            ),
            env={"CROUPIER_ANONYMOUS_RATE_LIMIT": "0"},
        ) as server,
        Croupier(server.target) as client,
    ):  # fmt: skip
        game = client.create(VampireQueenOptions(), 3, seed=12)
        seat = game.view.active_seats[0]
        credential = game.seat_credentials[seat]

        script = _overload_script(
            server.target, game.name, "--mode", "apply", "--credential", credential
        )
        with call_slot_held(store, server.target, game.name, metrics_port):
            assert script.stdin is not None
            script.stdin.write("go\n")
            script.stdin.flush()
            wait_metric(metrics_port, "croupier_overloaded_calls_total", 1, rpc="ApplyMove")
        assert _result(script) == {"etag": "2", "moveCount": 1}
        assert client.get(game.name).move_count == 1
        with redis.Redis.from_url(store.url) as direct:
            records = list(direct.scan_iter(keys.request(game_id(game.name), "*")))
        assert len(records) == 1
        request_id = records[0].decode().rsplit(":", 1)[1]
        assert str(uuid.UUID(request_id)) == request_id.lower()

        script = _overload_script(server.target, game.name, "--mode", "watch")
        with watch_slot_held(server.target, game.name, metrics_port):
            assert script.stdin is not None
            script.stdin.write("go\n")
            script.stdin.flush()
            wait_metric(metrics_port, "croupier_overloaded_calls_total", 1, rpc="WatchGame")
        assert _result(script) == {"moveCount": 1}
        refused = {
            rpc: metric(metrics_port, "croupier_overloaded_calls_total", rpc=rpc)
            for rpc in ("ApplyMove", "WatchGame")
        }
    assert all(1 <= n < 5 for n in refused.values()), refused


def test_typescript_client_sends_join_game_again_after_overloaded(typescript: Path) -> None:
    """A JoinGame refused UNAVAILABLE / OVERLOADED (the server's one call slot held) is sent
    again after the RetryInfo delay, and the join is made."""
    metrics_port = free_port()
    with (
        EmbeddedRedis() as store,
        LocalServer(
            store.url,
            extra_args=(
                "--max-calls-in-flight", "1", "--store-timeout", "60", "--rate-limit", "0",
                "--metrics-port", str(metrics_port),
            ),
            env={"CROUPIER_ANONYMOUS_RATE_LIMIT": "0"},
        ) as server,
        Croupier(server.target) as client,
    ):  # fmt: skip
        game = client.create(OneCardOptions(), 2, player_ids=["host", ""], open_seats=True)
        script = _overload_script(
            server.target, game.name, "--mode", "join", "--code", game.join_code
        )
        with call_slot_held(store, server.target, game.name, metrics_port):
            assert script.stdin is not None
            script.stdin.write("go\n")
            script.stdin.flush()
            wait_metric(metrics_port, "croupier_overloaded_calls_total", 1, rpc="JoinGame")
        assert _result(script) == {"seat": 1}


def test_typescript_client_sends_a_join_again_after_a_lost_answer_and_claims_one_seat(
    typescript: Path,
) -> None:
    """A JoinGame whose write Redis made but whose answer was lost (the server's connection to
    Redis cut after the write: STORE_UNAVAILABLE) is sent again with the request id the client
    made up: the retry gets the first answer, and one seat is claimed."""
    metrics_port = free_port()
    with (
        EmbeddedRedis() as store,
        LostReplyProxy(store.port, script_sha(UPDATE_SCRIPT)) as proxy,
        LocalServer(
            proxy.url,
            extra_args=("--metrics-port", str(metrics_port)),
        ) as server,
        Croupier(server.target) as client,
    ):
        game = client.create(OneCardOptions(), 3, player_ids=["host", "", ""], open_seats=True)
        with redis.Redis(port=store.port) as direct:
            direct.script_load(UPDATE_SCRIPT)  # no NOSCRIPT round first
        script = _overload_script(
            server.target, game.name, "--mode", "join", "--code", game.join_code
        )
        proxy.arm()
        assert script.stdin is not None
        script.stdin.write("go\n")
        script.stdin.flush()
        assert _result(script) == {"seat": 1}
        assert proxy.dropped.is_set()
        view = client.get(game.name)
        assert (view.etag, list(view.open_seats)) == ("2", [2])
        joins = {
            reason: metric(metrics_port, "croupier_rpc_calls_total", rpc="JoinGame", reason=reason)
            for reason in ("STORE_UNAVAILABLE", "")
        }
        with redis.Redis(port=store.port) as direct:
            records = list(direct.scan_iter(keys.request(game_id(game.name), "join:*")))
    assert joins == {"STORE_UNAVAILABLE": 1, "": 1}
    assert len(records) == 1
    request_id = records[0].decode().rsplit(":", 1)[1]
    assert str(uuid.UUID(request_id)) == request_id.lower()
