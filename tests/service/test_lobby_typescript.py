"""The lobby through the TypeScript client (clients/typescript/examples/lobby.ts) against a
real server with an operator key: create with an open seat, find it in the lobby, join, leave,
join again, reissue a credential, play to the end, read the record, rematch, list. On the
single Redis only: the client is the same on either store, and the Python tests cover the
cluster."""

from __future__ import annotations

import shutil

import pytest

from croupier.local import LocalServer
from croupier.service.store.redis_client import is_cluster_url
from tests.e2e.helpers import TSX, run_node, run_script

OPERATOR_KEY = "op-ts-lobby"


def test_the_typescript_client_joins_lists_records_and_rematches(store_url: str) -> None:
    if is_cluster_url(store_url):
        pytest.skip("the TypeScript client's lobby runs once, on the single Redis")
    if shutil.which("node") is None or not TSX.exists():
        pytest.skip("Node.js and the TypeScript client's packages (make node) are needed")
    run_node("npm", "run", "--silent", "generate")
    with LocalServer(store_url, env={"CROUPIER_OPERATOR_KEY": OPERATOR_KEY}) as server:
        seen = run_script(
            "examples/lobby.ts", "--target", server.target, "--operator-key", OPERATOR_KEY
        )
    assert seen["lobby"] == [seen["name"]]
    assert seen["joinedSeat"] == 1
    assert seen["openAfterLeave"] == [1]  # LeaveGame freed the seat; the second join took it
    assert seen["oldCredential"] == "CREDENTIAL_REJECTED"  # ReissueCredential revoked it
    assert seen["statusAfterJoin"] == "ACTIVE"
    assert seen["moves"] > 0 and seen["recordMoves"] == seen["moves"]
    assert seen["rematch"] != seen["name"]
    assert seen["listed"] == [seen["rematch"], seen["name"]]
