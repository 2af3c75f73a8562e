"""The README's quick start as a new user meets it: `make run` listens on loopback and keeps
the terminal, and every long step of `make run` and `make test` says what it does and about how
long it takes before it starts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

# How a step's announcement gives its length.
DURATION = re.compile(r"\b(a few seconds|(half )?a minute|\d+(-\d+)? minutes|one to two minutes)\b")


def dry_run(*args: str) -> str:
    """What `make -n ARGS` would run (every target rebuilt with -B), without CROUPIER_HOST from
    this environment."""
    environment = {name: value for name, value in os.environ.items() if name != "CROUPIER_HOST"}
    done = subprocess.run(
        ["make", "-n", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def server_command(output: str) -> str:
    (line,) = [line for line in output.splitlines() if "/croupier-server " in line]
    return line


def test_make_run_listens_on_loopback_unless_told_otherwise() -> None:
    """Without an operator key anyone who reaches the server may create games on it, so the
    developer's own server keeps to the loopback interface; CROUPIER_HOST widens it."""
    assert "--host 127.0.0.1 " in server_command(dry_run("run"))
    assert "--host [::] " in server_command(dry_run("run", "CROUPIER_HOST=[::]"))


def announcements(output: str) -> list[str]:
    """The `==>` lines a recipe echoes, each with the indented line that goes on with it."""
    lines = output.splitlines()
    found = []
    for number, line in enumerate(lines):
        if "==>" in line:
            text = line.split("==>", 1)[1]
            following = lines[number + 1] if number + 1 < len(lines) else ""
            if re.match(r'\s*echo "    ', following):
                text += " " + following.split('"', 1)[1]
            found.append(text)
    return found


def test_every_long_step_says_what_it_does_and_how_long_it_takes() -> None:
    said = announcements(dry_run("-B", "test")) + announcements(dry_run("-B", "run"))
    steps = {
        "Installing a C compiler": "compiler",
        "Installing the Python packages": "pip",
        "Compiling the rule engines": "mypyc",
        "installing Debian's redis-server": "redis-server",
        "Installing the TypeScript client's packages": "npm ci",
        "Installing Debian's chromium": "chromium",
        "Linting": "ruff, mypy, buf",
        "Running the test suite": "pytest",
        "Starting croupier-server": "make run",
    }
    for start in steps:
        matching = [text for text in said if start in text]
        assert matching, f"nothing announces {start!r}: {said}"
        assert all(DURATION.search(text) for text in matching), matching
    (starting,) = [text for text in said if "Starting croupier-server" in text]
    assert "Ctrl-C" in starting and "make test in another one" in starting


def test_the_quick_start_says_make_run_keeps_running_and_how_to_listen_everywhere() -> None:
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "Ctrl-C" in quick_start and "second terminal" in quick_start
    assert "127.0.0.1" in quick_start and "--host" in quick_start
    deployment = (ROOT / "docs" / "deployment.md").read_text()
    assert "make run CROUPIER_HOST='[::]'" in deployment and "--host 127.0.0.1" in deployment
    # The image (and so the manifests, which do not set it) keeps every interface.
    assert 'ENV CROUPIER_HOST="[::]"' in (ROOT / "deploy" / "Dockerfile").read_text()
    kubernetes = "\n".join(path.read_text() for path in (ROOT / "deploy").rglob("*.yaml"))
    assert "CROUPIER_HOST" not in kubernetes
