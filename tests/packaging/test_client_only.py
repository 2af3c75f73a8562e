"""The client distribution (clients/python: the `croupier` package without the server) stands
alone: nothing in it imports the server (croupier.engines, croupier.service), and a fresh
virtualenv holding only its wheel, built offline from this tree, plays a game with
`croupier-play --target` against a real server started from this project's environment.

The fresh environment gets its third-party packages (grpcio, protobuf, ...) by a .pth line
naming this environment's site-packages: a plain path, so the .pth files there (this project's
editable install among them) are not run, and `croupier` is the installed wheel's alone.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from croupier.local import LocalServer
from tests.packaging.wheels import build_wheel

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "clients" / "python"
PACKAGE = CLIENT / "croupier"
SERVER_PACKAGES = ("croupier.engines", "croupier.service", "croupier.bench", "engines", "service")


def client_modules() -> dict[str, Path]:
    """Every module of the client's part of the croupier namespace package, by name."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(CLIENT)
        if "__pycache__" in relative.parts:
            continue
        name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


def imported_modules(path: Path) -> set[str]:
    """The modules a file imports, wherever the import statement is (in functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def is_server(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in SERVER_PACKAGES)


def test_the_client_imports_nothing_of_the_server() -> None:
    modules = client_modules()
    assert {"croupier.play", "croupier.client", "croupier.local", "croupier.v1"} <= set(modules)
    found = {
        name: sorted(m for m in imported_modules(path) if is_server(m))
        for name, path in modules.items()
    }
    assert {name: server for name, server in found.items() if server} == {}
    # The same at run time: every client module imported, no server module comes along.
    script = (
        "import importlib, sys\n"
        f"for name in {sorted(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.startswith({SERVER_PACKAGES!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def client_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the client's wheel installed (no index, no dependencies
    resolved): its bin folder."""
    folder = tmp_path_factory.mktemp("client-only")
    wheels = folder / "wheels"
    wheels.mkdir()
    wheel = build_wheel(CLIENT, wheels)
    with wheel:
        assert not [
            n
            for n in wheel.namelist()
            if n.startswith(("croupier/engines", "croupier/service", "croupier/bench"))
        ]
    environment = folder / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            str(wheel.filename),
        ],
        check=True,
        timeout=300,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "third_party.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return environment / "bin"


def test_the_installed_client_holds_no_server(client_only: Path) -> None:
    script = (
        "import importlib.util, croupier, croupier.play, croupier.client\n"
        "print(croupier.play.__file__)\n"
        "print(importlib.util.find_spec('croupier.service'), importlib.util.find_spec('engines'))\n"
    )
    done = subprocess.run(
        [str(client_only / "python"), "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=client_only,
        check=True,
    )
    where, missing = done.stdout.splitlines()
    assert where.startswith(str(client_only.parent)), where  # the wheel's, not this tree's
    assert missing == "None None"


def test_croupier_play_with_a_target_plays_a_whole_game(client_only: Path) -> None:
    with LocalServer() as server:  # the server of this environment, a process of its own
        done = subprocess.run(
            [
                str(client_only / "croupier-play"),
                *("--target", server.target, "--game", "one_card", "--players", "3"),
                *("--seed", "7"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=client_only,
        )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Final standings" in done.stdout and "winner" in done.stdout


def test_croupier_play_without_a_target_says_the_server_is_missing(client_only: Path) -> None:
    for args in (["--game", "one_card", "--players", "2"], ["--replay", "record.json"]):
        done = subprocess.run(
            [str(client_only / "croupier-play"), *args],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=client_only,
        )
        assert done.returncode != 0
        assert "server" in done.stderr and "Traceback" not in done.stderr, done.stderr
