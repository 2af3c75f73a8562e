"""docs/api.md, "Reading the reason and the rule id": its Python, TypeScript, `buf curl` and
decoding examples, each run as written against a real server, on a move the rules refuse."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest

from croupier.client import Croupier
from croupier.local import LocalServer
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions
from tests.e2e.helpers import TS, TSX, run_node

ROOT = Path(__file__).resolve().parents[2]
SECTION = (
    (ROOT / "docs" / "api.md")
    .read_text()
    .split("### Reading the reason and the rule id\n", 1)[1]
    .split("\n### ", 1)[0]
)
# What each example prints for the refused pass: the reason, then the rule id.
PRINTED = "ILLEGAL_MOVE VQ-3.1\n"
# The game name the `buf curl` example shows in place of a real one.
SHOWN_NAME = "games/0123456789abcdef01234567"
# The move the example sends, in the protobuf JSON mapping.
PASS_JSON: dict[str, dict[str, dict[str, str]]] = {"vampireQueen": {"passTurn": {}}}


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", SECTION, re.DOTALL | re.MULTILINE)


def with_venv_tools() -> dict[str, str]:
    """This environment with the virtualenv's tools (buf) first on the PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.fixture
def refused(grpc_server: LocalServer) -> tuple[str, str]:
    return refused_pass(grpc_server.target)


def refused_pass(target: str) -> tuple[str, str]:
    """A game whose seat 0 leads, where a pass is refused by VQ-3.1 (the leader must play): its
    name and seat 0's credential."""
    with Croupier(target) as croupier:
        # Hunter 20 goes to the seat after first_hunter_seat, which leads the first trick.
        created = croupier.create(VampireQueenOptions(rounds=1, first_hunter_seat=2), seats=3)
    return created.name, created.seat_credentials[0]


def test_the_python_example_prints_the_reason_and_the_rule_id(
    grpc_server: LocalServer, refused: tuple[str, str]
) -> None:
    (code,) = blocks("python")
    assert f"# {PRINTED.strip()}" in code
    name, credential = refused
    passing = pb.Move(vampire_queen=VampireQueenMove(pass_turn=VampireQueenMove.Pass()))
    printed = io.StringIO()
    with grpc.insecure_channel(grpc_server.target) as channel, contextlib.redirect_stdout(printed):
        exec(
            code,
            {
                "stub": GameServiceStub(channel),
                "request": pb.ApplyMoveRequest(name=name, move=passing),
                "credential": credential,
            },
        )
    assert printed.getvalue() == PRINTED


def test_buf_curl_shows_the_details_as_documented(
    grpc_server: LocalServer, refused: tuple[str, str]
) -> None:
    """The command as written (the game's real name and the server's address put in), and
    exactly the JSON the section shows: the base64 values there are the server's own."""
    command = blocks("sh")[0]
    (shown,) = blocks("json")
    name, credential = refused
    assert json.dumps(PASS_JSON) in command
    done = subprocess.run(
        [
            "bash",
            "-c",
            command.replace(SHOWN_NAME, name).replace("localhost:50051", grpc_server.target),
        ],
        env={**with_venv_tools(), "CREDENTIAL": credential},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and not done.stdout, done.stdout
    assert json.loads(done.stderr) == json.loads(shown)  # buf curl writes a refusal on stderr


def test_the_web_ports_connect_json_carries_the_same_details(redis_server: EmbeddedRedis) -> None:
    (shown,) = blocks("json")
    web_port = free_port()
    with LocalServer(redis_server.url, extra_args=("--web-port", str(web_port))) as server:
        name, credential = refused_pass(server.target)
        call = urllib.request.Request(
            f"http://127.0.0.1:{web_port}/croupier.v1.GameService/ApplyMove",
            data=json.dumps({"name": name, "move": PASS_JSON}).encode(),
            headers={"content-type": "application/json", "authorization": f"Bearer {credential}"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(call, timeout=30)
    assert json.loads(caught.value.read()) == json.loads(shown)


def test_a_documented_value_decodes_to_what_the_section_says() -> None:
    """Each decoding command, run from the repository's root after the lines that set the
    value (protoc: grpcio-tools' own, which brings the well-known types), prints what the
    comments under it show."""
    script = blocks("sh")[1].splitlines()
    commands = [number for number, line in enumerate(script) if line.startswith("printf ")]
    assert len(commands) == 2
    setup = "\n".join(["set -e", *script[: commands[0]]])
    protoc = f'protoc() {{ "{sys.executable}" -m grpc_tools.protoc "$@"; }}'
    printed = []
    for start, end in zip(commands, [*commands[1:], len(script)], strict=True):
        done = subprocess.run(
            ["bash", "-c", "\n".join([protoc, setup, script[start]])],
            cwd=ROOT,
            env=with_venv_tools(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        shown = [line.removeprefix("# ") for line in script[start + 1 : end]]
        assert done.stdout.rstrip("\n").splitlines() == shown, script[start]
        printed.append(done.stdout)
    decoded = json.loads(printed[0])
    assert decoded == {
        "reason": "ILLEGAL_MOVE",
        "domain": "croupier.v1",
        "metadata": {"rule_id": "VQ-3.1"},
    }


def test_the_typescript_example_prints_the_reason_and_the_rule_id(
    typescript: Path, grpc_server: LocalServer, refused: tuple[str, str]
) -> None:
    """The example's lines with what it takes as given (a Connect client of GameService, the
    request, the credential) made first, in a script beside src/."""
    (code,) = blocks("ts")
    assert f"// {PRINTED.strip()}" in code
    name, credential = refused
    lines = code.replace('"./gen/', '"../src/gen/').splitlines()
    imports = [line for line in lines if line.startswith("import ")]
    body = [line for line in lines if not line.startswith("import ")]
    request = {"name": name, "move": PASS_JSON}
    script = "\n".join(
        [
            *imports,
            'import { fromJson } from "@bufbuild/protobuf";',
            'import { createClient } from "@connectrpc/connect";',
            'import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";',
            'import { ApplyMoveRequestSchema, GameService } from "../src/gen/croupier/v1/'
            'game_service_pb.js";',
            f'const sessionManager = new Http2SessionManager("http://{grpc_server.target}");',
            "const client = createClient(GameService, createGrpcTransport({",
            f'  baseUrl: "http://{grpc_server.target}", sessionManager,',
            "}));",
            f"const request = fromJson(ApplyMoveRequestSchema, {json.dumps(request)});",
            f"const credential = {json.dumps(credential)};",
            *body,
            "sessionManager.abort();",
        ]
    )
    with tempfile.TemporaryDirectory(dir=TS, prefix=".docs-example-") as folder:
        path = Path(folder) / "example.ts"
        path.write_text(script + "\n")
        done = run_node(str(TSX), str(path))
    assert done.stdout == PRINTED
