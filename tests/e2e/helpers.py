"""Running the TypeScript scripts of clients/typescript from the e2e tests, and what their
refusals must carry."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
TSX = TS / "node_modules" / ".bin" / "tsx"
# How long a script may run: generous, for a machine whose cores are busy with other work (tsx
# compiles the script first, and a whole game is played through it).
SCRIPT_TIMEOUT = 180.0


def run_node(*args: str, timeout: float = SCRIPT_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run a command in clients/typescript; fail the test with its output when it fails."""
    env = {**os.environ, "PATH": f"{TS / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        args, cwd=TS, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        pytest.fail(
            f"{' '.join(args)} exited {done.returncode}\n"
            f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
        )
    return done


def run_script(script: str, *args: str, timeout: float = SCRIPT_TIMEOUT) -> dict[str, Any]:
    """Run a TypeScript script with tsx; its last stdout line is a JSON object."""
    done = run_node(str(TSX), script, *args, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    assert lines, f"{script} printed nothing; stderr:\n{done.stderr}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def needs_npm_ci() -> bool:
    """Whether node_modules is missing, or older than package-lock.json."""
    installed = TS / "node_modules" / ".package-lock.json"
    lock = TS / "package-lock.json"
    return not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime


def check_refusals(seen: dict[str, object]) -> None:
    """What test/errors.ts saw: each refusal with its code, reason and details."""

    def case(key: str) -> dict[str, object]:
        value = seen[key]
        assert isinstance(value, dict), f"{key}: {value}"
        return value

    expected = {
        "credentialMissing": ("UNAUTHENTICATED", "CREDENTIAL_MISSING"),
        "credentialMalformed": ("UNAUTHENTICATED", "CREDENTIAL_MALFORMED"),
        "credentialRejected": ("PERMISSION_DENIED", "CREDENTIAL_REJECTED"),
        "invalidName": ("INVALID_ARGUMENT", "INVALID_NAME"),
        "notFound": ("NOT_FOUND", "GAME_NOT_FOUND"),
        "badSeats": ("INVALID_ARGUMENT", "INVALID_OPTIONS"),
        "illegalMove": ("FAILED_PRECONDITION", "ILLEGAL_MOVE"),
        "staleEtag": ("ABORTED", "ETAG_MISMATCH"),
    }
    for key, (code, reason) in expected.items():
        got = case(key)
        assert (got["code"], got["reason"]) == (code, reason), f"{key}: {got}"
        assert got["message"], f"{key}: no message"
    assert case("invalidName")["fields"] == ["name"]
    assert case("badSeats")["fields"] == ["seats"]
    illegal = case("illegalMove")
    assert illegal["ruleId"], "ILLEGAL_MOVE without the rule id"
    assert illegal["metadata"] == {"rule_id": illegal["ruleId"]}
    stale = case("staleEtag")
    assert isinstance(stale["metadata"], dict)
    assert stale["metadata"].get("current_etag")
